//===- ScOps.td - ops of the sc dialect ----------------------*- tablegen -*-===//
#ifndef SPARCAST_DIALECT_SC_IR_SCOPS_TD
#define SPARCAST_DIALECT_SC_IR_SCOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "sparcast/Dialect/SC/IR/ScDialect.td"
include "sparcast/Dialect/SC/IR/ScAttrs.td"

def Sc_IndexTensor : TensorRankOf<[I32], [1]>;

def Sc_GatherRowsOp : Sc_Op<"gather_rows", [Pure]> {
  let summary = "gather rows of a tensor by an int32 index (the broadcast)";
  let description = [{
    `result[b, ...] = source[indices[b], ...]`. This is how models broadcast
    request tensors to candidates: `source` has one row per request and
    `indices` maps each candidate to its request. Index values must lie in
    [0, dim(source, 0)); the runtime checks them on request.

    Example:

    ```mlir
    %e = sc.gather_rows %user[%idx]
        : tensor<?x64x32xf16>, tensor<?xi32> -> tensor<?x64x32xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Sc_IndexTensor:$indices);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` attr-dict `:` type($source) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Sc_AssembleHybridOp : Sc_Op<"assemble_hybrid", [Pure]> {
  let summary = "a weight in hybrid dense / 2:4 / zero tiles from its packed buffers";
  let description = [{
    The weight whose packed buffers (docs/hybrid-tiles.md, as
    `scHybridPack` writes them) are `kinds` (per tile 0 zero, 1 dense, 2
    2:4), `slots` (the tile's index among its kind), `dense` ([dense tiles,
    tile rows, tile cols]), `sparse` ([2:4 tiles, tile rows, tile cols / 2])
    and `meta` (uint32 words held as i32, [2:4 tiles, tile rows, tile cols /
    32]). The result's `#sc.hybrid_tiles` encoding gives the tile and the
    grid. Its value is the dense weight the buffers stand for (what
    `scHybridUnpack` returns); a GEMM taking it as its rhs reads the packed
    buffers tile by tile (sparse tensor cores for 2:4 tiles, nothing for
    zero tiles). Like `sparse_tensor.assemble`: the buffers are not copied.

    Example:

    ```mlir
    %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta
        : tensor<2x4xi8>, tensor<2x4xi32>, tensor<?x64x128xf16>,
          tensor<?x64x64xf16>, tensor<?x64x4xi32>
       -> tensor<128x512xf16, #sc.hybrid_tiles<tile = [64, 128], grid = [2, 4], kinds = "">>
    ```
  }];
  let arguments = (ins TensorRankOf<[I8], [2]>:$kinds,
                       TensorRankOf<[I32], [2]>:$slots,
                       TensorRankOf<[F16, BF16], [3]>:$dense,
                       TensorRankOf<[F16, BF16], [3]>:$sparse,
                       TensorRankOf<[I32], [3]>:$meta);
  let results = (outs RankedTensorOf<[F16, BF16]>:$result);
  let assemblyFormat = [{
    $kinds `,` $slots `,` $dense `,` $sparse `,` $meta attr-dict `:`
    type($kinds) `,` type($slots) `,` type($dense) `,` type($sparse) `,`
    type($meta) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::sc::HybridTilesAttr getLayout() {
      return ::llvm::cast<::mlir::sc::HybridTilesAttr>(
          getResult().getType().getEncoding());
    }
  }];
}

def Sc_BatchMatmulOp : Sc_Op<"batch_matmul", [
    RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "batched matmul with an element-wise epilogue region";
  let description = [{
    `result[b, m, n] = epilogue(sum_k lhs[b, m, k] * rhs[b, k, n], b, m, n,
    epilogue_ins...)` with fp32 accumulation. Either operand may be shared by
    the batch (rank 2, e.g. a weight); at least one is batched (rank 3).
    With `transpose_rhs` the rhs is laid out `[b, n, k]`.

    The optional epilogue region receives the fp32 accumulator, the batch,
    row and column indices, then the `epilogue_ins` operands, and yields the
    result element. It may read the epilogue operands with `tensor.extract`
    at any indices, which expresses scale, bias, activation, cast and the
    IKBO gather-add `user[idx[b], m, n]`. Without a region the accumulator is
    converted to the result element type.

    With `sum_rows` the rows are summed instead of stored: `result[b, 0, n]
    = sum_m f32(epilogue(...)[b, m, n])`, an f32 result of one row. The
    region is then required and may yield any float type: the element
    rounded as a stored result would be, then summed in f32 (a GEMM whose
    result only a sum over its rows reads, as a mean pooling: the result
    is never written).

    Example:

    ```mlir
    %c = sc.batch_matmul %w, %e epilogue_ins(%bias : tensor<32xf32>)
        : tensor<16x64xf16>, tensor<?x64x32xf16> -> tensor<?x16x32xf16> {
    ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bias_: tensor<32xf32>):
      %x = tensor.extract %bias_[%n] : tensor<32xf32>
      %s = arith.addf %acc, %x : f32
      %h = arith.truncf %s : f32 to f16
      sc.yield %h : f16
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       Variadic<AnyType>:$epilogue_ins,
                       UnitAttr:$transpose_rhs, UnitAttr:$sum_rows);
  let results = (outs AnyRankedTensor:$result);
  let regions = (region MaxSizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $lhs `,` $rhs (`epilogue_ins` `(` $epilogue_ins^ `:` type($epilogue_ins) `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
    ($epilogue^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The contraction size K (may be dynamic).
    int64_t getContractionSize();
    /// The rows M of each product: the result's, or with sum_rows (one
    /// result row) the lhs's.
    int64_t getRowCount();
    /// The element the epilogue yields: the result's, or with sum_rows
    /// (an f32 sum of them) the region's.
    ::mlir::Type getEpilogueElementType();
    /// Whether the op has an epilogue region.
    bool hasEpilogue() { return !getEpilogue().empty(); }
    /// The epilogue region's block, or null without an epilogue.
    ::mlir::Block *getEpilogueBlock() {
      return hasEpilogue() ? &getEpilogue().front() : nullptr;
    }
    /// Name of the symbol reference from a GEMM to its kernel at the kernel
    /// level (`sck`, made by sc-lower-to-sck); the GPU kernel generator
    /// takes the ring and the roles' registers from there.
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("sc.kernel_ir");
    }
    /// The function getKernelAttrName() names, or null (no attribute, or
    /// no such symbol).
    ::mlir::Operation *getKernelIR();
    /// Name of the discardable attribute that pins the op's GPU schedule.
    static constexpr ::llvm::StringLiteral getScheduleAttrName() {
      return ::llvm::StringLiteral("sc.gemm_schedule");
    }
    /// Why the transposed schedule (out[b]^T = E[b]^T W^T in 128 x 224
    /// tiles) cannot take this op, or an empty string: it needs a shared
    /// lhs, an untransposed rhs and a 16-bit result.
    std::string getTransposedTileLimitation();
    /// Number of leading block arguments of the epilogue that are not
    /// epilogue operands: accumulator, batch, row, column.
    static constexpr unsigned kNumEpilogueLeadingArgs = 4;
    /// When this op's epilogue reads epilogue operand `epilogueIn` only at
    /// [g(b), m, n], with one g computed from the batch index and the
    /// epilogue operands: g. A tile of this GEMM then reads one tile of
    /// the operand (what the GPU kernels prefetch). Else null, `why` set.
    ::mlir::Value getGatheredTileIndex(unsigned epilogueIn, std::string &why);
    /// The same for an epilogue region of this form, (acc, b, m, n,
    /// ins...) -> element (the op's, or a kernel-level copy of it).
    static ::mlir::Value getGatheredTileIndex(::mlir::Block &body,
                                              unsigned epilogueIn,
                                              std::string &why);
    /// The ops of an epilogue region that `value` (a value of that region)
    /// depends on, in the region's order: what computes it from the
    /// region's arguments (e.g. a gathered tile's g(b)).
    static ::llvm::SmallVector<::mlir::Operation *>
    getEpilogueSlice(::mlir::Value value);
  }];
}

def Sc_AttentionOp : Sc_Op<"attention", [Pure]> {
  let summary = "scaled dot-product attention, optionally indexed and block-masked";
  let description = [{
    `result[b, h] = softmax(scale * Q[b, h] K[r, h]^T + mask) V[r, h]` with
    `Q : [B, H, L, d]`, `K : [R, H, S, d]`, `V : [R, H, S, dv]`, softmax in
    fp32. Without `index`, `r = b` (R == B). With `index` (int32 `[B]`,
    values in [0, R)), `r = index[b]`: each candidate attends to its
    request's keys and values, which are never broadcast (IKBO type II).
    `mask` is a block mask (`#sc.log_linear` or `#sc.block_sparse`);
    softmax runs over the kept keys only. `scale` defaults to 1/sqrt(d).

    Example:

    ```mlir
    %o = sc.attention %q, %k, %v index %idx
        : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>,
          tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key,
                       AnyRankedTensor:$value,
                       Optional<Sc_IndexTensor>:$index,
                       OptionalAttr<AnyAttrOf<[Sc_LogLinearMaskAttr,
                                              Sc_BlockSparseMaskAttr]>>:$mask,
                       OptionalAttr<F32Attr>:$scale);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`index` $index^)? (`mask` `(` $mask^ `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    (`,` type($index)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The softmax scale: `scale` if set, else 1/sqrt(head dim).
    float getScaleOrDefault();
    /// Name of the discardable attribute holding the op's GPU kernel
    /// configuration (#sc.attention_config; sc-select-kernel-config).
    static constexpr ::llvm::StringLiteral getConfigAttrName() {
      return ::llvm::StringLiteral("sc.attention_config");
    }
  }];
}

def Sc_AssembleCsrOp : Sc_Op<"assemble_csr", [Pure]> {
  let summary = "sparse rows from their CSR buffers";
  let description = [{
    The rows x D matrix whose row r holds `values[j]` at the column that
    word `col_ids[j]` names (`#sc.block_csr`: block high, offset low) for j
    in [row_ptr[r], row_ptr[r + 1]); zero elsewhere. The buffers are not
    copied (like `sparse_tensor.assemble`); `scCsrPack` /
    `sparcast.csr_pack` write them from CSR or COO and check them (sorted,
    unique, inside D), docs/sparse-similarity.md.

    Example:

    ```mlir
    %q = sc.assemble_csr %ptr, %ids, %vals
        : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
       -> tensor<?x1200000xf32, #sc.block_csr<block_size = 1024>>
    ```
  }];
  let arguments = (ins TensorRankOf<[I32], [1]>:$row_ptr,
                       TensorRankOf<[I32], [1]>:$col_ids,
                       TensorRankOf<[F32, F16, BF16], [1]>:$values);
  let results = (outs RankedTensorOf<[F32, F16, BF16]>:$result);
  let assemblyFormat = [{
    $row_ptr `,` $col_ids `,` $values attr-dict `:` type($row_ptr) `,`
    type($col_ids) `,` type($values) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::sc::BlockCsrAttr getLayout() {
      return ::llvm::cast<::mlir::sc::BlockCsrAttr>(
          getResult().getType().getEncoding());
    }
  }];
}

def Sc_SparseMatmulOp : Sc_Op<"sparse_matmul", [RecursiveMemoryEffects,
                                                 AttrSizedOperandSegments,
                                                 IsolatedFromAbove]> {
  let summary = "every row of one sparse row set against every row of another";
  let description = [{
    `result[m, n] = epilogue(sum_d lhs[m, d] * rhs[n, d], m, n,
    epilogue_ins...)` in fp32, lhs and rhs two sets of sparse rows over the
    same D (`sc.assemble_csr` results): queries against items. The
    epilogue region gets the fp32 dot product, the two row indices and the
    epilogue operands, and yields the result element; the cosine divides
    by the rows' norms. Without a region the dot product is the result.

    With `transpose_rhs` the rhs is given by its columns: a D x N set of
    rows (row d lists the items that hold dimension d, the CSR of the
    items' transpose), so `rhs[n, d]` above reads `rhs[d, n]`; a kernel
    that scatters each query entry's products over the items of its
    dimension reads it so.

    `head(lhs_head, rhs_head)` adds a dense part: `result[m, n] =
    epilogue(sum_h lhs_head[m, h] * rhs_head[n, h] + sum_d lhs[m, d] *
    rhs[n, d], ...)`, lhs_head M x H and rhs_head N x H in f32. It is the
    split the inspector makes (docs/sparse-similarity.md): the dimensions
    that carry most pair products become dense columns (a GEMM on the GPU),
    `lhs` and `rhs` keep the rest.

    Example:

    ```mlir
    %cos = sc.sparse_matmul %q, %i epilogue_ins(%qn, %in : tensor<?xf32>, tensor<?xf32>)
        : tensor<?x1200000xf32, #csr>, tensor<?x1200000xf32, #csr> -> tensor<?x?xf32> {
    ^bb0(%dot: f32, %m: index, %n: index, %qn_: tensor<?xf32>, %in_: tensor<?xf32>):
      %a = tensor.extract %qn_[%m] : tensor<?xf32>
      %b = tensor.extract %in_[%n] : tensor<?xf32>
      %ab = arith.mulf %a, %b : f32
      %c = arith.divf %dot, %ab : f32
      sc.yield %c : f32
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       Optional<AnyRankedTensor>:$lhs_head,
                       Optional<AnyRankedTensor>:$rhs_head,
                       Variadic<AnyType>:$epilogue_ins,
                       UnitAttr:$transpose_rhs);
  let results = (outs AnyRankedTensor:$result);
  let regions = (region MaxSizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $lhs `,` $rhs
    (`head` `(` $lhs_head^ `,` $rhs_head `:` type($lhs_head) `,` type($rhs_head) `)`)?
    (`epilogue_ins` `(` $epilogue_ins^ `:` type($epilogue_ins) `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
    ($epilogue^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The items' count N: rhs dim 0, or dim 1 with `transpose_rhs`.
    int64_t getNumItems() {
      return getRhs().getType().getDimSize(getTransposeRhs() ? 1 : 0);
    }
    /// Whether the epilogue is linear in the dot product, epilogue(x + y)
    /// = epilogue(x) + epilogue(1) * y up to rounding (the cosine: the dot
    /// scaled by a row and column factor): the dot flows to the yield only
    /// through products and quotients by values without it, negation, sums
    /// and selects on conditions without it between such values or zero.
    /// True without a region.
    bool isEpilogueLinearInProduct();
  }];
}

def Sc_TopKOp : Sc_Op<"top_k", [Pure]> {
  let summary = "the k largest elements of each row and their columns";
  let description = [{
    Per row of `input`: its k largest values in descending order (ties to
    the lower column) and their columns; a row of fewer than k columns is
    padded with -inf and -1. NaN orders above every number (it is never
    silently dropped). As the consumer of `sc.sparse_matmul` it is the
    top-k similarity without the dense matrix.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$input, I64Attr:$k);
  let results = (outs RankedTensorOf<[F32]>:$values,
                      RankedTensorOf<[I32]>:$indices);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def Sc_SelectAboveOp : Sc_Op<"select_above", [Pure]> {
  let summary = "the elements of a matrix above a threshold, as COO";
  let description = [{
    The (row, column, value) of every element of `input` greater than
    `threshold`, in row-major order: the similarity pairs above a cutoff
    without the dense matrix (as the consumer of `sc.sparse_matmul`). NaN
    is never above the threshold.

    Example:

    ```mlir
    %r, %c, %v = sc.select_above %cos {threshold = 0.8 : f32}
        : tensor<?x?xf32> -> tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$input, F32Attr:$threshold);
  let results = (outs TensorRankOf<[I32], [1]>:$rows,
                      TensorRankOf<[I32], [1]>:$cols,
                      TensorRankOf<[F32], [1]>:$values);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($rows) `,` type($cols) `,`
    type($values)
  }];
  let hasVerifier = 1;
}

def Sc_SelectRowsAboveOp : Sc_Op<"select_rows_above", [Pure]> {
  let summary = "each row's elements above its own threshold, up to a capacity";
  let description = [{
    For each row r of `input`, the elements `> thresholds[r]` (NaN never):
    `counts[r]` is how many there are; when at most `capacity`, `values[r]`
    and `cols[r]` hold them (in an unspecified order; the CPU reference
    writes column order) and the slots past them hold -inf and -1; when
    more, `capacity` of them. A top-k is exact from these and k elements of
    the row at least its threshold found before (the threshold the k-th
    largest of those: ties with it are already among them), when no count
    passes the capacity: the consumer of `sc.sparse_matmul` that keeps the
    dense scores unwritten.

    Example:

    ```mlir
    %n, %v, %c = sc.select_rows_above %cos, %theta {capacity = 4096 : i64}
        : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xi32>, tensor<?x4096xf32>, tensor<?x4096xi32>
    ```
  }];
  let arguments = (ins TensorRankOf<[F32], [2]>:$input,
                       TensorRankOf<[F32], [1]>:$thresholds, I64Attr:$capacity);
  let results = (outs TensorRankOf<[I32], [1]>:$counts,
                      TensorRankOf<[F32], [2]>:$values,
                      TensorRankOf<[I32], [2]>:$cols);
  let assemblyFormat = [{
    $input `,` $thresholds attr-dict `:` type($input) `,` type($thresholds) `->`
    type($counts) `,` type($values) `,` type($cols)
  }];
  let hasVerifier = 1;
}

def Sc_YieldOp : Sc_Op<"yield", [Pure, Terminator, ReturnLike,
                                 ParentOneOf<["BatchMatmulOp", "SparseMatmulOp"]>]> {
  let summary = "yields the result element of an epilogue region";
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // SPARCAST_DIALECT_SC_IR_SCOPS_TD
