//===- SckOps.td - the Sparcast kernel-level `sck` dialect ---*- tablegen -*-===//
#ifndef SPARCAST_DIALECT_SCK_IR_SCKOPS_TD
#define SPARCAST_DIALECT_SCK_IR_SCKOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Sck_Dialect : Dialect {
  let name = "sck";
  let summary = "Tiled GPU kernels as loads, MMAs and epilogues that passes place in roles";
  let description = [{
    The kernel level of Sparcast, below `sc`: a kernel is a loop over output
    tiles (`sck.tile_loop`) whose body loads operand boxes (`sck.load`, a TMA
    box of an operand at tile and k-tile coordinates), multiplies them into
    an accumulator (`sck.mma`) and hands the accumulator to the op's
    epilogue (`sck.epilogue`). Warp specialization is a pass over this IR
    (`sc-warp-specialize`): the loads move to a producer role that puts the
    boxes of each k-tile into a ring of shared-memory slots (`sck.ring`,
    `sck.put`), and the MMAs and epilogues to consumer roles that take them
    (`sck.get`) and free the slot (`sck.release`); `sck.role` carries each
    role's register budget (setmaxnreg) and the consumers' order.
  }];
  let cppNamespace = "::mlir::sck";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enums: the kernel's decisions, typed
//===----------------------------------------------------------------------===//

def Sck_TileSchedule : I32EnumAttr<"TileSchedule",
    "how a tile loop's CTAs take its tiles", [
    I32EnumAttrCase<"grid", 0>,
    I32EnumAttrCase<"persistent", 1>,
    I32EnumAttrCase<"chained", 2>
  ]> {
  let cppNamespace = "::mlir::sck";
  let genSpecializedAttr = 0;
}
def Sck_TileScheduleAttr
    : EnumAttr<Sck_Dialect, Sck_TileSchedule, "tile_schedule"> {
  let assemblyFormat = "`<` $value `>`";
}

// The kernel a GEMM's kernel function is for (its `sck.schedule`, set by
// sc-lower-to-sck): a Hopper schedule, the hybrid-tiled GEMM, or sm_80's
// multistage kernel.
def Sck_KernelSchedule : I32EnumAttr<"KernelSchedule",
    "the kernel a GEMM's kernel-level function is for", [
    I32EnumAttrCase<"cooperative", 0>,
    I32EnumAttrCase<"pingpong", 1>,
    I32EnumAttrCase<"transposed", 2>,
    I32EnumAttrCase<"hybrid", 3>,
    I32EnumAttrCase<"multistage", 4>
  ]> {
  let cppNamespace = "::mlir::sck";
  let genSpecializedAttr = 0;
}
def Sck_KernelScheduleAttr
    : EnumAttr<Sck_Dialect, Sck_KernelSchedule, "kernel_schedule"> {
  let assemblyFormat = "`<` $value `>`";
}

def Sck_RoleKind : I32EnumAttr<"RoleKind", "a role of warpgroups", [
    I32EnumAttrCase<"producer", 0>,
    I32EnumAttrCase<"consumer", 1>
  ]> {
  let cppNamespace = "::mlir::sck";
  let genSpecializedAttr = 0;
}
// (`sck.role producer`: the kind bare in the op's syntax.)
def Sck_RoleKindAttr : EnumAttr<Sck_Dialect, Sck_RoleKind, "role_kind"> {
  let assemblyFormat = "$value";
}

def Sck_ConsumerOrder : I32EnumAttr<"ConsumerOrder",
    "how consumer warpgroups share tiles", [
    I32EnumAttrCase<"cooperative", 0>,
    I32EnumAttrCase<"pingpong", 1>,
    I32EnumAttrCase<"turns", 2>
  ]> {
  let cppNamespace = "::mlir::sck";
  let genSpecializedAttr = 0;
}
def Sck_ConsumerOrderAttr
    : EnumAttr<Sck_Dialect, Sck_ConsumerOrder, "consumer_order"> {
  let assemblyFormat = "`<` $value `>`";
}

class Sck_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Sck_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Sck_BoxType : Sck_Type<"Box", "box"> {
  let summary = "a tile of an operand in shared memory";
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let assemblyFormat = "`<` custom<ShapeAndType>($shape, $elementType) `>`";
  let genVerifyDecl = 1;
}

