//===- ScAttrs.td - attributes of the sc dialect -------------*- tablegen -*-===//
#ifndef SPARCAST_DIALECT_SC_IR_SCATTRS_TD
#define SPARCAST_DIALECT_SC_IR_SCATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "sparcast/Dialect/SC/IR/ScDialect.td"
include "sparcast/Dialect/SC/IR/ScInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Sc_LineageKind : I32EnumAttr<"LineageKind", "batch lineage of a tensor", [
    I32EnumAttrCase<"shared", 0>,
    I32EnumAttrCase<"request", 1>,
    I32EnumAttrCase<"candidate", 2>,
    I32EnumAttrCase<"index", 3>,
    I32EnumAttrCase<"gathered", 4>
  ]> {
  let cppNamespace = "::mlir::sc";
  let genSpecializedAttr = 0;
}

def Sc_AnchorKinds : I32BitEnumAttr<"AnchorKinds",
    "anchor key blocks every query block attends to", [
    I32BitEnumAttrCaseNone<"none">,
    I32BitEnumAttrCaseBit<"first", 0>,
    I32BitEnumAttrCaseBit<"middle", 1>,
    I32BitEnumAttrCaseBit<"last", 2>
  ]> {
  let cppNamespace = "::mlir::sc";
  let genSpecializedAttr = 0;
}

def Sc_GemmSchedule : I32EnumAttr<"GemmSchedule",
    "GPU schedule of a GEMM kernel", [
    I32EnumAttrCase<"cooperative", 1>,
    I32EnumAttrCase<"pingpong", 2>,
    I32EnumAttrCase<"transposed", 3>,
    // sm_80 / sm_86 / sm_89: every warp loads a multi-stage cp.async ring
    // and computes with mma.sync.
    I32EnumAttrCase<"multistage", 4>
  ]> {
  let cppNamespace = "::mlir::sc";
  let genSpecializedAttr = 0;
}

