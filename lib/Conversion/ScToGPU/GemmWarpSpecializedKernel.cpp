//===- GemmWarpSpecializedKernel.cpp - persistent warp-specialized GEMM ---===//
//
// A producer warpgroup loads k-tiles into a ring with TMA; two consumer
// warpgroups multiply with wgmma (their own descriptors, either B layout)
// and run the epilogue on the accumulator registers, storing through TMA.
// Cooperative: both consumers on one 128x256 tile. Ping-pong: each its own
// 64x256 tile, in turns. Persistent: one CTA per SM walks the tiles.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "TemplateUtils.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

const char *const mlir::sc::detail::kStagingStoreOpenText = R"mlir(
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        nvvm.barrier id = %wgBar number_of_threads = %wgCount
        scf.if %elected {
)mlir";

/// This thread's place in its warpgroup's accumulator fragment (wgmma
/// m64nN, f32): defines %<p>c4, %<p>c16, %<p>c32, %<p>lane, %<p>q (lane %
/// 4), %<p>quad (lane / 4), %<p>rowRel0/8 (rows within the warpgroup's 64),
/// %<p>m (the warpgroup's first row: %m0 + wg * rowsPerWarpgroup),
/// %<p>row0/8, %<p>in0/8 (row < %cM), %<p>q2 and %<p>col (%n0 + 2 q).
std::string mlir::sc::detail::fragmentCoordinatesText(StringRef p,
                                                  int64_t rowsPerWarpgroup) {
  return replaceAll(llvm::formatv(R"mlir(
        %$Pc4 = arith.constant 4 : index
        %$Pc16 = arith.constant 16 : index
        %$Pc32 = arith.constant 32 : index
        %$Pwarp = arith.divui %inWg, %$Pc32 : index
        %$Plane = arith.remui %tid, %$Pc32 : index
        %$Pquad = arith.divui %$Plane, %$Pc4 : index
        %$Pq = arith.remui %$Plane, %$Pc4 : index
        %$PwarpRow = arith.muli %$Pwarp, %$Pc16 : index
        %$ProwRel0 = arith.addi %$PwarpRow, %$Pquad : index
        %$ProwRel8 = arith.addi %$ProwRel0, %c8 : index
        %$PwgRows = arith.constant {0} : index
        %$PwgRow = arith.muli %wg, %$PwgRows : index
        %$Pm = arith.addi %m0, %$PwgRow : index
        %$Prow0 = arith.addi %$Pm, %$ProwRel0 : index
        %$Prow8 = arith.addi %$Pm, %$ProwRel8 : index
        %$Pin0 = arith.cmpi ult, %$Prow0, %cM : index
        %$Pin8 = arith.cmpi ult, %$Prow8, %cM : index
        %$Pq2 = arith.muli %$Pq, %c2 : index
        %$Pcol = arith.addi %n0, %$Pq2 : index
)mlir",
                                  rowsPerWarpgroup)
                        .str(),
                    {{"P", p.str()}});
}

namespace {
/// How the kernel loads a gathered epilogue operand (prefetchedOperand).
enum class PrefetchMode { None, WholeTile, Subtiles };

// Warp-specialized, persistent: 3 warpgroups per CTA, one CTA per SM
// walking tiles in grouped order (see kWsDecodeTemplate) with stride
// gridDim.x.
//   warpgroup 2 (producer): one thread waits for a free ring slot (empty
//     barrier), then issues the TMA loads of the next k-tile into it; it runs
//     ahead across tile boundaries, so the next tile's loads overlap the
//     consumers' epilogue;
//   warpgroups 0 and 1 (consumers): wait for a full slot, wgmma on their
//     64 rows of the 128x256 tile as two 64x128 accumulators, and release
//     the previous slot once its wgmma is done (lane 0 of each consumer
//     warp, count 8).
// A slot is released only after the next k-tile's wgmma is issued, so at
// most S - 2 slots are loading while the consumers compute: the ring takes
// 4 slots (192 KB), and the epilogue stages a 64x128 quarter of the tile at
// a time (33 KB) instead of a whole half.
// Slot and phase counters run on across tiles: no pipeline drain.
constexpr const char *kWsKernelTemplate = R"mlir(
$TYPES
!accS = $ACCSTRUCT
!tmaC = !nvgpu.tensormap.descriptor<tensor = memref<$CLEAD$CROWSx$EOUTx$OUT, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!boxC = memref<$CLEAD$CROWSx$EOUTx$OUT, #gpu.address_space<workgroup>>
!stageC = memref<$STAGEELEMSx$OUT, #gpu.address_space<workgroup>>
!cbars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = $CBARS>
$PX_TYPES
gpu.module @scratch {
  gpu.func @$KERNEL(%tmaAp: !llvm.ptr, %tmaBp: !llvm.ptr, %C: $CTYPE$EPI_PARAMS, %tmaCp: !llvm.ptr$PX_PARAM$STAGE1_PARAMS) kernel
      attributes {nvvm.maxntid = array<i32: 384, 1, 1>$CLUSTER_ATTR} {
$CASTS
    %tmaC = builtin.unrealized_conversion_cast %tmaCp : !llvm.ptr to !tmaC
$PX_CAST    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %c16384 = arith.constant 16384 : index
    %cS = arith.constant $S : index
$CM_DEF
    %cN = arith.constant $N : index
    %cBN = arith.constant $TILEN : index
    %cGN = arith.constant $GN : index
$CGM_DEF
    %cGroup = arith.constant $GROUP : index
    %kTiles = arith.constant $KT : index
    %cTileM = arith.constant $TILEM : index
    %tileBytesA = arith.constant $ABYTES : index
    %tileBytesB = arith.constant $BSLOTBYTES : index
    %wgBytesA = arith.constant $WGBYTESA : index
    %ringB = arith.constant $RINGB : index
    %stageOff = arith.constant $STAGEOFF : index
    %wgStageBytes = arith.constant $WGSTAGEBYTES : index
    %txBytes = arith.constant $TX : index
    %ticks = arith.constant 10000000 : index
    %cTileStep = arith.constant $TILESTEP : index
    %cReleases = arith.constant $RELEASES : index
    %tid = gpu.thread_id x
    // The warpgroup index read from lane 0 (a shuffle): ptxas then knows it
    // is warp-uniform, so the role branches below are not divergent paths
    // (where it would serialize wgmma, warning C7520).
    %tid32 = arith.index_cast %tid : index to i32
    %c128i32 = arith.constant 128 : i32
    %wgRaw = arith.divui %tid32, %c128i32 : i32
    %lane0 = arith.constant 0 : i32
    %width32 = arith.constant 32 : i32
    %wgU, %wgOk = gpu.shuffle idx %wgRaw, %lane0, %width32 : i32
    %wg = arith.index_cast %wgU : i32 to index
    %cta = gpu.block_id x
    %ctas = gpu.grid_dim x
$UNITS
    %batch = memref.dim %C, %c0 : $CTYPE
$AFTER_BATCH    %perBatch = arith.muli %cGN, %cGM : index
    %perGroup = arith.muli %cGroup, %cGN : index
$NUM_TILES
    // Tiles of this CTA: cta, cta + ctas, ... below numTiles.
$CTA_SHARE$STAGE1_SETUP    %smem = gpu.dynamic_shared_memory : !smem
    %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
$SMEM_REGION    %full = nvgpu.mbarrier.create -> !bars
    %empty = nvgpu.mbarrier.create -> !bars
$PX_BARS    // Constants of the wgmma descriptors (wgmmaDescriptorConstantsText).
$DESC_CONSTANTS    %smemBase = arith.index_cast %base : index to i64
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %cS step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !bars
        nvgpu.mbarrier.init %empty[%s], %cReleases : !bars
      }
      nvgpu.tma.prefetch.descriptor %tmaA : !tmaA
      nvgpu.tma.prefetch.descriptor %tmaB : !tmaB
$STAGE1_PREFETCH$PX_INIT    }
$INIT_SYNC
    %isProducer = arith.cmpi eq, %wg, %c2 : index
    scf.if %isProducer {
      // The producer needs few registers: give them to the consumers.
      nvvm.setmaxregister decrease $PRODUCER_REGS
      %leader = arith.cmpi eq, %tid, %c256 : index
      scf.if %leader {
        scf.for %i = %c0 to %mine step %c1 {
$DECODE
$RING_START$SELECT_MAPS
          %itEnd = scf.for %kt = %c0 to $KTILES_HERE step %c1 iter_args(%j = %j0) -> (index) {
$PRODUCER_SLOT            nvgpu.mbarrier.try_wait.parity %empty[%s], %eparity, %ticks : !bars
$LOAD
            %j1 = arith.addi %j, %c1 : index
            scf.yield %j1 : index
          }
        }
      }
    } else {
      nvvm.setmaxregister increase $CONSUMER_REGS
      %wgOffA = arith.muli %wg, %wgBytesA : index
      %c32 = arith.constant 32 : index
      %lane = arith.remui %tid, %c32 : index
      %laneZero = arith.cmpi eq, %lane, %c0 : index
      // The warpgroup's output staging (one 64x128 half of its rows at a
      // time, or both halves when the epilogue operand is prefetched into
      // it, as 64-row boxes of 128 bytes, 128B-swizzled like the TMA map of
      // C), its named barrier (2 + wg, 128 threads) and the thread that
      // issues its TMA stores.
      %inWg = arith.remui %tid, %c128 : index
      %elected = arith.cmpi eq, %inWg, %c0 : index
      %wgBar2 = arith.addi %wg, %c2 : index
      %wgBar = arith.index_cast %wgBar2 : index to i32
      %wgCount = arith.constant 128 : i32
      %stage0 = arith.addi %pad, %stageOff : index
      %stageWg = arith.muli %wg, %wgStageBytes : index
      %stageBase = arith.addi %stage0, %stageWg : index
      %stage = memref.view %smem[%stageBase][] : !smem to !stageC
      %firstTile = $FIRSTTILE
      scf.for %i = %firstTile to %mine step %cTileStep {
$DECODE
$PX_ISSUE
$RING_START
$ORDER_BEFORE
$LIVE_BEGIN
        // The first k-tile is peeled: its first wgmma ignores the
        // accumulator, so nothing has to zero it.
        %accU = llvm.mlir.undef : !accS
$KTILE_FIRST
        %jNext = arith.addi %j0, %c1 : index
        %accL, %accR, %itEnd = scf.for %kt = %c1 to $KTILES_HERE step %c1 iter_args(%aL = %k0_L, %aR = %k0_R, %j = %jNext) -> (!accS, !accS, index) {
$KTILE
          // One group is left in flight: the previous k-tile's wgmma is
          // done, warp by warp, so lane 0 of each warp that read the slot
          // frees it.
          scf.if %laneZero {
            %jp = arith.subi %j, %c1 : index
            %sp = arith.remui %jp, %cS : index
            %tok = nvgpu.mbarrier.arrive %empty[%sp] : !bars -> !nvgpu.mbarrier.token
$REMOTE_RELEASE_SP
          }
          %j1 = arith.addi %j, %c1 : index
          scf.yield %k_L, %k_R, %j1 : !accS, !accS, index
        }
$ORDER_AFTER
        nvvm.wgmma.wait.group.sync.aligned 0
        %jl = arith.subi %itEnd, %c1 : index
        %sl = arith.remui %jl, %cS : index
        scf.if %laneZero {
          %tokl = nvgpu.mbarrier.arrive %empty[%sl] : !bars -> !nvgpu.mbarrier.token
$REMOTE_RELEASE_SL
        }
$EPILOGUE
$LIVE_END
      }
      // Shared memory must outlive the TMA stores that read it.
      scf.if %elected {
        nvvm.cp.async.bulk.wait_group 0
      }
    }
$EXIT_SYNC
    gpu.return
  }

  // The op's epilogue region; its body is built after parsing.
  func.func private @$KERNEL_epilogue(f32, index, index, index$PX_TYPE$EPI_TYPES) -> $OUT