def Sck_FragType : Sck_Type<"Frag", "frag"> {
  let summary = "a tile held in registers as an MMA's A operand";
  let description = [{
    An online softmax's P, or a box read into registers once
    (`sck.load_frag`) to be the A operand of several MMAs: wgmma takes A
    from registers as well as from shared memory.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let assemblyFormat = "`<` custom<ShapeAndType>($shape, $elementType) `>`";
  let genVerifyDecl = 1;
}

def Sck_AccType : Sck_Type<"Acc", "acc"> {
  let summary = "an accumulator tile in registers";
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let assemblyFormat = "`<` custom<ShapeAndType>($shape, $elementType) `>`";
  let genVerifyDecl = 1;
}

def Sck_RingType : Sck_Type<"Ring", "ring"> {
  let summary = "a ring of shared-memory slots, each holding one box of each type";
  let parameters = (ins ArrayRefParameter<"::mlir::Type">:$boxes);
  let assemblyFormat = "`<` $boxes `>`";
  let genVerifyDecl = 1;
}

class Sck_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sck_Dialect, mnemonic, traits>;

def Sck_TileLoopOp : Sck_Op<"tile_loop", [SingleBlock, NoTerminator]> {
  let summary = "the kernel's loop over output tiles";
  let description = [{
    Runs its body once per output tile (b, m, n), b in [0, `batches`), m in
    [0, `mTiles`), n in [0, `nTiles`): the block arguments. The loop owns
    the order, so a pass can change it without touching the body: batch
    elements one after another; within one, M tiles in groups of `group`
    rows, M fastest inside a group, then N, then the next group (tiles that
    share A rows and B columns run side by side, for L2 reuse).
    `schedule`: `grid` (CTA i runs the i-th tile), `persistent` (as many
    CTAs as SMs, CTA c running tiles c, c + CTAs, ...; no pipeline drain
    between a CTA's tiles) or, for attention, `chained` (resident CTAs, each
    taking a contiguous share of the (b, m) tiles and running each one's N
    tiles, the heads, one after another: the consumer's pipeline runs on
    from head to head and from tile to tile). `cluster` = 2: CTAs in pairs take pairs of M
    tiles and share each B box by TMA multicast (each loads half).
  }];
  let arguments = (ins Index:$batches, Index:$mTiles, Index:$nTiles,
                       Sck_TileScheduleAttr:$schedule,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<I64Attr, "1">:$cluster);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$batches `,` $mTiles `,` $nTiles attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the tiles run an online softmax (an attention kernel: its
    /// tiles are (batch, 64-row query tile, head)).
    bool isAttention();
  }];
}

def Sck_WalkSizeOp : Sck_Op<"walk_size", [Pure]> {
  let summary = "how many tiles of a chained walk this CTA runs";
  let description = [{
    The chained walk of `sck.tile_loop` (schedule `chained`) made explicit
    (sc-schedule-attention), so that a loop over a CTA's tiles can carry
    values from one to the next: the CTA runs tiles 0 .. size - 1 of its
    walk, in order, each given by `sck.walk_tile`.
  }];
  let arguments = (ins Index:$batches, Index:$mTiles, Index:$nTiles);
  let results = (outs Index:$size);
  let assemblyFormat = "$batches `,` $mTiles `,` $nTiles attr-dict";
}

def Sck_WalkTileOp : Sck_Op<"walk_tile", [Pure]> {
  let summary = "the (b, m, n) of a tile of this CTA's chained walk";
  let description = [{
    Tile `index` (0 .. sck.walk_size - 1) of the CTA's chained walk over
    `batches` x `mTiles` x `nTiles` tiles: its batch element, M tile and N
    tile (the heads of one (b, m) tile run one after another).
  }];
  let arguments = (ins Index:$index, Index:$batches, Index:$mTiles,
                       Index:$nTiles);
  let results = (outs Index:$b, Index:$m, Index:$n);
  let assemblyFormat =
      "$index `of` $batches `,` $mTiles `,` $nTiles attr-dict";
}

def Sck_LoadOp : Sck_Op<"load", [Pure]> {
  let summary = "a box of a kernel operand";
  let description = [{
    The box of operand `operand` (a kernel argument's name) at `coords`
    (box coordinates, innermost first): element (i, j) of a box<R x C> is
    the operand's element at the reversed coordinates plus (i, j) on its
    last two dims, or plus (j, i) with `transposed` (the operand is stored
    [cols][rows], as a K-major rhs: the box is read so and multiplied as
    [rows][cols]). Past the operand's end, zeros (TMA's fill). With one
    coordinate fewer than the operand has dims, its two leading dims are
    read as one: a batched lhs [B, M, K] as the B x M rows of all its batch
    elements (a GEMM of a shared rhs tiled across batch elements).
    On Hopper a box is one TMA load; in a multistage kernel (sm_80 / sm_86
    / sm_89) the CTA's threads copy its 16-byte chunks with cp.async.
    `by_threads`: the operand's rows are no multiple of 16 bytes (no TMA
    stride), so on Hopper the producer's threads copy the box in 4- or
    8-byte pieces (cp.async, zeros past the end) instead.
  }];
  let arguments = (ins StrAttr:$operand, Variadic<Index>:$coords,
                       UnitAttr:$transposed, UnitAttr:$by_threads);
  let results = (outs Sck_BoxType:$box);
  let assemblyFormat = "$operand `[` $coords `]` attr-dict `:` qualified(type($box))";
}