def Sc_AttentionWalk : I32EnumAttr<"AttentionWalk",
    "how an attention kernel's CTAs walk the work", [
    I32EnumAttrCase<"grid", 0>,
    I32EnumAttrCase<"chained", 1>,
    I32EnumAttrCase<"pairs", 2>
  ]> {
  let cppNamespace = "::mlir::sc";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Sc_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Sc_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Sc_LineageAttr : EnumAttr<Sc_Dialect, Sc_LineageKind, "lineage"> {
  let summary = "batch lineage of a tensor";
  let description = [{
    Says what the leading dimension of a tensor is indexed by:

    * `request`: one row per request (user), B_user rows;
    * `candidate`: one row per candidate, B rows;
    * `index`: the int32 `tensor<?xi32>` mapping each candidate to its
      request row (values in [0, B_user));
    * `shared`: no batch dimension (weights);
    * `gathered`: one row per candidate, each a copy of its request's row
      (a request tensor broadcast through the index). Computed by
      `sc-infer-lineage`; on arguments it means the caller broadcast already.

    Example:

    ```mlir
    func.func @f(%user: tensor<?x64xf16> {sc.lineage = #sc.lineage<request>},
                 %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Sc_GemmScheduleAttr : EnumAttr<Sc_Dialect, Sc_GemmSchedule, "gemm_schedule"> {
  let summary = "GPU schedule of a GEMM kernel";
  let description = [{
    The kernel schedule of an `sc.batch_matmul`, chosen by
    `sc-select-kernel-config` (or pinned on the op by a model) under the
    discardable attribute `sc.gemm_schedule`:

    * `cooperative`: warp-specialized, two consumers on one 128 x 256 tile;
    * `pingpong`: warp-specialized, two consumers on two 64 x 256 tiles,
      taking turns at the tensor cores and the epilogue;
    * `transposed`: out[b]^T = E[b]^T W^T, tiles of 128 columns n by up to
      152 rows m a consumer (IKBO's candidate GEMM with many candidates a
      user).

    ```mlir
    %c = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : ...
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Sc_AttentionConfigAttr : Sc_Attr<"AttentionConfig", "attention_config"> {
  let summary = "GPU kernel configuration of an attention";
  let description = [{
    What the GPU kernel of an `sc.attention` is, chosen by
    `sc-select-kernel-config` (or pinned by a model) under the discardable
    attribute `sc.attention_config`:

    * `walk`: `grid` (one CTA a query tile and head), `chained` (resident
      CTAs each walking every C-th candidate head by head, the software
      pipeline running on from one to the next; one consumer) or `pairs`
      (two consumers on two candidates of one request sharing each K/V
      block; a pairing kernel runs first);
    * `consumers`: consumer warpgroups a CTA (1 or 2; two on a `grid` walk
      split a 128-row query tile);
    * `key_block`: keys a K/V block (64 or 128; a block mask's own size);
    * `group_candidates`: a `chained` or `pairs` walk takes the candidates
      in request order (a grouping kernel sorts them by the index first);
    * `p_in_f16`: a bf16 attention rounds P to f16 (V converted to f16
      before the kernel).

    ```mlir
    #sc.attention_config<walk = chained, consumers = 1, key_block = 64,
                         group_candidates = false, p_in_f16 = false>
    ```
  }];
  let parameters = (ins
    EnumParameter<Sc_AttentionWalk>:$walk,
    "int64_t":$consumers,
    "int64_t":$key_block,
    "bool":$group_candidates,
    "bool":$p_in_f16
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Query rows of one tile: 128 where two consumers split a query
    /// block, else 64 (a consumer's tile, or a candidate of a pair).
    int64_t getTileRows() const {
      return getConsumers() == 2 && getWalk() != AttentionWalk::pairs ? 128
                                                                      : 64;
    }
  }];
}

def Sc_LogLinearMaskAttr : Sc_Attr<"LogLinearMask", "log_linear",
    [DeclareAttrInterfaceMethods<Sc_BlockMaskAttrInterface>]> {
  let summary = "deterministic log-linear block-sparse attention mask";
  let description = [{
    Query block `i` keeps key block `j` when
    `|i - j| <= local_width`, or `|i - j|` is a power of two `2^k` with
    `k >= 1`, or `j` is an anchor block (`first` = 0, `middle` = nb/2,
    `last` = nb-1, nb the number of key blocks). With `causal = true` only
    blocks `j <= i` are kept. All distances are in blocks, not tokens. Each
    query block keeps O(log nb) key blocks.

    Example:

    ```mlir
    #sc.log_linear<block_size = 128, local_width = 1,
                   anchors = [first, middle, last], causal = false>
    ```
  }];
  let parameters = (ins
    "int64_t":$block_size,
    DefaultValuedParameter<"int64_t", "1">:$local_width,
    DefaultValuedParameter<"::mlir::sc::AnchorKinds",
      "(::mlir::sc::AnchorKinds::first | ::mlir::sc::AnchorKinds::middle | ::mlir::sc::AnchorKinds::last)">:$anchors,
    DefaultValuedParameter<"bool", "false">:$causal
  );
  // `anchors = [first, last]`: a bracketed list reads better than a bit enum.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Sc_BlockSparseMaskAttr : Sc_Attr<"BlockSparseMask", "block_sparse",
    [DeclareAttrInterfaceMethods<Sc_BlockMaskAttrInterface>]> {
  let summary = "explicit block-sparse (BSR) attention mask";
  let description = [{
    Kept key blocks per query block as compressed rows: query block `i`
    keeps key blocks `indices[offsets[i] .. offsets[i+1])`, sorted and
    distinct, each below `key_blocks`. Every query block keeps at least one
    key block (a row with none would make softmax undefined).

    Example (2 query blocks, 3 key blocks):

    ```mlir
    #sc.block_sparse<block_size = 64, key_blocks = 3,
                     offsets = [0, 2, 3], indices = [0, 1, 2]>
    ```
  }];
  let parameters = (ins
    "int64_t":$block_size,
    "int64_t":$key_blocks,
    ArrayRefParameter<"int32_t">:$offsets,
    ArrayRefParameter<"int32_t">:$indices
  );
  let assemblyFormat = [{
    `<` `block_size` `=` $block_size `,` `key_blocks` `=` $key_blocks `,`
    `offsets` `=` `[` $offsets `]` `,` `indices` `=` `[` $indices `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumQueryBlocks() const { return getOffsets().size() - 1; }
  }];
}

def Sc_HybridTilesAttr : Sc_Attr<"HybridTiles", "hybrid_tiles"> {
  let summary = "per-tile dense / 2:4 / zero layout of a matrix";
  let description = [{
    A matrix cut into a `grid` of `tile` shaped tiles, each stored dense
    (`d`), 2:4 structured sparse along the contraction dim (`s`: two kept
    values of every four, 2-bit metadata per kept element) or skipped as
    all-zero (`z`). `kinds` lists the tiles row-major, one letter per tile,
    or is empty when the packing decides them at run time (the kind table
    `sc.assemble_hybrid` takes). docs/hybrid-tiles.md is the packed format.

    Example:

    ```mlir
    #sc.hybrid_tiles<tile = [64, 64], grid = [2, 2], kinds = "dszd">
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$tile,
    ArrayRefParameter<"int64_t">:$grid,
    StringRefParameter<"one letter per tile: d, s or z">:$kinds
  );
  let assemblyFormat = [{
    `<` `tile` `=` `[` $tile `]` `,` `grid` `=` `[` $grid `]` `,`
    `kinds` `=` $kinds `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    enum class TileKind { dense, sparse24, zero };
    /// Kind of the tile at (row, col) of the grid (kinds known only).
    TileKind getTileKind(int64_t row, int64_t col) const;
    /// Whether the kinds are fixed at compile time.
    bool hasKnownKinds() const { return !getKinds().empty(); }
    /// The weight's rows and columns (K).
    int64_t getRows() const { return getTile()[0] * getGrid()[0]; }
    int64_t getCols() const { return getTile()[1] * getGrid()[1]; }
  }];
}

def Sc_BlockCsrAttr : Sc_Attr<"BlockCsr", "block_csr"> {
  let summary = "block-sparse CSR layout of sparse embeddings";
  let description = [{
    Sparse rows over a very wide id space (e.g. 1.2M features) stored as
    CSR (row pointers, column ids, values) whose column id is one 32-bit
    word: the block of `block_size` columns in the high `id_bits`, the
    offset inside it in the low `offset_bits` (id_bits + offset_bits = 32;
    the document's 10-bit offsets of 1024-column blocks by default). Words
    sort as (block, offset), so a merge of two rows compares one word, and
    a kernel finds a row's blocks without decoding (docs/sparse-similarity.md).

    Example:

    ```mlir
    #sc.block_csr<block_size = 1024>
    #sc.block_csr<block_size = 4096, id_bits = 20, offset_bits = 12>
    ```
  }];
  let parameters = (ins
    "int64_t":$block_size,
    DefaultValuedParameter<"int64_t", "22">:$id_bits,
    DefaultValuedParameter<"int64_t", "10">:$offset_bits
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The column a packed word names.
    int64_t columnOf(uint32_t word) const {
      return int64_t(word >> getOffsetBits()) * getBlockSize() +
             int64_t(word & ((uint32_t(1) << getOffsetBits()) - 1));
    }
  }];
}

#endif // SPARCAST_DIALECT_SC_IR_SCATTRS_TD