$STAGE1_FUNCS$PX_FUNCS}
)mlir";

// Ping-pong turns. Consumer c (tiles c, c + 2, ...) starts waiting for a
// tile's k-tiles only once the other consumer has issued the wgmma of the
// tile before (named barrier 5 - c, arrived at by the other on 4 + c). This
// keeps the two from interleaving their wgmma, and keeps every wait at most
// one phase ahead of its full barrier: mbarrier parity waits cannot tell
// phases two apart.
constexpr const char *kPingPongWaitTemplate = R"mlir(
        %ppWait0 = arith.constant 5 : index
        %ppWait1 = arith.subi %ppWait0, %wg : index
        %ppWait = arith.index_cast %ppWait1 : index to i32
        %ppCount = arith.constant 256 : i32
        %ppNotFirst = arith.cmpi ugt, %i, %c0 : index
        scf.if %ppNotFirst {
          nvvm.barrier id = %ppWait number_of_threads = %ppCount
        }
)mlir";

// ... and once this consumer's wgmma are issued, the other may start its
// tile (if it has one: no arrival is left pending at exit).
constexpr const char *kPingPongArriveTemplate = R"mlir(
        %ppArrive0 = arith.constant 4 : index
        %ppArrive1 = arith.addi %ppArrive0, %wg : index
        %ppArrive = arith.index_cast %ppArrive1 : index to i32
        %ppCountA = arith.constant 256 : i32
        %ppNext = arith.addi %i, %c1 : index
        %ppPartner = arith.cmpi ult, %ppNext, %mine : index
        scf.if %ppPartner {
          nvvm.barrier.arrive id = %ppArrive number_of_threads = %ppCountA
        }
)mlir";

// Tile %i of this CTA -> (%b, %m0, %n0). Within a batch element, tiles go
// in groups of GROUP rows of M tiles, m fastest inside a group, so the
// CTAs running at the same time share A rows and B columns in L2 (for
// short N, as in the LCE, this is plain m-fastest order).
constexpr const char *kWsDecodeTemplate = R"mlir(
        %i_s = arith.muli %i, %units : index
$TILE_INDEX
        %b = arith.divui %t, %perBatch : index
        %tb = arith.remui %t, %perBatch : index
        %grp = arith.divui %tb, %perGroup : index
        %inGrp = arith.remui %tb, %perGroup : index
        %firstM = arith.muli %grp, %cGroup : index
        %rowsLeft = arith.subi %cGM, %firstM : index
        %grpRows = arith.minui %rowsLeft, %cGroup : index
        %mOff = arith.remui %inGrp, %grpRows : index
$MB_OF_UNIT
$NB_OF_UNIT
        %n0 = arith.muli %nb, %cBN : index
        %m0 = arith.muli %mb, %cTileM : index
        %aRow = $AROW
)mlir";


// The gathered epilogue operand (read at [g(b), m, n]; see
// BatchMatmulOp::getGatheredTileIndex): at the start of each tile, the
// warpgroup's elected thread waits until TMA has read the previous tile's
// staging, computes g(b) and loads the warpgroup's rows of the operand's
// tile by TMA (PrefetchMode): all 256 columns into the staging tile, or,
// for an f32 operand, its first two 32-column subtiles into the
// warpgroup's two C buffers. The loads run under the tile's wgmma; the
// epilogue then reads the operand from shared memory (no global loads).
constexpr const char *kPrefetchIssueTemplate = R"mlir(
$PX_LIVE        scf.if $PX_COND {
          nvvm.cp.async.bulk.wait_group 0 {read}
          %px_g = func.call @$KERNEL_dependency(%b$EPI_ARGS) : (index$EPI_TYPES) -> index
          %px_rows = arith.constant $ROWSPERWG : index
          %px_r0 = arith.muli %wg, %px_rows : index
          %px_m = arith.addi %m0, %px_r0 : index
$PX_WAIT$PX_LOADS        }
)mlir";

} // namespace

std::string mlir::sc::detail::wgmmaK16StepsText(
    StringRef p, StringRef aDesc, StringRef bDesc, StringRef in, StringRef out,
    StringRef accType, StringRef elementType, const WgmmaHalves &layout,
    bool zeroFirst) {
  std::string text;
  for (int64_t kk = 0; kk < 4; ++kk) {
    std::string stepIn = kk == 0 ? in.str() : llvm::formatv("%{0}_w{1}", p, kk - 1).str();
    std::string stepOut = kk == 3 ? out.str() : llvm::formatv("%{0}_w{1}", p, kk).str();
    text += llvm::formatv(
                R"mlir(
          %{0}_dA{1} = arith.constant {2} : i64
          %{0}_dAk{1} = arith.addi %{4}, %{0}_dA{1} : i64
          %{0}_dB{1} = arith.constant {3} : i64
          %{0}_dBk{1} = arith.addi %{5}, %{0}_dB{1} : i64
          {6} = nvvm.wgmma.mma_async %{0}_dAk{1}, %{0}_dBk{1}, {7}, #nvvm.shape<m = 64, n = {8}, k = 16>, D [<f32>, <{9}>], A [<{10}>, <one>, <{11}>], B [<{10}>, <one>, <{12}>] : {13} -> {13}
)mlir",
                p, kk, layout.aStep * kk, layout.bStep * kk, aDesc, bDesc,
                stepOut, stepIn, layout.n, zeroFirst && kk == 0 ? "zero" : "one",
                elementType, layout.aLayout, layout.bLayout, accType)
                .str();
  }
  return text;
}