def Sck_PrefetchOp : Sck_Op<"prefetch", [Pure]> {
  let summary = "a box of a tensor the epilogue reads, loaded ahead of it";
  let description = [{
    The box of `source` (a tensor the kernel function takes, one of its
    epilogue's operands) at `coords` (box coordinates, innermost first), as
    `sck.load` reads a kernel operand: element (i, j) is the source's
    element at the reversed coordinates plus (i, j) on its last two dims;
    zeros past its end. Given to `sck.epilogue` as an operand, the region
    sees the box's element at each accumulator element's place, so what the
    epilogue reads of the tensor can be in shared memory (loaded by TMA
    under the tile's MMAs) before the epilogue starts
    (sc-prefetch-epilogue-operands).
  }];
  let arguments = (ins AnyRankedTensor:$source, Variadic<Index>:$coords);
  let results = (outs Sck_BoxType:$box);
  let assemblyFormat = [{
    $source `[` $coords `]` attr-dict `:` type($source) `->` qualified(type($box))
  }];
  let hasVerifier = 1;
}

def Sck_ZeroOp : Sck_Op<"zero", [Pure]> {
  let summary = "an accumulator of zeros";
  let results = (outs Sck_AccType:$acc);
  let assemblyFormat = "attr-dict `:` qualified(type($acc))";
}

def Sck_MmaOp : Sck_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + a b over the boxes' k (wgmma)";
  let description = [{
    A is a box in shared memory or a tile in registers (`!sck.frag`); B a
    box.
  }];
  let arguments = (ins AnyTypeOf<[Sck_BoxType, Sck_FragType]>:$a,
                       Sck_BoxType:$b, Sck_AccType:$acc);
  let results = (outs Sck_AccType:$result);
  let assemblyFormat = "$a `,` $b `,` $acc attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($acc))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// A's shape and element type (a box's or a register tile's).
    ::llvm::ArrayRef<int64_t> getAShape();
    ::mlir::Type getAElementType();
    /// A as a box in shared memory (null when it is in registers).
    ::mlir::TypedValue<BoxType> getABox();
  }];
}

def Sck_LoadFragOp : Sck_Op<"load_frag", [MemoryEffects<[MemRead]>]> {
  let summary = "a box read into registers, the A operand of later MMAs";
  let description = [{
    Reads the box once (ldmatrix on Hopper) so that the MMAs that take it
    as their A operand read registers, not shared memory: an attention's Q,
    multiplied by every key block's K.
  }];
  let arguments = (ins Sck_BoxType:$box);
  let results = (outs Sck_FragType:$frag);
  let assemblyFormat = "$box attr-dict `:` qualified(type($box)) `->` qualified(type($frag))";
  let hasVerifier = 1;
}

def Sck_HybridTileOp : Sck_Op<"hybrid_tile", [Pure]> {
  let summary = "the kind and slot of a tile of a hybrid-tiled weight";
  let description = [{
    Of the weight `operand` (an `sc.assemble_hybrid` result, its buffers
    docs/hybrid-tiles.md): the kind of its tile at (`row`, `col`) of the
    tile grid (0 zero, 1 dense, 2 2:4) and the tile's slot, its index in
    the buffer of its kind. A kernel reads a dense tile as the box of
    `operand`.dense at the slot, a 2:4 tile as the boxes of `.sparse` and
    `.meta`, a zero tile not at all.
  }];
  let arguments = (ins StrAttr:$operand, Index:$row, Index:$col);
  let results = (outs Index:$kind, Index:$slot);
  let assemblyFormat = "$operand `[` $row `,` $col `]` attr-dict";
}

def Sck_MmaSparseOp : Sck_Op<"mma_sp", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + a b with a 2:4 sparse (sparse wgmma)";
  let description = [{
    `a` (M x K/2) holds the two kept values of every four of a 2:4 sparse
    M x K matrix, `meta` (M x K/32, i32) their positions (per row and 32
    columns one word, group j of four in bits 4j .. 4j + 3: the first
    position in the low two bits, docs/hybrid-tiles.md); `b` is K x N and
    the accumulator M x N.
  }];
  let arguments = (ins Sck_BoxType:$a, Sck_BoxType:$meta, Sck_BoxType:$b,
                       Sck_AccType:$acc);
  let results = (outs Sck_AccType:$result);
  let assemblyFormat = [{
    $a `,` $meta `,` $b `,` $acc attr-dict `:` qualified(type($a)) `,`
    qualified(type($meta)) `,` qualified(type($b)) `,` qualified(type($acc))
  }];
  let hasVerifier = 1;
}

def Sck_SoftmaxInitOp : Sck_Op<"softmax_init", [Pure]> {
  let summary = "the running statistics of an online softmax, before any key";
  let description = [{
    An M x 2 accumulator: per row the running maximum (column 0, in log2
    units, -1e30 before any key: finite, so that exp2 of differences never
    sees inf - inf) and the running sum of exp2 (column 1, zero).
  }];
  let results = (outs Sck_AccType:$state);
  let assemblyFormat = "attr-dict `:` qualified(type($state))";
  let hasVerifier = 1;
}

def Sck_SoftmaxOp : Sck_Op<"softmax", [Pure, AllTypesMatch<["state", "newState"]>]> {
  let summary = "one key block of an online softmax (flash attention)";
  let description = [{
    Scores `s` (M x N: the block's keys `keyStart` ..) update the running
    statistics `state` (sck.softmax_init), as flash attention does: per
    row r, with z_j = s[r, j] * `scale` * log2(e) for keys `keyStart` + j <
    `keys` (the key length, a value: it may be known only at launch; -inf
    for the others), m' = max(m, max_j z_j), p_j = exp2(z_j - m'), l' = l *
    exp2(m - m') + sum_j p_j. Results: P (p in registers in the element
    type of the next multiplication, M x N) and (m', l'). The output
    accumulator is brought to the new maxima by `sck.rescale`, and
    `sck.normalize` divides by l at the end.
  }];
  let arguments = (ins Sck_AccType:$s, Sck_AccType:$state,
                       Index:$keyStart, Index:$keys, F32Attr:$scale);
  let results = (outs Sck_FragType:$p, Sck_AccType:$newState);
  let assemblyFormat = [{
    $s `,` $state `at` $keyStart `of` $keys attr-dict `:`
    qualified(type($s)) `,` qualified(type($state)) `->` qualified(type($p))
  }];
  let hasVerifier = 1;
}

