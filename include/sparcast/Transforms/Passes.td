//===- Passes.td - Sparcast tensor-level transforms ----------*- tablegen -*-===//
//
// Keep alphabetical.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_TRANSFORMS_PASSES_TD
#define SPARCAST_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScFuseEpiloguePass : Pass<"sc-fuse-epilogue"> {
  let summary = "Fold element-wise consumers of a batched matmul into its epilogue";
  let description = [{
    A `linalg.generic` that is element-wise over the result of an
    `sc.batch_matmul` (its only use) becomes part of the matmul's epilogue
    region: bias adds, activations, casts, and reads of other tensors at
    projected indices. An input produced by `sc.gather_rows` is read through
    the index instead (`src[idx[b], m, n]`), so the broadcast is never
    materialized: this is how the IKBO gather-add lands in the candidate
    GEMM's epilogue.

    Before:

    ```mlir
    %c = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
    %g = sc.gather_rows %user[%idx] : tensor<?x4x6xf32>, tensor<?xi32> -> tensor<?x4x6xf32>
    %o = linalg.generic {...} ins(%c, %g : ...) outs(%init : tensor<?x4x6xf16>) {
    ^bb0(%a: f32, %u: f32, %out: f16):
      %s = arith.addf %a, %u : f32
      %h = arith.truncf %s : f32 to f16
      linalg.yield %h : f16
    } -> tensor<?x4x6xf16>
    ```

    After:

    ```mlir
    %o = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x4x6xf32>, tensor<?xi32>)
        : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf16> {
    ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x4x6xf32>, %i: tensor<?xi32>):
      %r = tensor.extract %i[%b] : tensor<?xi32>
      %ri = arith.index_cast %r : i32 to index
      %x = tensor.extract %u[%ri, %m, %n] : tensor<?x4x6xf32>
      %s = arith.addf %acc, %x : f32
      %h = arith.truncf %s : f32 to f16
      sc.yield %h : f16
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every rewrite (what --report shows)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ScIkboDecomposeGemmPass : Pass<"sc-ikbo-decompose-gemm"> {
  let summary = "Split a matmul over broadcast request features into request and candidate GEMMs";
  let description = [{
    A batched matmul whose contraction operand concatenates request tensors
    broadcast to candidates (`sc.gather_rows` of request-batched values) and
    candidate tensors is rewritten as a request GEMM at B_user rows, a
    candidate GEMM at B rows, and a gather-add of the request result:

      W @ concat_K(gather(R, idx), C) = gather(W_R @ R, idx) + W_C @ C

    W is split along K to match. Both arrangements are handled: the
    concatenation on the rhs (`W @ E[b]`, LCE) or on the lhs (`E[b] @ W` or
    `E[b] @ W^T`), with any number of request and candidate segments in any
    order. The op's epilogue is kept, applied after the gather-add (an
    element-wise `linalg.generic` that `sc-fuse-epilogue` folds back into the
    candidate GEMM).

    Before:

    ```mlir
    %g = sc.gather_rows %user[%idx] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
    %e = tensor.concat dim(1) %g, %cand : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
    %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf16>
    ```

    After:

    ```mlir
    %wu = tensor.extract_slice %w[0, 0] [4, 5] [1, 1] : tensor<4x8xf16> to tensor<4x5xf16>
    %wc = tensor.extract_slice %w[0, 5] [4, 3] [1, 1] : tensor<4x8xf16> to tensor<4x3xf16>
    %u = sc.batch_matmul %wu, %user : tensor<4x5xf16>, tensor<?x5x6xf16> -> tensor<?x4x6xf32>
    %c = sc.batch_matmul %wc, %cand : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
    %gu = sc.gather_rows %u[%idx] : tensor<?x4x6xf32>, tensor<?xi32> -> tensor<?x4x6xf32>
    %o = linalg.generic ... ins(%c, %gu) ... { addf, truncf } -> tensor<?x4x6xf16>
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every rewrite (what --report shows)">,
    Option<"requestInResultType", "request-in-result-type", "bool",
           /*default=*/"false",
           "Keep the request GEMM's result in the op's result type (f16/bf16) "
           "instead of f32: half the bytes the gather-add reads, and the GPU "
           "kernels prefetch its tiles by TMA, at the cost of one more "
           "rounding of the request part">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ScIkboAttentionPass : Pass<"sc-ikbo-attention"> {
  let summary = "Read each user's K/V through the index instead of broadcasting them";
  let description = [{
    IKBO type II: attention whose keys and values are request tensors
    broadcast to candidates by `sc.gather_rows` with one index becomes the
    indexed `sc.attention`, which reads every candidate's K/V rows through
    the index; nothing the size of B_cand x S is materialized. Mask and
    scale are kept.

    Before:

    ```mlir
    %kb = sc.gather_rows %k[%idx] : tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x1024x128xf16>
    %vb = sc.gather_rows %v[%idx] : tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x1024x128xf16>
    %o = sc.attention %q, %kb, %vb : ...
    ```

    After:

    ```mlir
    %o = sc.attention %q, %k, %v index %idx : ...
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every rewrite (what --report shows)">,
  ];
}

def ScInferLineagePass : Pass<"sc-infer-lineage", "::mlir::ModuleOp"> {
  let summary = "Label every tensor value with its batch lineage";
  let description = [{
    Runs the lineage analysis from the `sc.lineage` of function arguments and
    writes the result on every op that produces a tensor of known lineage
    (`{sc.lineage = #sc.lineage<gathered>}`). Ops that mix request and
    candidate rows without going through the index are errors. With
    `remarks`, each labelled op also gets a remark (what `--report` shows).

    Before:

    ```mlir
    func.func @f(%u: tensor<?x8xf32> {sc.lineage = #sc.lineage<request>},
                 %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x8xf32> {
      %g = sc.gather_rows %u[%i] : tensor<?x8xf32>, tensor<?xi32> -> tensor<?x8xf32>
    ```

    After:

    ```mlir
      %g = sc.gather_rows %u[%i] {sc.lineage = #sc.lineage<gathered>} : ...
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark with the lineage of every labelled op">,
  ];
}

def ScMaterializeBlockMaskPass : Pass<"sc-materialize-block-mask"> {
  let summary = "Turn log-linear attention masks into explicit block tables";
  let description = [{
    A `#sc.log_linear` mask on an `sc.attention` with static sequence
    lengths becomes the `#sc.block_sparse` tables of the same pattern
    (per query block: the sorted kept key blocks), computed at compile time
    in block units: O(nb log nb) entries, never an N x N mask. With dynamic
    lengths the mask is left as it is (the kernel or the runtime evaluates
    the pattern). `report` prints the size of every table.

    Before:

    ```mlir
    %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64>) : tensor<1x1x256x64xf16>, ...
    ```

    After:

    ```mlir
    %o = sc.attention %q, %k, %v mask(#sc.block_sparse<block_size = 64, key_blocks = 4,
        offsets = [0, 4, 8, 12, 16], indices = [0, 1, 2, 3, ...]>) : ...
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the size of every materialized table">,
  ];
}

def ScRaiseLinalgPass : Pass<"sc-raise-linalg"> {
  let summary = "Raise linalg and tosa matmuls to sc.batch_matmul";
  let description = [{
    Imported graphs (ONNX MatMul / Gemm) multiply rows of features by a
    weight as `linalg.matmul`; the IKBO passes and the tensor-core kernels
    take `sc.batch_matmul`. A `linalg.matmul` of x [R, K] and w [K, N]
    accumulated from zero becomes a batched matmul over R one-row items
    (the GPU kernels read them as R flat rows), the rows expanded and
    collapsed around it; a weight that is a `linalg.transpose` of w^T [N, K]
    is read transposed instead (`transpose_rhs`). A `linalg.batch_matmul`
    from zero, and a `tosa.matmul` of floats with zero zero-points, become
    `sc.batch_matmul` as they are. The contraction runs in
    fp32 (linalg's accumulates in the result type). K and N must be static.

    Before:

    ```mlir
    %z = linalg.fill ins(%c0 : f16) outs(%e : tensor<?x256xf16>) -> tensor<?x256xf16>
    %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x256xf16>)
                       outs(%z : tensor<?x256xf16>) -> tensor<?x256xf16>
    ```

    After:

    ```mlir
    %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [%r, 1, 512]
        : tensor<?x512xf16> into tensor<?x1x512xf16>
    %y3 = sc.batch_matmul %x3, %w : tensor<?x1x512xf16>, tensor<512x256xf16> -> tensor<?x1x256xf16>
    %y = tensor.collapse_shape %y3 [[0, 1], [2]] : tensor<?x1x256xf16> into tensor<?x256xf16>
    ```
  }];
  let dependentDialects = ["mlir::sc::ScDialect", "mlir::tensor::TensorDialect"];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "A remark at each matmul: raised, or why not">,
  ];
}

def ScPackHybridWeightsPass : Pass<"sc-pack-hybrid-weights"> {
  let summary = "Pack constant GEMM weights into hybrid dense / 2:4 / zero tiles";
  let description = [{
    The AOT form of the runtime's inspector (docs/hybrid-tiles.md): the
    constant f16 / bf16 weight of an `sc.batch_matmul` that multiplies rows
    by it (a shared rhs) is planned and packed at compile time by the same
    code as `scHybridPack`: tiles that are 2:4 already become 2:4, all-zero
    tiles zero, the others dense; with `prune`, dense tiles are pruned to
    2:4 by magnitude except a `dense-budget` fraction of the tiles, those
    that lose the most. The GEMM then reads `sc.assemble_hybrid` of the
    packed constants (its kinds known), transposed to [n, k] first if the
    weight was [k, n]. A weight whose tiles would all stay dense is left as
    it is, and so is one the tile does not divide (a remark says why).
  }];
  let dependentDialects = ["mlir::sc::ScDialect"];
  let options = [
    Option<"tileRows", "tile-rows", "int64_t", /*default=*/"128",
           "Weight rows a tile (a multiple of 64)">,
    Option<"tileCols", "tile-cols", "int64_t", /*default=*/"128",
           "Weight columns (K) a tile (a multiple of 32; the GPU kernel takes "
           "multiples of 128)">,
    Option<"prune", "prune", "bool", /*default=*/"false",
           "Prune dense tiles to 2:4 by magnitude (changes the weight)">,
    Option<"denseBudget", "dense-budget", "double", /*default=*/"0.0",
           "With prune: the fraction of tiles kept dense">,
    Option<"report", "report", "bool", /*default=*/"false",
           "A remark at each weight: packed (tile counts, pruning error) or "
           "why not">,
  ];
}

def ScSplitConcatKPass : Pass<"sc-split-concat-k"> {
  let summary = "Split a GEMM whose rows concatenate features along K";
  let description = [{
    `cat_K(a, b) @ W == a @ W[0:Ka] + b @ W[Ka:]`: an `sc.batch_matmul`
    whose batched lhs is a `tensor.concat` along K (directly, or through an
    `expand_shape` that keeps K whole: a raised matmul's rows) becomes two
    GEMMs, the first (all but the last input) writing its sum in f32 and the
    second (the last input) adding it in its epilogue before the op's
    epilogue. The rows are then never copied into the concatenation: where
    K > 2 N, the f32 partial sum moves fewer bytes than the copy, and both
    parts keep 16-byte rows (K multiples of 8). The shared weight's two
    parts are slices of it (of its values when it is a constant).

    Before:

    ```mlir
    %x = tensor.concat dim(2) %a, %b : (tensor<?x1x2048xbf16>, tensor<?x1x8192xbf16>) -> tensor<?x1x10240xbf16>
    %h = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x10240xbf16>, tensor<1024x10240xbf16> -> tensor<?x1x1024xbf16>
    ```

    After:

    ```mlir
    %p = sc.batch_matmul %a, %w0 {transpose_rhs} : ... -> tensor<?x1x1024xf32>
    %h = sc.batch_matmul %b, %w1 epilogue_ins(%p : tensor<?x1x1024xf32>) {transpose_rhs} : ... -> tensor<?x1x1024xbf16> {
    ^bb0(%acc: f32, %i: index, %m: index, %n: index, %pt: tensor<?x1x1024xf32>):
      %v = tensor.extract %pt[%i, %m, %n] : tensor<?x1x1024xf32>
      %s = arith.addf %acc, %v : f32
      %t = arith.truncf %s : f32 to bf16
      sc.yield %t : bf16
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every split (what --report shows)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ScSumRowsFirstPass : Pass<"sc-sum-rows-first"> {
  let summary = "Sum a shared lhs's rows before the matmul whose result rows are summed";
  let description = [{
    A matmul whose rows are summed (`sum_rows`, sc-fuse-row-sum) with a
    shared lhs W [M, K] computes sum_m (W E[b])[m, n] = (sum_m W[m, :])
    E[b][:, n]: the rows of W are summed first (in f32, per call: W is an
    argument), so the product has one row instead of M (M times fewer
    flops; at M 433 the LCE's candidate GEMM then only streams its
    candidates once). The f32 row is split in two 16-bit rows, hi + lo, so
    the tensor cores lose none of it, and the product sums those two rows.
    An epilogue that adds a gathered operand X[g, m, n] (IKBO's
    gather-add) adds its own row sum once instead (row 0); where X is a
    matmul's result of that one use, that matmul sums its rows too (and
    this pass applies to it in turn), else a reduction sums them; a term
    that depends on neither the accumulator nor the row (a bias at [n]) is
    added M times, once. Exact in real arithmetic; the per-element
    rounding of the product's elements before the sum is gone (closer to
    the f32 sum). Other epilogues are left alone. In the kernel pipeline with `sum-rows-first`
    (`sparcast-aot --sum-rows-first`, which implies `--fuse-row-sum`).

    Before:

    ```mlir
    %r = sc.batch_matmul %w, %e {sum_rows} : tensor<433x872xbf16>, tensor<?x872x256xbf16> -> tensor<?x1x256xf32> {
    ^bb0(%acc: f32, %b: index, %m: index, %n: index):
      %h = arith.truncf %acc : f32 to bf16
      sc.yield %h : bf16
    }
    ```

    After:

    ```mlir
    %sum = linalg.generic ... ins(%w : tensor<433x872xbf16>) -> tensor<1x872xf32>
    %w2 = linalg.generic ... ins(%sum : tensor<1x872xf32>) -> tensor<2x872xbf16>  // hi, lo
    %r = sc.batch_matmul %w2, %e {sum_rows} : tensor<2x872xbf16>, tensor<?x872x256xbf16> -> tensor<?x1x256xf32> {
    ^bb0(%acc: f32, %b: index, %m: index, %n: index):
      sc.yield %acc : f32
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every rewrite (what --report shows)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ScFuseRowSumPass : Pass<"sc-fuse-row-sum"> {
  let summary = "Fold a sum over a batched matmul's rows into the matmul";
  let description = [{
    A `linalg.generic` that sums the result of an `sc.batch_matmul` (its
    only use) over its rows in f32, from zeros, becomes the matmul with
    `sum_rows`: the rows are summed where they are computed and the
    [B, M, N] result is never materialized (a mean pooling after an LCE
    reads it once, 227 MB at 1,024 candidates of M 433 x N 256 bf16). The
    epilogue keeps the rounding of the stored element (a region without one
    gets the conversion the op did). Only a shared lhs times a dense rhs
    (the kernels' tiles then hold rows of one batch element). In the kernel
    pipeline with `fuse-row-sum` (`sparcast-aot --fuse-row-sum`).

    Before:

    ```mlir
    %c = sc.batch_matmul %w, %e : tensor<4x8xbf16>, tensor<?x8x6xbf16> -> tensor<?x4x6xbf16>
    %s = linalg.generic {iterator_types = ["parallel", "reduction", "parallel"], ...}
        ins(%c : tensor<?x4x6xbf16>) outs(%zeros : tensor<?x6xf32>) {
    ^bb0(%v: bf16, %acc: f32):
      %x = arith.extf %v : bf16 to f32
      %a = arith.addf %acc, %x : f32
      linalg.yield %a : f32
    } -> tensor<?x6xf32>
    ```

    After:

    ```mlir
    %r = sc.batch_matmul %w, %e {sum_rows} : tensor<4x8xbf16>, tensor<?x8x6xbf16> -> tensor<?x1x6xf32> {
    ^bb0(%acc: f32, %b: index, %m: index, %n: index):
      %h = arith.truncf %acc : f32 to bf16
      sc.yield %h : bf16
    }
    %s = tensor.collapse_shape %r [[0, 1], [2]] : tensor<?x1x6xf32> into tensor<?x6xf32>
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every rewrite (what --report shows)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ScPadNPass : Pass<"sc-pad-n"> {
  let summary = "Zero-pad the output columns of 16-bit matmuls to 16 bytes";
  let description = [{
    TMA reads and writes rows of 16 bytes: a 16-bit product whose N is not a
    multiple of 8 would leave the tensor cores for the portable kernel. Its
    rhs is padded with zero columns (N up to the next multiple of 8), the
    product computed over them and the result sliced back to N, which
    leaves the first N columns unchanged. An epilogue region reads its
    operands at a column clamped to N - 1, so the padding never reads past
    them. Runs after sc-fuse-epilogue (the slice would stop the fusion).

    Before:

    ```mlir
    %o = sc.batch_matmul %w, %e : tensor<4x16xf16>, tensor<?x16x250xf16> -> tensor<?x4x250xf16>
    ```

    After:

    ```mlir
    %ep = tensor.pad %e low[0, 0, 0] high[0, 0, 6] { ... 0.0 ... } : tensor<?x16x250xf16> to tensor<?x16x256xf16>
    %p = sc.batch_matmul %w, %ep : tensor<4x16xf16>, tensor<?x16x256xf16> -> tensor<?x4x256xf16>
    %o = tensor.extract_slice %p[0, 0, 0] [%b, 4, 250] [1, 1, 1] : tensor<?x4x256xf16> to tensor<?x4x250xf16>
    ```

    With `odd-only` only odd N is padded: the sm_90a and multistage GEMM
    kernels read a rhs and store a result whose rows are no multiple of
    16 bytes in 4- or 8-byte pieces (`sck.load {by_threads}`,
    `sck.epilogue {direct_stores}`), which even N allows, without the
    copies the padding costs.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every rewrite (what --report shows)">,
    Option<"oddOnly", "odd-only", "bool", /*default=*/"false",
           "Pad only odd N (the GEMM kernels take rows of even N as they are)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ScPadKPass : Pass<"sc-pad-k"> {
  let summary = "Zero-pad the contraction dim of batched matmuls to 16 bytes";
  let description = [{
    TMA and wgmma want rows of 16 bytes: K is padded with zeros to a
    multiple of 8 for f16/bf16 (4 for f32) on both operands, which leaves
    the product unchanged. No change when K is already aligned or dynamic.

    Before:

    ```mlir
    %o = sc.batch_matmul %w, %e : tensor<4x13xf16>, tensor<?x13x6xf16> -> tensor<?x4x6xf32>
    ```

    After:

    ```mlir
    %wp = tensor.pad %w low[0, 0] high[0, 3] { ... 0.0 ... } : tensor<4x13xf16> to tensor<4x16xf16>
    %ep = tensor.pad %e low[0, 0, 0] high[0, 3, 0] { ... } : tensor<?x13x6xf16> to tensor<?x16x6xf16>
    %o = sc.batch_matmul %wp, %ep : tensor<4x16xf16>, tensor<?x16x6xf16> -> tensor<?x4x6xf32>
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every rewrite (what --report shows)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ScSelectKernelConfigPass : Pass<"sc-select-kernel-config"> {
  let summary = "Choose the GPU kernel configuration of every sc op";
  let description = [{
    Records on each op what its GPU kernel is, so that the choice is in the
    IR (a model may pin it per op) and the passes and kernel builders after
    it only read it (`sparcast/Transforms/KernelConfig.h`):

    * `sc.batch_matmul`: `sc.gemm_schedule = #sc.gemm_schedule<...>`. With
      `schedule=auto` an op that has one keeps it and the others get their
      default (cooperative for a shared rhs or K >= 4096 without epilogue
      operands, else ping-pong); any other value is set on every op the
      schedule can take.
    * `sc.attention`: `sc.attention_config = #sc.attention_config<...>`:
      the walk (two candidates of one request a CTA from `pairs-min-keys`
      keys; chained heads for an indexed attention of one consumer a
      candidate over static lengths, unless `chain-heads=false`), the
      consumers, the key block, the request-order walk
      (`group-candidates`) and P in f16 (`p-in-f16`, bf16 only). An op
      that has one keeps it.

    ```mlir
    %c = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : ...
    %o = sc.attention %q, %k, %v index %idx {sc.attention_config =
        #sc.attention_config<walk = chained, consumers = 1, key_block = 64,
                             group_candidates = false, p_in_f16 = false>} : ...
    ```
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"auto\"",
           "GEMMs: auto (keep or choose per op), cooperative, pingpong or "
           "transposed (sm_90a)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "The GPU: sm_90a (wgmma schedules), or sm_80 / sm_86 / sm_89 "
           "(the multistage mma.sync schedule where it fits)">,
    Option<"chainHeads", "chain-heads", "bool", /*default=*/"true",
           "Attention: chain the heads of target attention of one consumer "
           "a candidate">,
    Option<"groupCandidates", "group-candidates", "bool", /*default=*/"false",
           "Attention: chained and pairs walks take the candidates in "
           "request order (a grouping kernel first)">,
    Option<"pInF16", "p-in-f16", "bool", /*default=*/"false",
           "Attention: bf16 attention rounds P to f16 (V converted once)">,
    Option<"pairsMinKeys", "pairs-min-keys", "int64_t", /*default=*/"1025",
           "Attention: keys from which two candidates of one request share "
           "a CTA (1 to 2^31)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with each op's configuration and why">,
  ];
}

def ScTuneGemmSchedulesPass : Pass<"sc-tune-gemm-schedules"> {
  let summary = "Version each Hopper GEMM over the schedules it can take, "
                "for the runtime to measure";
  let description = [{
    `sparcast-aot --autotune`: every `sc.batch_matmul` of 16-bit operands
    whose schedule nothing pinned and no dispatch already chose (it is not
    inside an `scf.if`) becomes an `scf.index_switch` on a constant 0
    whose default region holds the op with the schedule the heuristics
    give it (defaultGemmSchedule) and whose cases 1, 2, ... hold it with
    each other schedule it can take (ping-pong, cooperative, and the
    transposed tile where `getTransposedTileLimitation` is empty), each
    pinned by `sc.gemm_schedule`. The program computes what it did (the
    default region runs); sparcast-aot makes the regions the alternatives
    of one `tune` group, the default's launches the ones that run until
    the runtime has measured the call's shape bucket (scSetTuning). It runs
    after the pipeline's canonicalization (which would fold a switch on a
    constant to its default).

    Before:

    ```mlir
    %c = sc.batch_matmul %a, %b : ...
    ```

    After:

    ```mlir
    %c0 = arith.constant 0 : index
    %c = scf.index_switch %c0 -> tensor<...>
    case 1 {
      %x = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : ...
      scf.yield %x : tensor<...>
    }
    default {
      %x = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : ...
      scf.yield %x : tensor<...>
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each GEMM versioned, naming its candidates">,
  ];
}

def ScDispatchGemmSchedulePass : Pass<"sc-dispatch-gemm-schedule"> {
  let summary = "Choose a gather-add GEMM's schedule at run time from its "
                "candidates per user";
  let description = [{
    IKBO's candidate GEMM (`out[b] = W @ E[b] + R[g(b)]`, W shared, R the
    request GEMM's result read through the index) is fastest with the
    transposed schedule when many candidates share a user (R's tiles stay
    in L2) and the batch is large, and with its default (ping-pong)
    otherwise (docs/decisions.md). B (candidates) and U (users, R's batch)
    are dynamic,
    so the choice is made at run time: the op becomes an `scf.if` over
    `B >= min-candidates-per-user * U and B >= min-batch` with the op
    pinned to `transposed` in one branch and to its default in the other. sparcast-aot turns the
    condition into the launches' `when` in the manifest, the runtime
    launches one kernel or the other. Ops with a schedule already (pinned
    or chosen), ops the transposed schedule cannot take and ops whose
    epilogue reads no f32 operand through an index are left alone (an f16
    one the transposed kernel does not prefetch: slower at every B and U).

    ```mlir
    %b = tensor.dim %e, %c0 : tensor<?x872x256xf16>
    %u = tensor.dim %r, %c0 : tensor<?x433x256xf32>
    %min = arith.muli %u, %c64 : index
    %shared = arith.cmpi sge, %b, %min : index
    %large = arith.cmpi sge, %b, %c2048 : index
    %many = arith.andi %shared, %large : i1
    %out = scf.if %many -> (tensor<?x433x256xf16>) {
      %t = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : ...) {sc.gemm_schedule = #sc.gemm_schedule<transposed>} ...
      scf.yield %t : tensor<?x433x256xf16>
    } else {
      %p = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : ...) {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} ...
      scf.yield %p : tensor<?x433x256xf16>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"minCandidatesPerUser", "min-candidates-per-user", "int64_t",
           /*default=*/"64",
           "Candidates per user (B / U) from which the transposed kernel runs">,
    Option<"minBatch", "min-batch", "int64_t", /*default=*/"2048",
           "Candidates (B) from which the transposed kernel runs (0: any)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each GEMM: dispatched, or why not">,
  ];
}

def ScLowerToSckPass : Pass<"sc-lower-to-sck", "::mlir::ModuleOp"> {
  let summary = "Each sc.batch_matmul's GPU kernel as a single-role sck tile loop";
  let description = [{
    For every `sc.batch_matmul` with static M, N and K and 16-bit operands,
    adds a function `@<caller>_gemm<i>_kernel(%batch: index)` holding the
    kernel's tile loop at the kernel level (`sck`): tiles of tileM x tileN
    (tileM = 128 for the cooperative schedule, 64 for ping-pong; tileN up
    to 256, narrower for small N; 128 x 128 for sm_80's multistage
    schedule), from the op's `sc.gemm_schedule` or its default, over batch
    x M tiles x N tiles (one CTA per tile, plain order: `sc-persistent`
    changes that); per tile a loop over k-tiles (64 wide, 32 for the
    multistage schedule) loading the A box (`[k, m(, b)]`) and the B box (`[n, k(, b)]`,
    or `[k, n(, b)]` transposed) and multiplying them into the accumulator,
    then the op's epilogue at the tile (`sck.epilogue "C"` with a copy of
    the op's epilogue region; its tensors are the function's arguments).
    A batched lhs times a shared rhs is tiled over the rows of all batch
    elements (flat rows: A read and C written at `[k, r]` / `[n, r]`).
    `sc-warp-specialize` then splits the loops into roles, and sck-to-nvgpu
    writes the warp-specialized GEMM kernels from the result op by op. The
    attention kernels' generators take from this IR the ring, the roles'
    registers and the tile loop's schedule (and refuse a tiling other than
    theirs).

    With `attention`, every `sc.attention` with static heads and head dim
    (and no mask, or a block mask of 64 or 128 tokens) gets
    `@<caller>_attention<i>_kernel(%batch: index
    (, %index: tensor<?xi32>(, %pairs: tensor<?xi32> {sck.candidate_pairs}))
    (, %queryLen: index)(, %keyLen: index)
    (, %tables: tensor<?xi32> {sck.mask_tables = <mask>}))` too (the
    lengths when dynamic; the tables when a mask's lengths are, as the
    runtime builds them at launch; the pairs table where the generator
    pairs candidates of one request, as its pairing kernel makes it:
    partner + 1, 0 alone, -1 some other's partner): a tile loop over
    batch x query tiles x heads, a tile 64 rows, or two 64-row halves
    where the generator runs two consumers: the halves of a 128-row query
    block (more than 64 query rows, or a dynamic length), or candidate b
    and its partner (tile b runs only when b leads, in an `scf.if`; a
    candidate alone repeats its half and stores it once): the halves share
    every K/V box, each has its own S, softmax and O; per
    tile the Q boxes (`[d, q, h, b]`), then per key
    block (the mask's kept blocks, from BSR tables: constants of the
    kernel over static lengths, else the argument; of the mask's size;
    without a mask all blocks, of 128 keys
    with two consumers, as the generator: an indexed op or more than 64
    query rows; else 64) the K boxes (transposed, at the
    request `index[b]` when indexed) into S, one online-softmax step
    (`sck.softmax`), O brought to its maxima (`sck.rescale`) and the V
    box into O; `sck.normalize` and the epilogue
    `"O"` at `[0, q, h, b]`; the function records the generator's consumer
    warpgroups (`sck.consumers`). Off by default (`sparcast-aot
    --warp-specialize` turns it on: the attention generator reads the
    ring and the register split back).
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each GEMM that has no kernel-level form">,
    Option<"attention", "attention", "bool", /*default=*/"false",
           "Also lower sc.attention to sck">,
    Option<"multistageTileCols", "multistage-tile-cols", "int64_t",
           /*default=*/"0",
           "Columns of the multistage (sm_80) GEMM's tiles: 128 (4 warps) "
           "or 256 (8 warps); 0: 256 past 128 columns, else 128">,
  ];
  let dependentDialects = ["::mlir::sck::SckDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ScPersistentPass : Pass<"sc-persistent"> {
  let summary = "Make kernels' tile loops persistent, walking tiles in grouped order";
  let description = [{
    On the kernel-level IR (`sck`): every `sck.tile_loop` with
    `schedule = #sck.tile_schedule<grid>` (one CTA per tile) becomes persistent: the launch
    has as many CTAs as the device has SMs (the runtime reads the count
    when it launches), each walking every CTAs-th tile, so a CTA's next
    tile starts without draining its pipeline and no wave is left
    half-empty. `group` orders the tiles for L2 reuse: M tiles in groups of
    that many rows, M fastest inside a group (see `sck.tile_loop`); 1 is
    plain order. Loops already persistent are left as they are.
  }];
  let options = [
    Option<"group", "group", "int64_t", /*default=*/"8",
           "M tiles per group in the tile order (1 to 65536)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with each loop's schedule">,
  ];
}

def ScSplitKPass : Pass<"sc-split-k"> {
  let summary = "Cut a GEMM's K range across CTAs where its tiles are too few";
  let description = [{
    On the kernel-level IR (`sck`), before sc-warp-specialize and
    sc-persistent: each tile runs as S tiles, each over a contiguous share
    of the k-tiles, and `sck.reduce_splits` adds their partial sums in the
    one that finishes last, whose epilogue then runs (under an `scf.if` of
    its `last`).

    * A hybrid-tiled GEMM with one consumer (decode: 64 weight rows a tile)
      runs one CTA per 64 weight rows, too few to keep the weight's bytes
      in flight where the weight has fewer than 128 x 64 rows
      (docs/decisions.md). `splits` = 0 chooses: 1 (unchanged) where the
      tiles alone keep at least half of 132 SMs busy, else the largest
      power of two that keeps every CTA resident at two an SM with at least
      8 k-tiles a part.
    * With `dense`, a cooperative or ping-pong warp-specialized GEMM: the
      kernel computes S from its tile count at run time (the count often
      depends on a dynamic batch), the largest of 8, 4 and 2 that divides
      the k-tiles into parts of 8 or more and keeps tiles x S within the
      132 SMs, else 1. A kernel whose tiles keep half the SMs busy for
      any batch is left alone, and so is one whose epilogue reads an
      operand's tile at [g(b), m, n] (IKBO's gather-add, a residual:
      sc-prefetch-epilogue-operands loads it under the tile's MMAs).

    Other kernels are left alone.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
  let options = [
    Option<"splits", "splits", "int64_t", /*default=*/"0",
           "Parts of each hybrid-tiled tile's K range (0: auto; else 2 to 16)">,
    Option<"hybrid", "hybrid", "bool", /*default=*/"true",
           "Split the hybrid-tiled decode GEMMs">,
    Option<"dense", "dense", "bool", /*default=*/"false",
           "Also split the dense warp-specialized GEMMs, their part count "
           "chosen in the kernel from its tile count">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with each kernel's split">,
  ];
}

def ScMulticastPass : Pass<"sc-multicast"> {
  let summary = "Pair the CTAs of persistent tile loops to share B by TMA multicast";
  let description = [{
    On the kernel-level IR (`sck`): every persistent `sck.tile_loop` gets
    `cluster = 2`: CTAs in pairs (a cluster) take pairs of M tiles of the
    same batch element and N tile, and each loads half of the B box they
    share and multicasts it to both, halving the B traffic from L2 (the
    LCE's candidate GEMM re-reads each B k-tile once per M tile).
    Grid loops are an error (the CTAs of a pair wait on each other: run
    sc-persistent first). With `shared-rhs-only`, the default of sparcast-aot, only
    the loops of a cooperative or ping-pong GEMM whose A is batched and B
    is not (x @ w: every tile reads all of w, x streams from DRAM) are
    paired, and grid loops are skipped: elsewhere pairs are correct but not
    faster (docs/decisions.md). With `hybrid-pairs`, a hybrid-tiled GEMM's
    prefill tiles (two consumers on a 128-row band of W, an even number of
    N tiles) run in pairs of consecutive N tiles, a cluster of two CTAs
    that the launch co-schedules (its grid loop stays a grid), sharing the
    tokens' box. (Not in any pipeline: the lowered kernel is correct on the
    CPU but hangs on the H100, cause not found yet: docs/decisions.md.)
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each loop paired">,
    Option<"sharedRhsOnly", "shared-rhs-only", "bool", /*default=*/"false",
           "Pair only cooperative and ping-pong GEMMs with a batched A and a shared B">,
    Option<"hybridPairs", "hybrid-pairs", "bool", /*default=*/"false",
           "Pair a hybrid-tiled GEMM's prefill tiles (two consumers, N tiles "
           "even) on pairs of N tiles sharing the tokens' box">,
  ];
}

def ScScheduleWgmmaPass : Pass<"sc-schedule-wgmma", "::mlir::ModuleOp"> {
  let summary = "Make a warp-specialized Hopper GEMM's schedule explicit in its kernel-level IR (dense and hybrid-tiled)";
  let description = [{
    On the kernel-level IR (`sck`) of a warp-specialized Hopper GEMM
    (`sck.schedule` ping-pong, cooperative or transposed, after
    sc-warp-specialize), what the kernel's threads must order becomes ops,
    so that each op lowers on its own (sc-convert-sck-to-nvgpu):

    - every put, get and release names its ring position: k-tile k of the
      tile at index t of the CTA's walk (`sck.tile_index`) is position
      t x (k-tiles a tile) + k;
    - the consumer's k loop has its first k-tile peeled (its MMA starts
      from the zero accumulator: no zeros are materialized), and the slot
      of each k-tile is released one k-tile later, once the next k-tile's
      MMAs are issued (the wgmma of a k-tile stays in flight until then);
      after the last k-tile, `sck.mma_wait 0` and its release;
    - ping-pong consumers take turns (`sck.await_turn` at the tile's start,
      `sck.pass_turn` once its last MMAs are issued);
    - in CTA pairs on pairs of M tiles, a tile past the result's M tiles
      (the second of a pair, M tiles odd) is not computed: its consumer
      frees each slot unread (`sck.discard`) and passes its turn;
    - a hybrid-tiled GEMM (`sck.schedule` hybrid) keeps its ring counters
      and frees each k-tile's slots once its MMAs are done
      (`sck.mma_wait 0`): the tokens' slot and, by the k-tile's kind, its
      dense or 2:4 weight slot (freed a k-tile late instead, the
      two-consumer kernel was wrong and slower at prefill on the H100).

    The rewrite keeps the kernel's meaning: the ops it adds order threads
    and do nothing on one (`sc-test-execute-kernel-ir`).

    Consumer before:

    ```mlir
    %acc = scf.for %k = %c0 to %c2 step %c1 iter_args(%a = %zero) -> (!sck.acc<64x256xf32>) {
      %g:2 = sck.get %ring : ...
      %r = sck.mma %g#0, %g#1, %a : ...
      sck.release %ring : ...
      scf.yield %r : !sck.acc<64x256xf32>
    }
    ```

    After (ping-pong):

    ```mlir
    %t = sck.tile_index
    sck.await_turn
    %p0 = arith.muli %t, %c2 : index
    %g0:2 = sck.get %ring[%p0] : ...
    %r0 = sck.mma %g0#0, %g0#1, %zero : ...
    %acc = scf.for %k = %c1 to %c2 step %c1 iter_args(%a = %r0) -> (!sck.acc<64x256xf32>) {
      %p = arith.addi %p0, %k : index
      %g:2 = sck.get %ring[%p] : ...
      %r = sck.mma %g#0, %g#1, %a : ...
      %before = arith.subi %p, %c1 : index
      sck.release %ring[%before] : ...
      scf.yield %r : !sck.acc<64x256xf32>
    }
    sck.pass_turn
    sck.mma_wait 0
    sck.release %ring[%last] : ...
    ```
  }];
}

def ScScheduleAttentionPass : Pass<"sc-schedule-attention", "::mlir::ModuleOp"> {
  let summary = "Make a warp-specialized attention kernel's schedule explicit in its kernel-level IR";
  let description = [{
    On the kernel-level IR (`sck`) of a warp-specialized attention (the
    grid walk, one tile a CTA, or the chained walk; after
    sc-warp-specialize), what
    the kernel's threads must order becomes ops, so that each op lowers on
    its own:

    - each consumer runs the tile as its own (`sck.consumer_index`): its
      query rows' Q, scores, softmax and O (two consumers: two candidates
      of one request, or the halves of a 128-row query block, sharing
      every key block);
    - Q goes in a slot per consumer, K and V in rings of their own (a
      block's K is done with long before its V), and every put, get and
      release names its ring position: consumer c's Q of the tile at index
      t (`sck.tile_index`) is position 2 t + c (t with one consumer), key
      block i of the tile's walk position t x ceil(keys / block) + i;
    - the key blocks are software-pipelined (FlashAttention-3): block 0's
      Q K^T and softmax before the loop; then each block's Q K^T issued
      with the block before's P V, `sck.mma_wait 1` (the Q K^T done) and
      its K freed, its softmax under that P V, `sck.mma_wait 0`, the V
      before freed and O brought to the new maxima (`sck.rescale`); the
      last P V after the loop;
    - two consumers take turns for their MMAs (`sck.await_turn`,
      `sck.pass_turn`: consumer 0 first, no wait for a turn nobody gives)
      when both have rows of their own; a consumer without (a candidate
      left without partner, rows past the query length) frees its Q and
      every key block unread (`sck.discard`).

    - the chained walk (one consumer; resident CTAs each running several
      tiles) becomes an explicit loop over the CTA's tiles
      (`sck.walk_size`, `sck.walk_tile`) in both roles, and the consumer's
      pipeline runs across tiles: the first tile's blocks before a loop
      over the others, each issuing its block 0's Q K^T with the tile
      before's last P V, then storing that tile's O at the coordinates the
      loop carries; the last tile's last P V after it.

    The rewrite keeps the kernel's meaning: the ops it adds order threads
    and do nothing on one (`sc-test-execute-kernel-ir` runs the consumer
    role once per consumer, and a chained walk's tiles in order).

    Consumer loop before (one consumer):

    ```mlir
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%o = %zero, %st = %init) -> (...) {
      %kv:3 = sck.get %kvring : ...
      %s = sck.mma %q#1, %kv#1, (sck.mma %q#0, %kv#0, %z) : ...
      %p, %st2 = sck.softmax %s, %st at %k0 of %keys {scale = ...} : ...
      %o2 = sck.rescale %o, %st to %st2 : ...
      %o3 = sck.mma %p, %kv#2, %o2 : ...
      sck.release %kvring : ...
      scf.yield %o3, %st2 : ...
    }
    ```

    After (inside the loop over blocks 1 ..):

    ```mlir
    %k:2 = sck.get %kring[%at] : ...
    %v = sck.get %vring[%before] : ...
    %s = ... Q K^T of %k ...
    %pv = sck.mma %p, %v, %o : ...
    sck.mma_wait 1
    sck.release %kring[%at] : ...
    %p2, %st2 = sck.softmax %s, %st at %k0 of %keys {scale = ...} : ...
    sck.mma_wait 0
    sck.release %vring[%before] : ...
    %o2 = sck.rescale %pv, %st to %st2 : ...
    scf.yield %o2, %st2, %p2 : ...
    ```
  }];
}

def ScPipelineMultistagePass : Pass<"sc-pipeline-multistage", "::mlir::ModuleOp"> {
  let summary = "Software-pipeline a multistage kernel's k-tile loads through a ring";
  let description = [{
    On the kernel-level IR (`sck`) of the multistage schedule (sm_80 /
    sm_86 / sm_89, `sck.schedule = #sck.kernel_schedule<multistage>`), where
    every thread both loads and computes: the boxes of each k-tile go
    through a ring of `stages` shared-memory slots, put `stages` - 1
    k-tiles ahead of the MMA that reads them. Before the k loop the tile
    puts k-tiles 0 .. `stages` - 2; iteration t gets k-tile t (position t),
    puts k-tile t + `stages` - 1 (its loads past K read zeros and are never
    got) and multiplies the boxes it got. Every put and get names its ring
    position, so the slot each uses (position mod `stages`) is in the IR,
    and the CPU execution of the kernel IR, which keeps only `stages`
    slots, checks that no put overwrites a slot before it is read.

    Before:

    ```mlir
    sck.tile_loop %b, %mt, %nt attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%i: index, %m: index, %n: index):
      %acc = scf.for %k = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (!sck.acc<128x128xf32>) {
        %ba = sck.load "A"[%k0, %m0, %i] : !sck.box<128x32xf16>
        %bb = sck.load "B"[%n0, %k0, %i] : !sck.box<32x128xf16>
        %r = sck.mma %ba, %bb, %a : ...
        scf.yield %r : !sck.acc<128x128xf32>
      }
      sck.epilogue "C"[%n0, %m0, %i], %acc : !sck.acc<128x128xf32>
    }
    ```

    After:

    ```mlir
    %ring = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
    sck.tile_loop ... {
      ... sck.put %ring[%c0], %ba0, %bb0 ...   // k-tiles 0 and 1
      ... sck.put %ring[%c1], %ba1, %bb1 ...
      %acc = scf.for %k = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (!sck.acc<128x128xf32>) {
        %got:2 = sck.get %ring[%k] : ... -> !sck.box<128x32xf16>, !sck.box<32x128xf16>
        %next = arith.addi %k, %c2 : index
        ... sck.put %ring[%next], %ba, %bb ...
        %r = sck.mma %got#0, %got#1, %a : ...
        scf.yield %r : !sck.acc<128x128xf32>
      }
      sck.epilogue "C"[%n0, %m0, %i], %acc : !sck.acc<128x128xf32>
    }
    ```

    An attention's kernel (these chips' has no roles) the same way: each
    tile's Q through a ring of its own (put and got before the key blocks,
    read into registers once by `sck.load_frag`), each key block's K and V
    through a ring of `attention-stages` slots, block i at position i
    (from the loop's first block), `attention-stages` - 1 ahead of its
    MMAs; puts past the last block load the last block again (never got),
    so every iteration puts once.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"3",
           "Ring slots (2 to 8): k-tiles in flight, stages - 1 ahead of the MMA">,
    Option<"attentionStages", "attention-stages", "int64_t", /*default=*/"3",
           "An attention's K/V ring slots (2 to 8)">,
  ];
  let dependentDialects = ["::mlir::sck::SckDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def ScWarpSpecializePass : Pass<"sc-warp-specialize"> {
  let summary = "Split a kernel's tile loop into a producer role and consumer roles";
  let description = [{
    On the kernel-level IR (`sck`): every `sck.tile_loop` outside a role
    becomes two copies of itself, each in an `sck.role` (the tile loops of
    one block go in sequence into one pair of roles sharing one ring). The
    producer's copy
    keeps only the `sck.load` ops (and what computes their coordinates) and
    puts each k-tile's boxes into a ring of `stages` slots (`sck.ring`,
    `sck.put` after the last load). The consumers' copy takes the boxes from
    the ring where the first load was (`sck.get`), frees the slot after the
    last use of any of them (`sck.release`), and keeps the MMAs and the
    epilogue. The register budgets must fit the launch budget of
    128 x (1 + consumers) threads: producer + consumers x consumer-regs
    <= 504 for two consumers (168 each at launch), <= 256 for a
    one-consumer attention kernel (two CTAs an SM, 128 each at launch).

    A GEMM loads in one block (its k-tile). An attention kernel (a loop
    with `sck.softmax`) loads in two: one ring each, Q put once per tile
    (its slot freed after the key-block loop) and each key block's K and V
    (freed at the end of the block); the softmax steps stay with the
    consumers, whose count is the one the function records
    (`sck.consumers`: the attention generator's); two attention consumers
    get order `turns` (a pair of query tiles reading the same keys, each
    K/V box shared, MMA phases alternating): a GEMM order asked for
    explicitly is an error there.

    Before:

    ```mlir
    sck.tile_loop %batches, %mTiles, %nTiles attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      %acc = scf.for %k ... iter_args(%a = %zero) {
        %ba = sck.load "A"[%k, %m] : !sck.box<64x64xf16>
        %bb = sck.load "B"[%n, %k] : !sck.box<64x256xf16>
        %r = sck.mma %ba, %bb, %a : ...
        scf.yield %r
      }
      sck.epilogue "C"[%n, %m], %acc : !sck.acc<64x256xf32>
    }
    ```

    After:

    ```mlir
    %r = sck.ring {stages = 4} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
    sck.role producer attributes {regs = 40} {
      sck.tile_loop ... { scf.for %k ... { %ba = sck.load ...; %bb = sck.load ...; sck.put %r, %ba, %bb } }
    }
    sck.role consumer attributes {count = 2, order = #sck.consumer_order<pingpong>, regs = 232} {
      sck.tile_loop ... { scf.for %k ... { %ba, %bb = sck.get %r; %n = sck.mma ...; sck.release %r } ; sck.epilogue ... }
    }
    ```

    The GPU kernels follow what this pass decided: written from this IR
    by sck-to-nvgpu (`sparcast-aot --kernels-from-ir`) where it takes the
    kernel, else by the generators in lib/Conversion/ScToGPU, which read the
    ring and the registers back (docs/architecture.md).
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Ring slots (0: as many as fit, decided when the kernel is generated)">,
    Option<"producerRegs", "producer-regs", "int64_t", /*default=*/"0",
           "The producer's register budget (setmaxnreg; 0: 40, or 24 for a "
           "one-consumer attention kernel at two CTAs an SM)">,
    Option<"consumerRegs", "consumer-regs", "int64_t", /*default=*/"232",
           "Each consumer warpgroup's register budget (setmaxnreg)">,
    Option<"consumers", "consumers", "int64_t", /*default=*/"2",
           "Consumer warpgroups">,
    Option<"order", "order", "std::string", /*default=*/"\"auto\"",
           "Consumers on one tile (cooperative) or on their own tiles in turns "
           "(pingpong); auto: the kernel function's sck.schedule (a 'simple' "
           "kernel is left single-role), else pingpong">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each tile loop: roles, registers, ring">,
  ];
  let dependentDialects = ["::mlir::sck::SckDialect", "::mlir::scf::SCFDialect"];
}

def ScPrefetchEpilogueOperandsPass : Pass<"sc-prefetch-epilogue-operands"> {
  let summary = "Load the tile an epilogue gathers from an operand ahead of the epilogue";
  let description = [{
    On the kernel-level IR (`sck`): an `sck.epilogue` whose region reads an
    operand only at [g(b), m, n], with g depending on neither the
    accumulator nor the row or the column (the IKBO gather-add reading the
    request GEMM's result at the candidate's user), reads exactly one tile
    of it per output tile. That tile becomes a box, `sck.prefetch`ed at the
    start of the tile (the epilogue's tile coordinates, g computed there),
    and the epilogue takes the box instead of the tensor: its region sees
    the element at the result element's place. The GPU kernel then loads
    the tile by TMA while the tile's MMAs run instead of reading it from
    global memory in the epilogue. Operands the region no longer reads
    (the index g came from) leave the epilogue.

    Before (in a consumer's tile loop):

    ```mlir
    sck.epilogue "C"[%n0, %m0, %b], %acc ins(%x, %idx : tensor<?x433x256xf32>, tensor<?xi32>) : !sck.acc<64x256xf32> {
    ^bb0(%a: f32, %bb: index, %m: index, %n: index, %xs: tensor<?x433x256xf32>, %is: tensor<?xi32>):
      %u = tensor.extract %is[%bb] : tensor<?xi32>
      %g = arith.index_cast %u : i32 to index
      %v = tensor.extract %xs[%g, %m, %n] : tensor<?x433x256xf32>
      ...
    ```

    After:

    ```mlir
    %u = tensor.extract %idx[%b] : tensor<?xi32>
    %g = arith.index_cast %u : i32 to index
    %box = sck.prefetch %x[%n0, %m0, %g] : tensor<?x433x256xf32> -> !sck.box<64x256xf32>
    ...
    sck.epilogue "C"[%n0, %m0, %b], %acc ins(%box : !sck.box<64x256xf32>) : !sck.acc<64x256xf32> {
    ^bb0(%a: f32, %bb: index, %m: index, %n: index, %v: f32):
      ...
    ```

    Attention kernels and epilogues not directly in a tile loop are left
    alone.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each epilogue operand: prefetched, or why not">,
  ];
  let dependentDialects = ["::mlir::sck::SckDialect", "::mlir::tensor::TensorDialect"];
}

#endif // SPARCAST_TRANSFORMS_PASSES_TD