/// One k-tile of the warp-specialized consumer, k-tile %`j` of the ring:
/// wait until its slot is full, then the wgmma of the two accumulator
/// halves (see WgmmaHalves) into `accL` / `accR` (results %<p>_L, %<p>_R),
/// as one commit group, then a wait that leaves only this group in flight.
/// Names are prefixed by `p`. When `first`, the first wgmma of each half
/// ignores its accumulator (scale-d 0).
/// The descriptors are built here rather than by nvgpu so that B can be in
/// either layout:
///   N-major (B row-major [K, N]): 64-column chunks of 64 k-rows, wgmma
///     "row" layout for B, 16 k-rows (2048 bytes) per k16 step;
///   K-major (the rhs transposed, [N, K]): n-rows of 64 k, like A, wgmma
///     "col" layout for B, 32 bytes per k16 step.
/// A is K-major (32 bytes per k16 step) and the warpgroup's own rows
/// (%wgOffA), its halves the two 128-column halves of the B tile; or, for
/// the transposed tile (`aPerHalf`), A is E's two MN-major boxes (8 KB
/// apart), one per half, and B is W's whole box.
std::string mlir::sc::detail::consumerKTileText(StringRef p, StringRef j,
                                                StringRef accL, StringRef accR,
                                                bool first,
                                                StringRef elementType,
                                                const WgmmaHalves &h) {
  std::string text = ringPositionText(j, ("%" + p + "_s").str(),
                                      ("%" + p + "_parity").str(), RingWait::Full);
  text += replaceAll(h.aPerHalf ? R"mlir(
          nvgpu.mbarrier.try_wait.parity %full[%$P_s], %$P_parity, %ticks : !bars
          %$P_aOff0 = arith.muli %$P_s, %tileBytesA : index
          %$P_aLOff = arith.addi %$P_aOff0, %pad : index
          %$P_aROff = arith.addi %$P_aLOff, %c8192t : index
          %$P_bOff0 = arith.muli %$P_s, %tileBytesB : index
          %$P_bOff1 = arith.addi %$P_bOff0, %ringB : index
          %$P_bOff = arith.addi %$P_bOff1, %pad : index
)mlir"
                                : R"mlir(
          nvgpu.mbarrier.try_wait.parity %full[%$P_s], %$P_parity, %ticks : !bars
          %$P_aOff0 = arith.muli %$P_s, %tileBytesA : index
          %$P_aOff1 = arith.addi %$P_aOff0, %pad : index
          %$P_aOff = arith.addi %$P_aOff1, %wgOffA : index
          %$P_bOff0 = arith.muli %$P_s, %tileBytesB : index
          %$P_bOff1 = arith.addi %$P_bOff0, %ringB : index
          %$P_bLOff = arith.addi %$P_bOff1, %pad : index
          %$P_bROff = arith.addi %$P_bLOff, %c16384 : index
)mlir",
                     {{"P", p.str()}});
  static const StringRef kOperandsAPerHalf[] = {"aL", "aR", "b"};
  static const StringRef kOperandsBPerHalf[] = {"a", "bL", "bR"};
  for (StringRef name : h.aPerHalf ? ArrayRef<StringRef>(kOperandsAPerHalf)
                                   : ArrayRef<StringRef>(kOperandsBPerHalf))
    text += wgmmaDescriptorText((p + "_" + name + "Desc").str(),
                                (p + "_" + name + "Off").str());
  text += "          nvvm.wgmma.fence.aligned\n";
  for (auto [half, accIn] : {std::pair<StringRef, StringRef>{"L", accL},
                             std::pair<StringRef, StringRef>{"R", accR}}) {
    // The descriptor that differs between the halves carries its name.
    std::string aDesc = h.aPerHalf ? ("a" + half + "Desc").str() : "aDesc";
    std::string bDesc = h.aPerHalf ? "bDesc" : ("b" + half + "Desc").str();
    text += wgmmaK16StepsText((p + half).str(), (p + "_" + aDesc).str(),
                              (p + "_" + bDesc).str(), accIn,
                              llvm::formatv("%{0}_{1}", p, half).str(), "!accS",
                              elementType, h, first);
  }
  text += R"mlir(
          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 1
)mlir";
  return text;
}