def Sck_RescaleOp : Sck_Op<"rescale", [Pure, AllTypesMatch<["o", "result"]>,
                                        AllTypesMatch<["from", "to"]>]> {
  let summary = "an online softmax's output brought to new row maxima";
  let description = [{
    O (M x D) accumulated under the running maxima of `from` (the
    statistics before a `sck.softmax` step), multiplied per row r by
    exp2(from.m[r] - to.m[r]) for the maxima of `to` (the step's): O then
    sums p values of the new maxima, as the step's P does. Apart from the
    step, so that O may be read only once the MMAs adding to it are done.
  }];
  let arguments = (ins Sck_AccType:$o, Sck_AccType:$from, Sck_AccType:$to);
  let results = (outs Sck_AccType:$result);
  let assemblyFormat = [{
    $o `,` $from `to` $to attr-dict `:` qualified(type($o)) `,` qualified(type($from))
  }];
  let hasVerifier = 1;
}

def Sck_NormalizeOp : Sck_Op<"normalize", [Pure, AllTypesMatch<["o", "result"]>]> {
  let summary = "an online softmax's output divided by its row sums";
  let arguments = (ins Sck_AccType:$o, Sck_AccType:$state);
  let results = (outs Sck_AccType:$result);
  let assemblyFormat = "$o `,` $state attr-dict `:` qualified(type($o)) `,` qualified(type($state))";
  let hasVerifier = 1;
}

def Sck_EpilogueOp : Sck_Op<"epilogue", [MemoryEffects<[MemWrite]>, IsolatedFromAbove,
                                         AttrSizedOperandSegments]> {
  let summary = "the op's epilogue on an accumulator, stored at a tile";
  let description = [{
    Stores the accumulator `acc` at tile coordinates `coords` (innermost
    first) of result `result`, each element through the region:
    `(acc element, b, m, n, ins...) -> result element`, ended by
    `sck.yield` (the element-wise epilogue of the op, `ins` its tensor
    operands; isolated from above, as the op's region, so that it can
    become a device function as it is). Without a region the accumulator
    is converted to the result's element type. With `transposed` the
    accumulator holds the tile transposed: its element (i, j) is the
    result's (m0 + j, n0 + i) (a GEMM computed as E^T W^T). With two
    coordinates [n0, r0] on a batched result [B, M, N], the result is taken
    as the B x M rows of all its batch elements: tile row r is row r mod M
    of batch element r / M, the b and m the region sees. An operand that
    is a box (`sck.prefetch`, the tile of an operand in the result's
    orientation: the accumulator's shape, transposed with `transposed`)
    gives the region the box's element at the result element's place
    instead of a tensor.

    With `direct_stores` the result's rows are no multiple of 16 bytes (no
    TMA stride): each thread stores its elements inside the result itself,
    nothing staged.

    With `sum_rows = M` (an sc.batch_matmul's with sum_rows, M its rows):
    the elements the region yields for the tile's rows below M are
    extended to f32 and added to the result's one row, [b, 0, n], which
    starts at zero; the region is required.
  }];
  let arguments = (ins StrAttr:$result, Variadic<Index>:$coords,
                       Sck_AccType:$acc, Variadic<AnyType>:$ins,
                       UnitAttr:$transposed,
                       OptionalAttr<I64Attr>:$sum_rows,
                       UnitAttr:$direct_stores);
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{
    $result `[` $coords `]` (`transposed` $transposed^)? `,` $acc
    (`ins` `(` $ins^ `:` type($ins) `)`)? attr-dict `:` qualified(type($acc))
    ($body^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tile in the result's orientation: the accumulator's shape,
    /// transposed with `transposed` (a box operand's shape).
    ::llvm::SmallVector<int64_t> getTileShape();
    /// The element the region yields (null without a region).
    ::mlir::Type getYieldedType();
  }];
}

def Sck_ReduceSplitsOp : Sck_Op<"reduce_splits",
                                 [MemoryEffects<[MemRead, MemWrite]>,
                                  AllTypesMatch<["acc", "sum"]>]> {
  let summary = "split-K: a tile's partial sums added once all have arrived";
  let description = [{
    The K range of output tile `tile` (its index among the kernel's tiles)
    is cut into `splits` parts computed by separate tiles of the loop; this
    one computed part `split`, its partial accumulator `acc`. The op keeps
    `acc` with the tile's other parts (in the kernel's partial-sum buffer,
    named `result`.partials, with a count of arrivals per tile in
    `result`.arrivals) and returns `last` true in the tile that arrives
    last, whose `sum` is then the sum of every part in part order;
    elsewhere `sum` is undefined and `last` false. The tile's epilogue runs
    under `last`, so it sees the whole sum once. With one part, `sum` is
    `acc` and `last` true.

    `splits` is a constant, or a count the kernel computes at run time from
    its tile count; then `max_parts` bounds the parts the loop runs in all
    (tiles x splits), the size of the partial-sum buffer.

    ```mlir
    %sum, %last = sck.reduce_splits %acc into "C"[%tile] split %s of %c4
        : !sck.acc<64x8xf32>
    %sum, %last = sck.reduce_splits %acc into "C"[%tile] split %s of %parts
        {max_parts = 132} : !sck.acc<128x256xf32>
    ```
  }];
  let arguments = (ins StrAttr:$result, Index:$tile, Index:$split,
                       Sck_AccType:$acc, Index:$splits,
                       OptionalAttr<I64Attr>:$max_parts);
  let results = (outs Sck_AccType:$sum, I1:$last);
  let assemblyFormat = [{
    $acc `into` $result `[` $tile `]` `split` $split `of` $splits attr-dict
    `:` qualified(type($acc))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The part count when it is a constant.
    std::optional<int64_t> getStaticSplits();
  }];
}

def Sck_YieldOp : Sck_Op<"yield", [Pure, Terminator, HasParent<"EpilogueOp">]> {
  let summary = "the result element of an epilogue";
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def Sck_RingOp : Sck_Op<"ring", [MemoryEffects<[MemAlloc]>]> {
  let summary = "a ring of `stages` shared-memory slots with full/empty barriers "
                "(0: as many as fit)";
  let arguments = (ins I64Attr:$stages);
  let results = (outs Sck_RingType:$ring);
  let assemblyFormat = "attr-dict `:` qualified(type($ring))";
  let hasVerifier = 1;
}

def Sck_PutOp : Sck_Op<"put", [AttrSizedOperandSegments,
                                MemoryEffects<[MemWrite]>]> {
  let summary = "wait for a free slot, load the boxes into it";
  let description = [{
    In a producer role: the next slot, once its consumers have released it.
    Outside roles (a software-pipelined ring whose threads both put and
    get, sc-pipeline-multistage): the slot of ring position `position`
    (slot position mod stages), which the gets of the positions `stages`
    before it have read; the loads are issued and not waited for.
  }];
  let arguments = (ins Sck_RingType:$ring, Optional<Index>:$position,
                       Variadic<Sck_BoxType>:$boxes);
  let assemblyFormat = [{
    $ring (`[` $position^ `]`)? `,` $boxes attr-dict `:` qualified(type($ring)) `,` qualified(type($boxes))
  }];
  let hasVerifier = 1;
}

def Sck_GetOp : Sck_Op<"get", [MemoryEffects<[MemRead]>]> {
  let summary = "wait until the next slot is full; its boxes";
  let description = [{
    In a consumer role: the next slot the producer filled. Outside roles:
    the slot of ring position `position`, once the put of that position
    has landed; in a multistage kernel the ring keeps `stages` - 1 puts
    ahead of each get (sc-pipeline-multistage), so the get waits until at
    most `stages` - 2 of the CTA's put groups are in flight, then for every
    thread (whose copies filled the slot, and who read the slot the next
    put overwrites).
  }];
  let arguments = (ins Sck_RingType:$ring, Optional<Index>:$position);
  let results = (outs Variadic<Sck_BoxType>:$boxes);
  let assemblyFormat = [{
    $ring (`[` $position^ `]`)? attr-dict `:` qualified(type($ring)) `->` qualified(type($boxes))
  }];
  let hasVerifier = 1;
}

def Sck_ReleaseOp : Sck_Op<"release", [MemoryEffects<[MemWrite]>]> {
  let summary = "this consumer is done with a slot it got";
  let description = [{
    In a consumer role: the oldest slot it got, or the slot of ring
    position `position` (sc-pipeline-wgmma names them: the slot a k-tile's
    asynchronous MMAs read is freed one k-tile later).
  }];
  let arguments = (ins Sck_RingType:$ring, Optional<Index>:$position);
  let assemblyFormat = [{
    $ring (`[` $position^ `]`)? attr-dict `:` qualified(type($ring))
  }];
  let hasVerifier = 1;
}

def Sck_DiscardOp : Sck_Op<"discard", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until a slot is full and free it unread";
  let description = [{
    In a consumer role: the slot of ring position `position`, filled by
    the producer, freed without being read (a CTA of a pair whose tile lies
    past the result still takes part in the pair's shared loads).
  }];
  let arguments = (ins Sck_RingType:$ring, Index:$position);
  let assemblyFormat = "$ring `[` $position `]` attr-dict `:` qualified(type($ring))";
  let hasVerifier = 1;
}

def Sck_TileIndexOp : Sck_Op<"tile_index", [Pure, HasParent<"TileLoopOp">]> {
  let summary = "the tile's place in the walk of the CTA that runs it";
  let description = [{
    0 for the first tile a CTA takes from the tile loop, 1 for its next,
    and so on (the tiles of all roles of a CTA counted alike: ping-pong
    consumers take every other one). Ring positions count from it: k-tile
    k of the tile at index t is position t x (k-tiles a tile) + k.
  }];
  let results = (outs Index:$index);
  let assemblyFormat = "attr-dict";
}

def Sck_MmaWaitOp : Sck_Op<"mma_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` MMAs are in flight";
  let description = [{
    On Hopper an `sck.mma` runs asynchronously: the boxes it reads and the
    accumulator it writes may be touched again only after a wait. MMAs
    complete in the order they were issued; the wait returns once at most
    the `pending` latest are in flight. A GEMM's k-tile leaves its MMA in
    flight until the next one's is issued (its slot released one k-tile
    late), and its last k-tile waits for all (`pending` = 0) before the
    epilogue reads the accumulator; an attention block waits for its
    Q K^T (the P V issued after it still in flight) before the softmax
    reads the scores.
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Sck_AwaitTurnOp : Sck_Op<"await_turn", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until the other consumer has issued its MMAs";
  let description = [{
    Ping-pong consumers take turns: each issues its tile's MMAs only after
    the other has issued those of its tile before (`sck.pass_turn`), so
    one's epilogue runs under the other's MMAs. The CTA's first tile does
    not wait. Consumers of order `turns` (an attention's, each running the
    body as its own) wait wherever the IR says, each wait answered by one
    pass of the other consumer.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Sck_PassTurnOp : Sck_Op<"pass_turn", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "give the other consumer its turn";
  let description = [{
    After a tile's MMAs are issued: the other consumer may issue those of
    the CTA's next tile (ping-pong: none after the CTA's last), or (order
    `turns`) its next group of MMAs.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Sck_ConsumerIndexOp : Sck_Op<"consumer_index", [Pure]> {
  let summary = "which consumer of its role runs this code";
  let description = [{
    In a consumer role of `count` warpgroups: 0 .. count - 1. A consumer
    role's body is the work of all its consumers (the lowering gives each
    its tiles) unless it asks for this index: then each consumer runs the
    body as its own (an attention's consumers taking turns, each on its own
    query rows of the tile they share).
  }];
  let results = (outs Index:$index);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Sck_RoleOp : Sck_Op<"role", [SingleBlock, NoTerminator]> {
  let summary = "code run by one role of warpgroups";
  let description = [{
    `kind` = `producer` (one warpgroup; `sck.put` only) or `consumer`
    (`count` warpgroups; `order` = `cooperative`: all on one tile,
    `pingpong`: each its own tile, one's epilogue under the other's MMAs,
    or `turns` (attention): each its own query tile of a pair whose tiles
    read the same keys (two candidates of one request, or the two halves
    of a 128-row query block), sharing every K/V box and alternating their
    MMA phases, one's softmax under the other's MMAs). `regs`: the
    per-thread register budget the role sets with setmaxnreg.
  }];
  let arguments = (ins Sck_RoleKindAttr:$kind, I64Attr:$regs,
                       DefaultValuedAttr<I64Attr, "1">:$count,
                       OptionalAttr<Sck_ConsumerOrderAttr>:$order);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$kind attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Kernels of CUDA cores: sparse rows and exact fp32 tiles
//===----------------------------------------------------------------------===//
// These ops take memrefs (the kernel's arguments and its shared buffers)
// and per-thread values; sc-lower-sck-simt lowers each to gpu, memref,
// vector and arith ops. Every access they make is bounds-checked against
// the memrefs' sizes, so buffers with bad contents never touch memory
// outside them.

def Sck_CsrRowOp : Sck_Op<"csr_row", [Pure]> {
  let summary = "the entries of one row of a CSR row set";
  let description = [{
    `[begin, end)`: the entries of row `row` (`row_ptr[row] ..
    row_ptr[row + 1]`), clamped to `[0, entries)` with `end >= begin`; a row
    with no pointer after it (row + 1 past the pointers) is empty.
  }];
  let arguments = (ins MemRefRankOf<[I32], [1]>:$rowPtr, Index:$row,
                       Index:$entries);
  let results = (outs Index:$begin, Index:$end);
  let assemblyFormat = [{
    $rowPtr `[` $row `]` `entries` $entries attr-dict `:` type($rowPtr)
  }];
}

def Sck_CsrEntryOp : Sck_Op<"csr_entry", [Pure]> {
  let summary = "the column and value of one entry of a CSR row set";
  let description = [{
    The entry `entry` of a `#sc.block_csr<block_size, ..., offset_bits>`
    row set: its column, decoded from the word `(column / block_size) <<
    offset_bits | column % block_size`, and its value. `entry` must be in
    bounds (an `sck.csr_row` range).
  }];
  let arguments = (ins MemRefRankOf<[I32], [1]>:$words,
                       MemRefRankOf<[F32], [1]>:$values, Index:$entry,
                       I64Attr:$block_size, I64Attr:$offset_bits);
  let results = (outs Index:$column, F32:$value);
  let assemblyFormat = [{
    $words `,` $values `[` $entry `]` attr-dict `:` type($words) `,` type($values)
  }];
  let hasVerifier = 1;
}

def Sck_ScatterAddOp : Sck_Op<"scatter_add", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "an atomic add of a value at an element, when in bounds";
  let description = [{
    `result[row, column] += value` atomically (red.global.add.f32), or
    nothing when (row, column) is outside the result.

    With `scaled_by @f`, the value added is `value * f(1.0, row, column,
    ins...)`: a product added after an epilogue linear in it (the
    cosine's `x / (|q| |i|)`) rather than before. `f` is only called
    inside the result.
  }];
  let arguments = (ins F32:$value, MemRefRankOf<[F32], [2]>:$result,
                       Index:$row, Index:$column,
                       OptionalAttr<FlatSymbolRefAttr>:$scale,
                       Variadic<AnyType>:$ins);
  let assemblyFormat = [{
    $value `,` $result `[` $row `,` $column `]`
    (`scaled_by` $scale^)? (`ins` `(` $ins^ `:` type($ins) `)`)?
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Sck_StageRowsOp : Sck_Op<"stage_rows", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a block of rows of a dense matrix staged k-major in shared memory";
  let description = [{
    The CTA copies rows `row` .. `row` + R and columns `k` .. `k` + K of
    `source` (row-major M x H) into `stage` (K x P, P >= R, in shared
    memory): `stage[j][i] = source[row + i][k + j]`, zero past the source's
    end. Barriers around it: the CTA's earlier reads of `stage` are done
    before it is written, and the copy is visible to every thread after.
  }];
  let arguments = (ins MemRefRankOf<[F32], [2]>:$source, Index:$row, Index:$k,
                       MemRefRankOf<[F32], [2]>:$stage, I64Attr:$rows);
  let assemblyFormat = [{
    $source `[` $row `,` $k `]` `into` $stage attr-dict `:` type($source) `,` type($stage)
  }];
  let hasVerifier = 1;
}

def Sck_FmaTileOp : Sck_Op<"fma_tile", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + a^T b of two staged blocks, in exact fp32 on CUDA cores";
  let description = [{
    `a` and `b` are K x P stages (`sck.stage_rows`) of 128 rows each; the
    CTA (256 threads) holds the 128 x 128 tile `acc[m][n] += sum_k a[k][m]
    * b[k][n]`, fp32 fused multiply-adds in k order. Each thread holds 64
    elements (`vector<64xf32>`): thread t, with ty = t / 16 and tx = t % 16,
    holds rows ty * 4 + i and 64 + ty * 4 + i (i < 4) and columns tx * 4 + j
    and 64 + tx * 4 + j (j < 4); element 8 r + c of its vector is the r-th
    of those rows and the c-th of those columns.
  }];
  let arguments = (ins MemRefRankOf<[F32], [2]>:$a, MemRefRankOf<[F32], [2]>:$b,
                       VectorOfLengthAndType<[64], [F32]>:$acc);
  let results = (outs VectorOfLengthAndType<[64], [F32]>:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Sck_StoreTileOp : Sck_Op<"store_tile", [MemoryEffects<[MemRead, MemWrite]>,
                                            AttrSizedOperandSegments]> {
  let summary = "a 128 x 128 tile held as sck.fma_tile holds it, through an epilogue";
  let description = [{
    Each thread's 64 elements of the tile at (`row`, `column`) of `result`
    (sck.fma_tile's layout), plus the `addend`'s element at the same place
    when there is one (0 outside the addend), each through the function `epilogue`: `(element,
    row, column, ins...) -> result element`, stored where inside the
    result. A thread's four consecutive columns are read and written as one
    vector when all four are inside and the rows are a multiple of four
    elements long.
  }];
  let arguments = (ins VectorOfLengthAndType<[64], [F32]>:$tile,
                       MemRefRankOf<[AnyType], [2]>:$result, Index:$row,
                       Index:$column,
                       Optional<MemRefRankOf<[F32], [2]>>:$addend,
                       FlatSymbolRefAttr:$epilogue,
                       Variadic<AnyType>:$ins);
  let assemblyFormat = [{
    $tile `,` $result `[` $row `,` $column `]` (`plus` $addend^ `:` type($addend))?
    `epilogue` $epilogue (`ins` `(` $ins^ `:` type($ins) `)`)? attr-dict `:`
    type($tile) `,` type($result)
  }];
}

def Sck_SelectTileOp : Sck_Op<"select_tile", [MemoryEffects<[MemRead, MemWrite]>,
                                              AttrSizedOperandSegments]> {
  let summary = "a tile's elements above their row's threshold, appended to the row";
  let description = [{
    Each of the thread's 64 elements of the tile at (`row`, `column`)
    (sck.fma_tile's layout) inside `rows` x `columns`, plus the `addend`'s
    element (0 outside it), through the function `epilogue` as
    sck.store_tile does; an element `> thresholds[row]` (NaN never) takes
    the next slot of its row (`counts[row]`, an atomic add) and, when the
    slot is inside `values` and `cols`, is written there with its column.
    `counts` must start at zero; a count past the capacity says the row
    had more such elements than slots.
  }];
  let arguments = (ins VectorOfLengthAndType<[64], [F32]>:$tile, Index:$row,
                       Index:$column, Index:$rows, Index:$columns,
                       Optional<MemRefRankOf<[F32], [2]>>:$addend,
                       FlatSymbolRefAttr:$epilogue, Variadic<AnyType>:$ins,
                       MemRefRankOf<[F32], [1]>:$thresholds,
                       MemRefRankOf<[I32], [1]>:$counts,
                       MemRefRankOf<[F32], [2]>:$values,
                       MemRefRankOf<[I32], [2]>:$cols);
  let assemblyFormat = [{
    $tile `[` $row `,` $column `]` `within` `[` $rows `,` $columns `]`
    (`plus` $addend^ `:` type($addend))? `epilogue` $epilogue
    (`ins` `(` $ins^ `:` type($ins) `)`)? `above` $thresholds `into` $counts
    `,` $values `,` $cols attr-dict `:` type($tile) `,` type($thresholds) `,`
    type($counts) `,` type($values) `,` type($cols)
  }];
}

def Sck_CsrLowerBoundOp : Sck_Op<"csr_lower_bound", [Pure]> {
  let summary = "the first entry of a row range at or past a column";
  let description = [{
    The first entry `e` in `[begin, end)` of a `#sc.block_csr` row set
    whose column (decoded as `sck.csr_entry` does) is at least `column`, or
    `end` when none is, found by bisection: the entries' columns increase
    along the range (a row of a packed row set). `[begin, end)` must be in
    bounds (an `sck.csr_row` range); unsorted entries give some entry of the
    range, never one outside it.
  }];
  let arguments = (ins MemRefRankOf<[I32], [1]>:$words, Index:$begin,
                       Index:$end, Index:$column, I64Attr:$block_size,
                       I64Attr:$offset_bits);
  let results = (outs Index:$entry);
  let assemblyFormat = [{
    $words `[` $begin `to` $end `]` `at_least` $column attr-dict `:` type($words)
  }];
  let hasVerifier = 1;
}

def Sck_TableAddOp : Sck_Op<"table_add", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "adds a value to a key's sum in a shared-memory hash table";
  let description = [{
    A table of C slots in workgroup memory (C a power of two): `keys[s]`
    the slot's key, -1 when empty, `sums[s]` its sum (both cleared by the
    CTA before use). Adds `value` to the sum of `key` (a non-negative i32),
    the key taking the first empty slot of its probe sequence (multiplicative
    hash, then linear probing; a compare-and-swap, so the CTA's threads may
    add at once) when absent. The result is false when every slot holds
    another key: nothing was added.
  }];
  let arguments = (ins F32:$value, MemRefRankOf<[I32], [1]>:$keys,
                       MemRefRankOf<[F32], [1]>:$sums, Index:$key);
  let results = (outs I1:$added);
  let assemblyFormat = [{
    $value `to` $keys `,` $sums `[` $key `]` attr-dict `:` type($keys) `,` type($sums)
  }];
  let hasVerifier = 1;
}

def Sck_TableFindOp : Sck_Op<"table_find", [MemoryEffects<[MemRead]>]> {
  let summary = "whether a key is in a shared-memory hash table";
  let description = [{
    Whether `key` is in the table `keys` (as `sck.table_add` fills it; no
    adds running at the same time): its probe sequence reaches the key
    before an empty slot, within C probes.
  }];
  let arguments = (ins MemRefRankOf<[I32], [1]>:$keys, Index:$key);
  let results = (outs I1:$found);
  let assemblyFormat = [{
    $keys `[` $key `]` attr-dict `:` type($keys)
  }];
  let hasVerifier = 1;
}

def Sck_RowDotOp : Sck_Op<"row_dot", [MemoryEffects<[MemRead]>]> {
  let summary = "the dot product of a row of one matrix and a row of another";
  let description = [{
    `sum_k a[row, k] * b[col, k]` over the columns both have, fp32 fused
    multiply-adds in k order from 0 (sck.fma_tile's order, so the same
    value as the tile's element); 0 when `row` or `col` is outside.
  }];
  let arguments = (ins MemRefRankOf<[F32], [2]>:$a, Index:$row,
                       MemRefRankOf<[F32], [2]>:$b, Index:$col);
  let results = (outs F32:$result);
  let assemblyFormat = [{
    $a `[` $row `]` `,` $b `[` $col `]` attr-dict `:` type($a) `,` type($b)
  }];
}

def Sck_AppendAboveOp : Sck_Op<"append_above", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a score appended to its row when above the row's threshold";
  let description = [{
    When `score > thresholds[row]` (NaN never) and `row` is inside every
    per-row buffer: the row's next slot (`counts[row]`, an atomic add) and,
    when the slot is inside `values` and `cols`, `score` and `col` written
    there (sck.select_tile's append, one element).
  }];
  let arguments = (ins F32:$score, Index:$row, Index:$col,
                       MemRefRankOf<[F32], [1]>:$thresholds,
                       MemRefRankOf<[I32], [1]>:$counts,
                       MemRefRankOf<[F32], [2]>:$values,
                       MemRefRankOf<[I32], [2]>:$cols);
  let assemblyFormat = [{
    $score `[` $row `,` $col `]` `above` $thresholds `into` $counts `,` $values
    `,` $cols attr-dict `:` type($thresholds) `,` type($counts) `,`
    type($values) `,` type($cols)
  }];
}

#endif // SPARCAST_DIALECT_SCK_IR_SCKOPS_TD