namespace {
/// One TMA box of the gathered epilogue operand (%tmaX) at columns
/// %n0 + `col`, rows `m`, batch element `g`, into shared memory at
/// %stageBase + `offset`, on barrier `barrier`. Names prefixed by `p`.
std::string operandBoxLoadText(StringRef p, int64_t offset, int64_t col,
                               StringRef m, StringRef g, StringRef barrier) {
  return llvm::formatv(
             "          %{0}_o = arith.constant {1} : index\n"
             "          %{0}_a = arith.addi %stageBase, %{0}_o : index\n"
             "          %{0}_v = memref.view %smem[%{0}_a][] : !smem to !boxX\n"
             "          %{0}_n0 = arith.constant {2} : index\n"
             "          %{0}_n = arith.addi %n0, %{0}_n0 : index\n"
             "          nvgpu.tma.async.load %tmaX[%{0}_n, {3}, {4}], {5} to "
             "%{0}_v : !tmaX, !cbars -> !boxX\n",
             p, offset, col, m, g, barrier)
      .str();
}

/// The warp-specialized kernel's epilogue, run by each consumer warpgroup
/// on its 64 rows of the tile, one 64x128 accumulator (`accs[h]`, columns
/// [128 h, 128 h + 128)) at a time: the op's epilogue on the registers, the
/// results written to the warpgroup's staging tile in the swizzled layout
/// TMA expects, then one thread stores it with TMA. The stores complete
/// asynchronously while the warpgroup goes on to the next tile's wgmma; the
/// staging tile is only rewritten once TMA has read it.
///
/// wgmma's fragment layout (m64nNk16, f32 accumulators): register i of a
/// thread holds row 16 warp + lane / 4 + 8 ((i / 2) % 2) and column
/// 8 (i / 4) + 2 (lane % 4) + i % 2, so registers 2p and 2p + 1 are
/// neighbouring columns, written as one vector. Staging: boxes of 64 rows x
/// E columns (E = 128 / element bytes), byte (r, c) of a box at
/// 128 r + 16 ((c_bytes / 16) xor (r % 8)) + c_bytes % 16 (swizzle_128b);
/// r % 8 is lane / 4 for every register of a thread.
/// PrefetchMode::WholeTile: the staging holds both halves, already filled
/// with the gathered epilogue operand (kPrefetchIssueTemplate); each pair
/// reads its operand values where it then writes its results.
/// PrefetchMode::Subtiles (an f32 operand): subtile u (32 columns: half
/// u / 4, pairs 8 (u % 4) .. + 8 of it) is in the warpgroup's C buffer
/// u % 2; once every thread has read it, the elected thread loads subtile
/// u + 2 into the same buffer. Each buffer is filled 4 times a tile, so the
/// parity of its u-th use is (u / 2) % 2.
std::string tmaStoreEpilogueText(ArrayRef<std::string> accs, int64_t outBytes,
                                 int64_t rowsPerWarpgroup, PrefetchMode mode) {
  bool prefetched = mode == PrefetchMode::WholeTile;
  bool subtiles = mode == PrefetchMode::Subtiles;
  int64_t boxCols = 128 / outBytes;
  std::string text = fragmentCoordinatesText("se_", rowsPerWarpgroup);
  text += llvm::formatv(R"mlir(
        %se_eltBytes = arith.constant {0} : index
        // The epilogue runs on every register, at indices clamped into the
        // result (its values past the edges are dropped): no branch, so its
        // loads can all be in flight at once.
        %se_cM1 = arith.subi %cM, %c1 : index
        %se_rc0 = arith.minui %se_row0, %se_cM1 : index
        %se_rc8 = arith.minui %se_row8, %se_cM1 : index
        %se_cN2 = arith.subi %cN, %c2 : index
$FLAT_EPI        %se_rb0 = arith.muli %se_rowRel0, %c128 : index
        %se_rb8 = arith.muli %se_rowRel8, %c128 : index
        %se_qBytes = arith.muli %se_q2, %se_eltBytes : index
        %se_qChunk = arith.divui %se_qBytes, %se_c16 : index
        %se_qWithin = arith.remui %se_qBytes, %se_c16 : index
        %se_zero = arith.constant 0.0 : $OUT
)mlir", outBytes).str();
  if (subtiles)
    // The f32 subtiles' swizzle (128-byte rows of 32 columns): the same
    // rows, 4-byte elements.
    text += R"mlir(
        %sx_eltBytes = arith.constant 4 : index
        %sx_c16 = arith.addi %se_c16, %c0 : index
        %sx_quad = arith.addi %se_quad, %c0 : index
        %sx_rb0 = arith.addi %se_rb0, %c0 : index
        %sx_rb8 = arith.addi %se_rb8, %c0 : index
        %sx_qBytes = arith.muli %se_q2, %sx_eltBytes : index
        %sx_qChunk = arith.divui %sx_qBytes, %sx_c16 : index
        %sx_qWithin = arith.remui %sx_qBytes, %sx_c16 : index
        %sx_wgBar0 = arith.muli %wg, %c2 : index
        %sx_subBytes = arith.constant 8192 : index
)mlir";
  for (auto [h, acc] : llvm::enumerate(accs)) {
    if (!prefetched)
      text += llvm::formatv(R"mlir(
        // Columns [{0}, {0} + 128): wait until TMA has read the staging tile.
        scf.if %elected {{
          nvvm.cp.async.bulk.wait_group 0 {{read}
        }
        nvvm.barrier id = %wgBar number_of_threads = %wgCount
)mlir",
                            128 * h)
                  .str();
    else if (h == 0)
      text += R"mlir(
        // The tile's operand values are in the staging tile (the tile's
        // barrier phase: its count among this warpgroup's tiles, mod 2).
        %px_turn = arith.divui %i, %cTileStep : index
        %px_ph = arith.remui %px_turn, %c2 : index
        %px_parity = arith.index_cast %px_ph : index to i1
        nvgpu.mbarrier.try_wait.parity %cbar[%wg], %px_parity, %ticks : !cbars
)mlir";
    for (int64_t p = 0; p < 32; ++p) {
      int64_t colInHalf = 8 * (p / 2);
      int row = 8 * (p % 2);
      std::string pair = llvm::formatv("se_p{0}_{1}", h, p).str();
      // Prefetched: both halves staged, so the pair's place counts the
      // half's columns too; its operand values are read from there.
      std::string pxArgA, pxArgB, pxType;
      if (subtiles) {
        int64_t u = 4 * h + p / 8;
        if (p % 8 == 0)
          text += llvm::formatv(R"mlir(
        // Subtile {0} of the operand, in C buffer {1}.
        %sx_b{0} = arith.constant {1} : index
        %sx_bi{0} = arith.addi %sx_wgBar0, %sx_b{0} : index
        %sx_par{0} = arith.constant {2}
        nvgpu.mbarrier.try_wait.parity %cbar[%sx_bi{0}], %sx_par{0}, %ticks : !cbars
        %sx_off{0} = arith.constant {3} : index
        %sx_at{0} = arith.addi %stageBase, %sx_off{0} : index
        %sx_buf{0} = memref.view %smem[%sx_at{0}][] : !smem to !stageX
)mlir",
                                u, u % 2, (u / 2) % 2 ? "true" : "false",
                                64 * 128 * outBytes + (u % 2) * 8192)
                      .str();
        std::string xpair = llvm::formatv("sx_p{0}_{1}", h, p).str();
        text += swizzledPairIndexText(xpair, "sx_", 8 * ((p / 2) % 4), row, 4);
        text += llvm::formatv(
                    "        %se_c{0}_{1} = vector.load %sx_buf{3}[%{2}_i] : "
                    "!stageX, vector<2xf32>\n"
                    "        %se_ca{0}_{1} = vector.extract %se_c{0}_{1}[0] : "
                    "f32 from vector<2xf32>\n"
                    "        %se_cb{0}_{1} = vector.extract %se_c{0}_{1}[1] : "
                    "f32 from vector<2xf32>\n",
                    h, p, xpair, u)
                    .str();
        pxArgA = llvm::formatv(", %se_ca{0}_{1}", h, p).str();
        pxArgB = llvm::formatv(", %se_cb{0}_{1}", h, p).str();
        pxType = ", f32";
      }
      if (prefetched) {
        text += swizzledPairIndexText(pair, "se_", 128 * h + colInHalf, row,
                                      outBytes);
        text += llvm::formatv(
                    "        %se_c{0}_{1} = vector.load %stage[%{2}_i] : "
                    "!stageC, vector<2x$OUT>\n"
                    "        %se_ca{0}_{1} = vector.extract %se_c{0}_{1}[0] : "
                    "$OUT from vector<2x$OUT>\n"
                    "        %se_cb{0}_{1} = vector.extract %se_c{0}_{1}[1] : "
                    "$OUT from vector<2x$OUT>\n",
                    h, p, pair)
                    .str();
        pxArgA = llvm::formatv(", %se_ca{0}_{1}", h, p).str();
        pxArgB = llvm::formatv(", %se_cb{0}_{1}", h, p).str();
        pxType = ", $OUT";
      }
      text += llvm::formatv(R"mlir(
        %se_xa{0}_{1} = llvm.extractvalue {3}[{2}] : !accS
        %se_xb{0}_{1} = llvm.extractvalue {3}[{4}] : !accS
        %se_no{0}_{1} = arith.constant {5} : index
        %se_n{0}_{1} = arith.addi %se_col, %se_no{0}_{1} : index
        %se_inN{0}_{1} = arith.cmpi ult, %se_n{0}_{1}, %cN : index
        %se_in{0}_{1} = arith.andi %se_in{6}, %se_inN{0}_{1} : i1
        %se_cl{0}_{1} = arith.minui %se_n{0}_{1}, %se_cN2 : index
        %se_cr{0}_{1} = arith.addi %se_cl{0}_{1}, %c1 : index
        %se_ea{0}_{1} = func.call @$KERNEL_epilogue(%se_xa{0}_{1}, $EPI_B{6}, $EPI_M{6}, %se_cl{0}_{1}{7}$EPI_ARGS) : (f32, index, index, index{9}$EPI_TYPES) -> $OUT
        %se_eb{0}_{1} = func.call @$KERNEL_epilogue(%se_xb{0}_{1}, $EPI_B{6}, $EPI_M{6}, %se_cr{0}_{1}{8}$EPI_ARGS) : (f32, index, index, index{9}$EPI_TYPES) -> $OUT
        %se_ya{0}_{1} = arith.select %se_in{0}_{1}, %se_ea{0}_{1}, %se_zero : $OUT
        %se_yb{0}_{1} = arith.select %se_in{0}_{1}, %se_eb{0}_{1}, %se_zero : $OUT
        %se_v{0}_{1} = vector.from_elements %se_ya{0}_{1}, %se_yb{0}_{1} : vector<2x$OUT>
)mlir",
                            h, p, 2 * p, acc, 2 * p + 1,
                            128 * h + colInHalf, row, pxArgA, pxArgB, pxType)
                  .str();
      if (!prefetched)
        text += swizzledPairIndexText(pair, "se_", colInHalf, row, outBytes);
      // A pair sits at a multiple of its size: one store, not two.
      text += llvm::formatv("        vector.store %se_v{0}_{1}, %stage[%{2}_i] "
                            "{{alignment = {3} : i64} : !stageC, vector<2x$OUT>\n",
                            h, p, pair, 2 * outBytes)
                  .str();
      int64_t next = 4 * h + p / 8 + 2;
      if (subtiles && p % 8 == 7 && next < 8)
        text += llvm::formatv(R"mlir(
        // Every thread has read C buffer {0}: subtile {1} goes there.
        nvvm.barrier id = %wgBar number_of_threads = %wgCount
        scf.if %elected {{
          %sx_g{1} = func.call @$KERNEL_dependency(%b$EPI_ARGS) : (index$EPI_TYPES) -> index
          %sx_rows{1} = arith.constant $ROWSPERWG : index
          %sx_r{1} = arith.muli %wg, %sx_rows{1} : index
          %sx_m{1} = arith.addi %m0, %sx_r{1} : index
          %sx_nb{1} = arith.constant {0} : index
          %sx_nbi{1} = arith.addi %sx_wgBar0, %sx_nb{1} : index
          nvgpu.mbarrier.arrive.expect_tx %cbar[%sx_nbi{1}], %sx_subBytes : !cbars
{2}        }
)mlir",
                              next % 2, next,
                              operandBoxLoadText(
                                  "sx_l" + std::to_string(next),
                                  64 * 128 * outBytes + (next % 2) * 8192,
                                  32 * next, "%sx_m" + std::to_string(next),
                                  "%sx_g" + std::to_string(next),
                                  "%cbar[%sx_nbi" + std::to_string(next) + "]"))
                    .str();
    }
    text += kStagingStoreOpenText;
    for (int64_t j = 0; j < 128 / boxCols; ++j)
      text += llvm::formatv(R"mlir(
          %se_bb{0}_{1} = arith.constant {2} : index
          %se_ba{0}_{1} = arith.addi %stageBase, %se_bb{0}_{1} : index
          %se_box{0}_{1} = memref.view %smem[%se_ba{0}_{1}][] : !smem to !boxC
          %se_bn{0}_{1} = arith.constant {3} : index
          %se_nc{0}_{1} = arith.addi %n0, %se_bn{0}_{1} : index
          nvgpu.tma.async.store %se_box{0}_{1} to %tmaC[%se_nc{0}_{1}, %se_m$CCOORD] : !boxC -> !tmaC
)mlir",
                            h, j, (prefetched ? h * 16384 : 0) + j * 8192,
                            128 * h + j * boxCols)
                  .str();
    text += R"mlir(
          nvvm.cp.async.bulk.commit.group
        }
)mlir";
  }
  return text;
}
/// The loads of one k-tile with multicast: A (this CTA's rows) locally;
/// of B's four 64-column chunks, this CTA loads chunks 2 r and 2 r + 1 and
/// multicasts them to both CTAs of the cluster (mask 0b11), so each CTA's
/// full barrier sees all of B (its expect_tx counts the whole slot).
std::string multicastLoadText(bool kMajorB) {
  std::string text = R"mlir(
        %mc_s = arith.remui %j, %cS : index
        %mc_k = arith.muli %kt, %c64 : index
        %mc_aOff0 = arith.muli %mc_s, %tileBytesA : index
        %mc_aOff = arith.addi %mc_aOff0, %pad : index
        %mc_bOff0 = arith.muli %mc_s, %tileBytesB : index
        %mc_bOff1 = arith.addi %mc_bOff0, %ringB : index
        %mc_bOff = arith.addi %mc_bOff1, %pad : index
        %mc_va = memref.view %smem[%mc_aOff][] : !smem to !tileA
        nvgpu.mbarrier.arrive.expect_tx %full[%mc_s], %txBytes : !bars
        nvgpu.tma.async.load %tmaA[%mc_k, %aRow$ACOORD], %full[%mc_s] to %mc_va : !tmaA, !bars -> !tileA
        %mc_mask = arith.constant 3 : i16
        %mc_r2 = arith.muli %rank, %c2 : index
)mlir";
  for (int jj = 0; jj < 2; ++jj)
    text += llvm::formatv(R"mlir(
        %mc_c{0}a = arith.constant {0} : index
        %mc_c{0} = arith.addi %mc_r2, %mc_c{0}a : index
        %mc_cb{0}a = arith.constant 8192 : index
        %mc_cb{0} = arith.muli %mc_c{0}, %mc_cb{0}a : index
        %mc_bo{0} = arith.addi %mc_bOff, %mc_cb{0} : index
        %mc_cn{0} = arith.muli %mc_c{0}, %c64 : index
        %mc_n{0} = arith.addi %n0, %mc_cn{0} : index
        %mc_vb{0} = memref.view %smem[%mc_bo{0}][] : !smem to !tileB
        nvgpu.tma.async.load %tmaB[{1}$BCOORD], %full[%mc_s] to %mc_vb{0} multicast_mask = %mc_mask : !tmaB, !bars -> !tileB
)mlir",
                          jj,
                          kMajorB ? llvm::formatv("%mc_k, %mc_n{0}", jj).str()
                                  : llvm::formatv("%mc_n{0}, %mc_k", jj).str())
                .str();
  return text;
}

// Flat rows: a batched lhs [B, M, K] times a shared rhs is one GEMM of
// B * M rows, read and written through 2-D tensor maps, so tiles run
// across batch elements: no partial tile per batch element, and the rhs is
// read once per tile of the flattened rows.
constexpr const char *kFlatRowsTemplate = R"mlir(
    %mPerBatch = arith.constant $M : index
    %cM = arith.muli %batch, %mPerBatch : index
    %flatTiles0 = arith.addi %cM, %cTileM : index
    %flatTiles1 = arith.subi %flatTiles0, %c1 : index
    %flatTiles = arith.divui %flatTiles1, %cTileM : index
$FLAT_GM)mlir";

// The epilogue sees (batch element, row) of the flat row.
constexpr const char *kFlatRowsEpilogueTemplate = R"mlir(
        %se_fb0 = arith.divui %se_rc0, %mPerBatch : index
        %se_fm0 = arith.remui %se_rc0, %mPerBatch : index
        %se_fb8 = arith.divui %se_rc8, %mPerBatch : index
        %se_fm8 = arith.remui %se_rc8, %mPerBatch : index
)mlir";

} // namespace

/// The epilogue operand the kernel prefetches by TMA, if any, and how: one
/// read only at [g(b), m, n] (a tile reads one tile of it, as the IKBO
/// gather-add reads the request GEMM's result), with the result's M and N,
/// in a kernel with a 16-bit result whose tiles each belong to one batch
/// element. Of the result's type: the whole tile into the staging; f32:
/// subtiles through two C buffers per warpgroup. The transposed tile, CTA
/// pairs (`multicast`) and a multi-stage kernel (`stage1`) take fewer.
static std::optional<std::pair<unsigned, PrefetchMode>>
prefetchedOperand(BatchMatmulOp op, bool tilesInOneBatch, bool transposed,
                  bool multicast, const GemmStageOne *stage1) {
  RankedTensorType resultType = op.getType();
  Block *body = epilogueBlock(op);
  if (!body || !tilesInOneBatch || resultType.getRank() != 3 ||
      resultType.getElementType().getIntOrFloatBitWidth() != 16)
    return std::nullopt;
  for (auto [i, in] : llvm::enumerate(op.getEpilogueIns())) {
    auto t = dyn_cast<RankedTensorType>(in.getType());
    std::string why;
    if (!t || t.getRank() != 3 ||
        t.getDimSize(1) != resultType.getDimSize(1) ||
        t.getDimSize(2) != resultType.getDimSize(2) ||
        !BatchMatmulOp::getGatheredTileIndex(*body, i, why))
      continue;
    PrefetchMode mode;
    if (t.getElementType() == resultType.getElementType())
      mode = PrefetchMode::WholeTile;
    else if (t.getElementType().isF32())
      mode = PrefetchMode::Subtiles;
    else
      continue;
    // The transposed tile brings in only an f32 operand (in chunks); a
    // 16-bit one is read by the epilogue function.
    if (transposed && mode != PrefetchMode::Subtiles)
      return std::nullopt;
    // With multicast the second tile of a pair may lie past M and skip its
    // epilogue: the subtiles' barrier phases do not count tiles (each C
    // buffer goes through two phases a tile), the whole tile's do, so only
    // the subtiles are prefetched there.
    if (multicast && mode == PrefetchMode::WholeTile)
      return std::nullopt;
    // In a multi-stage kernel only stage 1's result is prefetched (its
    // tile's readiness is awaited first, and the dependency function is
    // stage 1's), and only in subtiles: stage-1 tiles skip the prefetch,
    // and the subtiles' barrier phases do not count tiles.
    if (stage1 && (in != BatchMatmulOp(stage1->op).getResult() ||
                   mode != PrefetchMode::Subtiles))
      return std::nullopt;
    return std::make_pair(static_cast<unsigned>(i), mode);
  }
  return std::nullopt;
}

std::optional<unsigned>
mlir::sc::detail::templatePrefetchedOperand(BatchMatmulOp op, bool multicast,
                                            bool transposed) {
  bool flatRows = op.getLhs().getType().getRank() == 3 &&
                  op.getRhs().getType().getRank() == 2;
  auto prefetch = prefetchedOperand(op, !flatRows, transposed, multicast,
                                    /*stage1=*/nullptr);
  return prefetch ? std::optional<unsigned>(prefetch->first) : std::nullopt;
}

KernelLaunch mlir::sc::detail::warpSpecializedLaunch(BatchMatmulOp op,
                                                     StringRef kernelName,
                                                     const GemmBinding &binding,
                                                     const WsLaunchShape &shape) {
  RankedTensorType resultType = op.getType();
  Type elementType = op.getLhs().getType().getElementType();
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  int64_t outBytes = resultType.getElementType().getIntOrFloatBitWidth() / 8;
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 384;
  // Persistent: one CTA per SM. Grid: one per unit of work (a tile, a
  // pair of tiles for ping-pong). With rows flattened over the batch, the
  // tile count is ceil(B m / tileM) x N tiles: approximated by B m N-tiles
  // / tileM (the kernel's loop then walks its tiles with a stride of the
  // CTA count, so any count is correct).
  int64_t nTiles = llvm::divideCeil(n, shape.tileN);
  if (shape.persistent) {
    launch.grid[0] = LaunchDim::sym("SMS");
  } else {
    LaunchDim batches = binding.batchOf(resultType);
    int64_t perBatchNumerator = shape.flatRows
                                    ? m * nTiles
                                    : llvm::divideCeil(m, shape.tileM) * nTiles;
    int64_t divisor = shape.flatRows ? shape.tileM * shape.tilesPerUnit
                                     : shape.tilesPerUnit;
    if (batches.symbol.empty()) {
      launch.grid[0] = LaunchDim::of(
          llvm::divideCeil(batches.constant * perBatchNumerator, divisor));
    } else {
      launch.grid[0] = batches.times(perBatchNumerator);
      launch.grid[0].divisor = divisor;
    }
  }
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = LaunchDim::of(1);
  launch.sharedBytes = shape.sharedBytes;
  std::vector<LaunchParam> params = tmaKernelParams(op, binding, shape.aBoxRows);
  LaunchDim batchDim = binding.batchOf(resultType);
  LaunchDim flatM = batchDim.times(m); // [B * M] rows
  if (shape.flatRows) {
    // A as one [B * M, K] matrix.
    int64_t bytes = elementType.getIntOrFloatBitWidth() / 8;
    params[0].dims = {LaunchDim::of(k), flatM};
    params[0].stridesBytes = {LaunchDim::of(k * bytes)};
    params[0].box = {kTileK, shape.tileM};
  }
  launch.params.assign(params.begin(), params.end());
  // C's tensor map for the TMA stores: boxes of 64 rows x 128 bytes.
  LaunchParam c;
  c.kind = LaunchParam::Kind::Tma;
  c.tensor = binding.result;
  if (shape.flatRows) {
    c.dims = {LaunchDim::of(n), flatM};
    c.stridesBytes = {LaunchDim::of(n * outBytes)};
    c.box = {128 / outBytes, 64};
  } else {
    c.dims = {LaunchDim::of(n), LaunchDim::of(m), batchDim};
    c.stridesBytes = {LaunchDim::of(n * outBytes),
                      LaunchDim::of(m * n * outBytes)};
    // (Transposed: the epilogue stores 8 rows at a time.)
    c.box = {128 / outBytes, shape.transposed ? 8 : 64, 1};
  }
  launch.params.push_back(c);
  if (std::optional<unsigned> prefetched = shape.prefetched) {
    // The gathered operand's tensor map: [U, M, N] in boxes like C's.
    auto xType = cast<RankedTensorType>(op.getEpilogueIns()[*prefetched].getType());
    LaunchParam x;
    x.kind = LaunchParam::Kind::Tma;
    x.tensor = binding.epilogueIns[*prefetched];
    // Bounded by its own batch (U), so a g(b) out of range reads zeros.
    LaunchDim xBatch = *prefetched < binding.epilogueInBatches.size()
                           ? binding.epilogueInBatches[*prefetched]
                           : binding.batchOf(xType);
    x.dims = {LaunchDim::of(n), LaunchDim::of(m), xBatch};
    int64_t xBytes = xType.getElementType().getIntOrFloatBitWidth() / 8;
    x.stridesBytes = {LaunchDim::of(n * xBytes), LaunchDim::of(m * n * xBytes)};
    x.box = {128 / xBytes, shape.transposed ? 32 : 64, 1};
    launch.params.push_back(x);
  }
  return launch;
}

FailureOr<KernelLaunch> mlir::sc::detail::buildWarpSpecializedGemmKernel(
    BatchMatmulOp op, gpu::GPUModuleOp gpuModule, StringRef kernelName,
    const GemmBinding &binding, StringRef schedule, bool multicast,
    const GemmStageOne *stage1, const WarpRoles &roles) {
  RankedTensorType resultType = op.getType();
  Type elementType = op.getLhs().getType().getElementType();
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  bool transposed = schedule == "transposed";
  // The transposed tile takes ping-pong turns.
  bool pingpong = schedule == "pingpong" || transposed;
  if (transposed && (stage1 || lhsBatched || op.getTransposeRhs() ||
                     (multicast && !transposedTilesPair(n))))
    return op.emitError()
           << "internal error: the transposed tile takes a shared lhs and an "
              "N-major rhs, in a kernel of its own";
  // Tiles over the rows of all batch elements when only the lhs is batched.
  bool flatRows = lhsBatched && !rhsBatched && !stage1;
  // Cooperative: both consumers on one 128x256 tile (64 rows each).
  // Ping-pong: each consumer on its own 64x256 tile, alternating, so one's
  // epilogue runs while the other's wgmma does. Transposed: each consumer
  // on its own tile of TM rows (m) by 128 columns (n), alternating; the
  // slot's "A" part holds E's boxes, its "B" part W's.
  int64_t tileM = transposed ? BatchMatmulOp::getTransposedTileRows(m)
                  : pingpong ? 64
                             : 128;
  int64_t tileN = transposed ? 128 : 256;
  int64_t tileBytesA = transposed ? tileN * kTileK * 2 : tileM * kTileK * 2;
  int64_t tileBytesB = transposed ? tileM * kTileK * 2 : kTileK * 256 * 2;
  int64_t slotBytes = tileBytesA + tileBytesB;
  // Transposed with CTA pairs: W's box in two overlapping 8-row-aligned
  // halves, one loaded by each CTA of the pair and multicast to both (both
  // land in each CTA, the rows they share twice).
  int64_t wHalfRows =
      transposed && multicast ? int64_t(llvm::alignTo(tileM / 2, 8)) : 0;
  // Ring slots and, per consumer warpgroup, a 64x128 output staging tile
  // (16 KB for 16-bit results, 32 KB for f32), within the 227 KB.
  int64_t outBytes = resultType.getElementType().getIntOrFloatBitWidth() / 8;
  const int64_t groupM = roles.group;
  // One CTA per tile needs no tile ever waiting for another CTA: not with
  // the multi-stage kernel (stage 2 waits for stage 1's tiles) nor with
  // clusters (CTA pairs).
  if (!roles.persistent && (stage1 || multicast))
    return op.emitError()
           << "a grid schedule (one CTA per tile) is not available for "
           << (stage1 ? "the multi-stage GEMM kernel" : "TMA multicast")
           << ": make the tile loop persistent (sc-persistent; sparcast-aot "
              "--ws-group > 0)";
  int64_t halfBytes = 64 * 128 * outBytes;
  // A gathered epilogue operand is loaded by TMA into the staging, which
  // then holds both halves of the warpgroup's rows.
  auto prefetch = prefetchedOperand(op, !flatRows, transposed, multicast, stage1);
  std::optional<unsigned> prefetched;
  PrefetchMode mode = PrefetchMode::None;
  if (prefetch)
    std::tie(prefetched, mode) = *prefetch;
  // Whole tile: both halves staged (2 x 16 KB); subtiles: the 16 KB half
  // staging and two 8 KB C buffers.
  // Transposed: two 32 x 64 staging boxes (4 KB at 16 bits) and two C
  // buffers of 32 x 128 f32.
  int64_t wgStageBytes =
      transposed ? 2 * 32 * 128 + (prefetched ? 2 * 16384 : 0)
      : mode == PrefetchMode::WholeTile ? 2 * halfBytes
      : mode == PrefetchMode::Subtiles  ? halfBytes + 2 * 8192
                                        : halfBytes;
  int64_t maxStages =
      (227 * 1024 - 2 * wgStageBytes - kSmemAlignReserve - 256) / slotBytes;
  // The kernel-level IR may ask for fewer (never more than fit).
  if (roles.stages > maxStages)
    return op.emitError() << "the kernel-level IR asks for " << roles.stages
                          << " ring stages; " << maxStages << " fit";
  int64_t stages = roles.stages > 0 ? roles.stages : maxStages;
  int64_t kTiles = llvm::divideCeil(k, kTileK);
  int64_t ringBytes = stages * slotBytes;
  int64_t sharedBytes = ringBytes + 2 * wgStageBytes + kSmemAlignReserve;

  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["PRODUCER_REGS"] = std::to_string(roles.producerRegs);
  values["CONSUMER_REGS"] = std::to_string(roles.consumerRegs);
  values["T"] = typeToString(elementType);
  values["OUT"] = typeToString(resultType.getElementType());
  values["CTYPE"] = typeToString(memrefOf(resultType));
  values["M"] = std::to_string(m);
  values["N"] = std::to_string(n);
  values["ACCM"] = "64";
  values["BN"] = "128";
  values["GROUP"] = std::to_string(groupM);
  values["ACCSTRUCT"] = f32StructType(transposed ? tileM / 2 : 64);
  values["TILEN"] = std::to_string(tileN);
  values["BSLOTBYTES"] = std::to_string(tileBytesB);
  values["CROWS"] = transposed ? "8" : "64";
  values["WGSTAGEBYTES"] = std::to_string(wgStageBytes);
  // The output staging: both halves when the whole operand tile is staged
  // there, else one (the C buffers follow it).
  values["STAGEELEMS"] = std::to_string(
      transposed ? 2 * 32 * 128 / outBytes
                 : (mode == PrefetchMode::WholeTile ? 2 : 1) * halfBytes / outBytes);
  values["EOUT"] = std::to_string(128 / outBytes);
  // Transposed with multicast: the pairs go along N (two N tiles sharing
  // W's rows); GN counts the pairs.
  values["GN"] = std::to_string(transposed && multicast
                                    ? llvm::divideCeil(n, 2 * tileN)
                                    : llvm::divideCeil(n, tileN));
  // With multicast, tiles are walked in pairs along M (one per CTA of the
  // cluster): GM counts the pairs.
  int64_t mTiles = llvm::divideCeil(m, tileM);
  values["GM"] = std::to_string(multicast && !transposed
                                    ? llvm::divideCeil(mTiles, 2)
                                    : mTiles);
  values["TILEM"] = std::to_string(tileM);
  values["ABYTES"] = std::to_string(tileBytesA);
  values["TX"] = std::to_string(
      wHalfRows ? tileBytesA + 2 * wHalfRows * kTileK * 2 : slotBytes);
  // (Transposed: E's 64 x 64 box of the warpgroup's columns.)
  values["WGBYTESA"] = pingpong ? "0" : "8192";
  values["TILESTEP"] = pingpong ? "2" : "1";
  values["FIRSTTILE"] = pingpong ? "arith.addi %wg, %c0 : index"
                                 : "arith.addi %c0, %c0 : index";
  // Lane 0 of each warp that reads a slot frees it.
  // Lane 0 of each consumer warp that reads a slot frees it, in both CTAs
  // of the cluster with multicast (the peer's loads write this slot too).
  values["RELEASES"] = std::to_string((pingpong ? 4 : 8) * (multicast ? 2 : 1));
  values["KT"] = std::to_string(kTiles);
  values["S"] = std::to_string(stages);
  values["RINGB"] = std::to_string(stages * tileBytesA);
  values["STAGEOFF"] = std::to_string(ringBytes);
  values["BBOX"] = rhsBatched ? "1x64x64" : "64x64";
  values["BCOORD"] = rhsBatched ? ", %b" : "";
  // A batched A is read through a 3-D map [B, M, K]: rows past M are
  // zero-filled instead of read from the next batch element.
  values["AROW"] = "arith.addi %m0, %c0 : index";
  int64_t aBoxRows = wHalfRows ? wHalfRows : tileM;
  values["ABOX"] =
      (lhsBatched && !flatRows ? "1x" : "") + std::to_string(aBoxRows) + "x64";
  values["ACOORD"] = lhsBatched && !flatRows ? ", %b" : "";
  epilogueText(op, values);
  llvm::StringMap<std::string> pieces;
  pieces["TYPES"] = kTmaTypesTemplate;
  pieces["CASTS"] = kTmaCastsTemplate;
  bool kMajorB = op.getTransposeRhs();
  pieces["LOAD"] =
      transposed ? transposedTileLoadText(wHalfRows ? tileM - wHalfRows : 0)
      : multicast ? multicastLoadText(kMajorB)
                : loadText("ws", "j", "kt", "full", 256, kMajorB,
                           stage1 ? "tmaAt" : "tmaA", stage1 ? "tmaBt" : "tmaB");
  pieces["CLUSTER_ATTR"] =
      multicast ? ", nvvm.cluster_dim = array<i32: 2, 1, 1>" : "";
  pieces["UNITS"] =
      multicast
          ? "    // A cluster of two CTAs works on pairs of M tiles; CTA rank r\n"
            "    // takes M tile 2 pair + r.\n"
            "    %rank32 = nvvm.read.ptx.sreg.cluster.ctarank : i32\n"
            "    %rank = arith.index_cast %rank32 : i32 to index\n"
            "    %unit = arith.divui %cta, %c2 : index\n"
            "    %units = arith.divui %ctas, %c2 : index\n"
            "    %peer0 = arith.constant 1 : i32\n"
            "    %peer = arith.subi %peer0, %rank32 : i32\n"
          : "    %unit = arith.addi %cta, %c0 : index\n"
            "    %units = arith.addi %ctas, %c0 : index\n";
  pieces["DECODE"] = replaceAll(
      kWsDecodeTemplate,
      {{"TILE_INDEX", stage1 ? multiStageTileIndexText()
                             : "        %t = arith.addi %unit, %i_s : index"},
       {"NB_OF_UNIT",
        transposed && multicast
            ? "        %nbPair = arith.divui %inGrp, %grpRows : index\n"
              "        %nbPair2 = arith.muli %nbPair, %c2 : index\n"
              "        %nb = arith.addi %nbPair2, %rank : index"
            : "        %nb = arith.divui %inGrp, %grpRows : index"},
       {"MB_OF_UNIT",
        multicast && !transposed
                  ? "        %mbPair = arith.addi %firstM, %mOff : index\n"
                    "        %mbPair2 = arith.muli %mbPair, %c2 : index\n"
                    "        %mb = arith.addi %mbPair2, %rank : index"
                  : "        %mb = arith.addi %firstM, %mOff : index"}});
  // Barriers initialized in one CTA are used by its peer: make the init
  // visible cluster-wide before anyone arrives or loads.
  pieces["INIT_SYNC"] =
      multicast ? "    nvvm.fence.mbarrier.init\n"
                  "    nvvm.cluster.arrive\n"
                  "    nvvm.cluster.wait\n"
                : "    gpu.barrier\n";
  // No CTA leaves while its peer may still write into it or arrive on it.
  pieces["EXIT_SYNC"] = multicast ? "    nvvm.cluster.arrive\n"
                                    "    nvvm.cluster.wait\n"
                                  : "";
  auto remoteRelease = [&](StringRef slot) -> std::string {
    if (!multicast)
      return "";
    return llvm::formatv(
               "            %r_{0} = nvgpu.mbarrier.get %empty[{1}] : !bars -> i32\n"
               "            nvvm.inline_ptx \"{{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; "
               "mbarrier.arrive.shared::cluster.b64 _, [ra]; }\" "
               "ro(%r_{0}, %peer : i32, i32)\n",
               slot.drop_front(), slot)
        .str();
  };
  // With multicast, a tile entirely past M (the second of a pair when M has
  // an odd number of tiles) only takes part in the pair's loads: its
  // consumer waits for each slot and frees it, in both CTAs.
  // (Transposed pairs along N: N is a multiple of the pair, every tile
  // lives.)
  bool deadTiles = multicast && !transposed;
  pieces["LIVE_BEGIN"] = deadTiles ? "        %tileLive = arith.cmpi ult, %m0, %cM : index\n"
                                     "        scf.if %tileLive {\n"
                                   : "";
  pieces["LIVE_END"] =
      deadTiles ? "        } else {\n" +
                      drainSlotsText("%kTiles", "%j0", remoteRelease("%ds")) +
                      (pingpong ? kPingPongArriveTemplate : "") + "        }\n"
                : "";
  pieces["REMOTE_RELEASE_SP"] = remoteRelease("%sp");
  pieces["REMOTE_RELEASE_SL"] = remoteRelease("%sl");
  pieces["DESC_CONSTANTS"] =
      wgmmaDescriptorConstantsText() +
      (transposed ? transposedTileConstantsText(tileM) : std::string());
  pieces["PRODUCER_SLOT"] = ringPositionText("%j", "%s", "%eparity", RingWait::Empty);
  pieces["CTA_SHARE"] = ctaShareText("", "%numTiles");
  pieces["SMEM_REGION"] = smemRegionText();
  std::string element = typeToString(elementType);
  WgmmaHalves halves;
  if (transposed) {
    halves = transposedTileHalves(tileM);
  } else {
    halves.bStep = kMajorB ? 2 : 128;
    halves.bLayout = kMajorB ? "col" : "row";
  }
  pieces["KTILE_FIRST"] = consumerKTileText("k0", "%j0", "%accU", "%accU",
                                            /*first=*/true, element, halves);
  pieces["KTILE"] = consumerKTileText("k", "%j", "%aL", "%aR",
                                      /*first=*/false, element, halves);
  pieces["ORDER_BEFORE"] = pingpong ? kPingPongWaitTemplate : "";
  pieces["ORDER_AFTER"] = pingpong ? kPingPongArriveTemplate : "";
  int64_t rowsPerWarpgroup = pingpong ? 0 : 64;
  pieces["CM_DEF"] = flatRows ? "" : "    %cM = arith.constant $M : index";
  pieces["CGM_DEF"] = flatRows ? "" : "    %cGM = arith.constant $GM : index";
  pieces["AFTER_BATCH"] = flatRows ? kFlatRowsTemplate : "";
  // With multicast the M tiles go in pairs: GM counts the pairs.
  pieces["FLAT_GM"] =
      multicast ? "    %flatPairs0 = arith.addi %flatTiles, %c1 : index\n"
                  "    %cGM = arith.divui %flatPairs0, %c2 : index\n"
                : "    %cGM = arith.addi %flatTiles, %c0 : index\n";
  values["CLEAD"] = flatRows ? "" : "1x";
  values["CCOORD"] = flatRows ? "" : ", %b";
  values["EPI_B0"] = flatRows ? "%se_fb0" : "%b";
  values["EPI_B8"] = flatRows ? "%se_fb8" : "%b";
  values["EPI_M0"] = flatRows ? "%se_fm0" : "%se_rc0";
  values["EPI_M8"] = flatRows ? "%se_fm8" : "%se_rc8";
  values["FLAT_EPI"] = flatRows ? kFlatRowsEpilogueTemplate : "";
  pieces["EPILOGUE"] =
      transposed ? transposedTileEpilogueText(prefetched.has_value(), tileM)
                 : tmaStoreEpilogueText({"%accL", "%accR"}, outBytes,
                                        rowsPerWarpgroup, mode);
  for (StringRef key : {"PX_PARAM", "PX_CAST", "PX_BARS", "PX_INIT",
                        "PX_ISSUE", "PX_FUNCS", "PX_TYPES"})
    pieces[key] = "";
  values["PX_TYPE"] = "";
  values["CBARS"] = mode == PrefetchMode::Subtiles ? "4" : "2";
  if (prefetched) {
    bool subtiles = mode == PrefetchMode::Subtiles;
    // The operand's tensor map and boxes: C's for a whole tile; 64 rows x
    // 32 f32 columns (128 bytes) for subtiles.
    pieces["PX_TYPES"] =
        transposed
            ? "!tmaX = !nvgpu.tensormap.descriptor<tensor = memref<1x32x32xf32, 3>, "
              "swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>\n"
              "!boxX = memref<1x32x32xf32, #gpu.address_space<workgroup>>\n"
              "!stageXT = memref<" + std::to_string(wgStageBytes / 4) +
                  "xf32, #gpu.address_space<workgroup>>\n"
        : subtiles ? "!tmaX = !nvgpu.tensormap.descriptor<tensor = memref<1x64x32xf32, 3>, "
                   "swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>\n"
                   "!boxX = memref<1x64x32xf32, #gpu.address_space<workgroup>>\n"
                   "!stageX = memref<2048xf32, #gpu.address_space<workgroup>>\n"
                 : "!tmaX = !tmaC\n!boxX = !boxC\n";
    pieces["PX_PARAM"] = ", %tmaXp: !llvm.ptr";
    pieces["PX_CAST"] =
        "    %tmaX = builtin.unrealized_conversion_cast %tmaXp : !llvm.ptr to !tmaX\n";
    pieces["PX_BARS"] = "    %cbar = nvgpu.mbarrier.create -> !cbars\n";
    std::string init;
    for (int64_t i = 0; i < (subtiles ? 4 : 2); ++i)
      init += llvm::formatv("      %cbarI{0} = arith.constant {0} : index\n"
                            "      nvgpu.mbarrier.init %cbar[%cbarI{0}], %c1 : !cbars\n",
                            i)
                  .str();
    pieces["PX_INIT"] = init + "      nvgpu.tma.prefetch.descriptor %tmaX : !tmaX\n";
    std::string loads;
    if (!subtiles) {
      loads = "          nvgpu.mbarrier.arrive.expect_tx %cbar[%wg], %wgStageBytes : !cbars\n";
      for (int64_t j = 0; j < 256 * outBytes / 128; ++j)
        loads += operandBoxLoadText("px_" + std::to_string(j), j * 8192,
                                    j * 128 / outBytes, "%px_m", "%px_g",
                                    "%cbar[%wg]");
    } else {
      // Subtiles 0 and 1 into C buffers 0 and 1 (barriers 2 wg + u).
      loads = "          %px_sub = arith.constant 8192 : index\n"
              "          %px_b0 = arith.muli %wg, %c2 : index\n";
      for (int64_t u = 0; u < 2; ++u)
        loads += llvm::formatv(
                     "          %px_u{0} = arith.constant {0} : index\n"
                     "          %px_bi{0} = arith.addi %px_b0, %px_u{0} : index\n"
                     "          nvgpu.mbarrier.arrive.expect_tx %cbar[%px_bi{0}], %px_sub : !cbars\n",
                     u)
                     .str() +
                 operandBoxLoadText("px_" + std::to_string(u), halfBytes + u * 8192,
                                    32 * u, "%px_m", "%px_g",
                                    "%cbar[%px_bi" + std::to_string(u) + "]");
    }
    // A tile past M (multicast pairs) loads nothing: its epilogue, which
    // would wait for the loads, does not run. Stage-1 tiles of a
    // multi-stage kernel load nothing; stage-2 tiles wait for the stage-1
    // tile first.
    std::string live =
        multicast ? "        %px_live = arith.cmpi ult, %m0, %cM : index\n"
                    "        %px_issue = arith.andi %elected, %px_live : i1\n"
        : stage1  ? "        %px_true = arith.constant true\n"
                    "        %px_stage2 = arith.xori %isStage1, %px_true : i1\n"
                    "        %px_issue = arith.andi %elected, %px_stage2 : i1\n"
                  : "";
    pieces["PX_ISSUE"] = transposed ? transposedTilePrefetchText() : replaceAll(
        kPrefetchIssueTemplate,
        {{"PX_LOADS", loads},
         {"PX_LIVE", live},
         {"PX_COND", multicast || stage1 ? "%px_issue" : "%elected"},
         {"PX_WAIT", stage1 ? stageTwoPrefetchWaitText("%px_g") : ""}});
    // (A multi-stage kernel declares the dependency function already.)
    pieces["PX_FUNCS"] =
        stage1 ? ""
               : "  func.func private @$KERNEL_dependency(index$EPI_TYPES) -> index\n";
    values["PX_TYPE"] = subtiles ? ", f32" : ", $OUT";
    values["ROWSPERWG"] = std::to_string(rowsPerWarpgroup);
  }
  pieces["NUM_TILES"] =
      flatRows ? "    %numTiles = arith.addi %perBatch, %c0 : index"
               : "    %numTiles = arith.muli %batch, %perBatch : index";
  pieces["RING_START"] = "        %j0 = arith.muli %i, %kTiles : index";
  pieces["KTILES_HERE"] = "%kTiles";
  for (StringRef key : {"STAGE1_PARAMS", "STAGE1_SETUP", "STAGE1_PREFETCH",
                        "SELECT_MAPS", "STAGE1_FUNCS"})
    pieces[key] = "";
  if (stage1)
    multiStagePieces(*stage1, pingpong, rowsPerWarpgroup, pieces, values);
  std::string text = replaceAll(replaceAll(kWsKernelTemplate, pieces), values);
  auto buildStageOne = [&](gpu::GPUModuleOp scratch) {
    return buildStageOneFunctions(stage1->op, op, scratch, kernelName);
  };
  // The prefetch's g(b), as a device function of the batch index.
  auto buildGatherIndex = [&](gpu::GPUModuleOp scratch) -> LogicalResult {
    std::string why;
    Value g =
        BatchMatmulOp::getGatheredTileIndex(*epilogueBlock(op), *prefetched, why);
    auto func = scratch.lookupSymbol<func::FuncOp>(
        (kernelName + "_dependency").str());
    return buildDependencyFunction(op, g, func);
  };
  function_ref<LogicalResult(gpu::GPUModuleOp)> buildMore = nullptr;
  if (stage1)
    buildMore = buildStageOne;
  else if (prefetched)
    buildMore = buildGatherIndex;
  // The multi-stage kernel's dependency comes from the op's region: so
  // does its epilogue.
  if (failed(installKernel(op, gpuModule, kernelName, text, buildMore,
                           prefetched, /*epilogueFromKernelIR=*/!stage1)))
    return failure();

  WsLaunchShape launchShape;
  launchShape.tileM = tileM;
  launchShape.tileN = tileN;
  launchShape.aBoxRows = aBoxRows;
  launchShape.sharedBytes = sharedBytes;
  launchShape.persistent = roles.persistent;
  launchShape.tilesPerUnit = pingpong ? 2 : 1;
  launchShape.transposed = transposed;
  launchShape.flatRows = flatRows;
  launchShape.prefetched = prefetched;
  KernelLaunch launch =
      warpSpecializedLaunch(op, kernelName, binding, launchShape);
  launch.summary =
      llvm::formatv(
          "{0}: {1}x{2}x{3} {4}, warp-specialized{16}, {5}: producer "
          "warpgroup (TMA, {13} registers) + 2 consumer warpgroups (wgmma + "
          "epilogue, {14} registers), {6}, {7} stages, {8} k-tiles, {15} "
          "walking tiles in groups of {9} M tiles, {10} B shared "
          "memory, epilogue {11} in registers, TMA stores{12}",
          kernelName, m, n, k, typeToString(elementType),
          transposed ? "transposed ping-pong"
          : pingpong ? "ping-pong"
                     : "cooperative",
          transposed
              ? "each consumer a tile of its own of " + std::to_string(tileM) +
                    " rows x 128 columns computed transposed (E^T W^T: two "
                    "m64n" + std::to_string(tileM) +
                    " accumulators, E read MN-major)"
          : pingpong ? "each consumer a 64x256x64 tile of its own"
                     : "both consumers on one 128x256x64 tile",
          stages, kTiles, groupM, sharedBytes,
          op.hasEpilogue() ? "fused (region)" : "convert",
          !multicast   ? ""
          : transposed ? ", clusters of 2 CTAs on pairs of N tiles sharing "
                         "W's rows by TMA multicast"
                       : ", clusters of 2 CTAs on pairs of M tiles sharing B "
                         "by TMA multicast",
          roles.producerRegs, roles.consumerRegs,
          roles.persistent ? "one CTA per SM"
          : pingpong       ? "one CTA per pair of tiles"
                           : "one CTA per tile",
          roles.persistent ? " persistent" : "")
          .str();
  if (prefetched)
    launch.summary += "; the epilogue's gathered operand " +
                      binding.epilogueIns[*prefetched] +
                      " read at [g(b), m, n] is loaded by TMA " +
                      (transposed
                           ? "in 32x128 f32 chunks through two C buffers per "
                             "warpgroup, the first two during the tile's wgmma"
                       : mode == PrefetchMode::Subtiles
                           ? "in 64x32 f32 subtiles through two C buffers "
                             "per warpgroup, the first two during the tile's "
                             "wgmma"
                           : "into the staging tile during the tile's wgmma");
  if (flatRows)
    launch.summary += "; lhs batch elements as one matrix of B x " +
                      std::to_string(m) + " rows, tiles across them";
  if (stage1)
    addMultiStageLaunch(launch, *stage1, tileM);
  return launch;
}
