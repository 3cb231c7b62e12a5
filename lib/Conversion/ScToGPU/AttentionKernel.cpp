//===- AttentionKernel.cpp - sc.attention to a Hopper kernel ---------------===//
//
// Flash-attention forward. A CTA has a producer warpgroup and one or two
// consumer warpgroups, each consumer a 64-row query tile of one (batch
// element, head); two consumers share every key block (two candidates of
// one request, paired by the kernel of PairCandidatesKernel.cpp, or the
// two halves of a 128-row query block):
//
//   producer (one thread): TMA loads of the Q tiles, then of K and V of
//   each key block into a ring slot (all blocks, or the kept ones of a
//   block mask, read from BSR tables), K and V on barriers of their own
//   and freed apart
//   each consumer, per key block t: S = Q K^T by wgmma (K read K-major);
//   online softmax on the S registers in fp32 (scale * log2(e) folded in,
//   exp2, running row maximum and sum, O rescaled lazily); P kept in
//   registers as wgmma A fragments; O += P V by wgmma (V read N-major).
//   The blocks are software pipelined (Q K^T (t) and P V (t - 1) issued
//   together, the softmax of t under P V (t - 1)); two consumers take
//   turns for their wgmma phases (named barriers)
//   O / row sum -> the consumer's Q tile (dead by then) -> TMA store.
//
// A target attention of one consumer a candidate chains its heads (the
// kernel-level IR's `chained` tile loop): resident CTAs each walk every
// C-th candidate (C CTAs), head by head, the consumer's
// pipeline running on from one to the next (a head's first Q K^T with the
// head before's last P V), O staged in a tile of its own (the Q tile then
// holds the next head's Q).
//
// Keys and values are read at batch index[b] when the op is indexed (IKBO
// type II: nothing is broadcast) and at b otherwise. 4-D tensor maps
// [batch, heads, rows, head dim] zero-fill rows past the sequence, whose
// scores are masked to -inf (and whose outputs TMA does not store).
//
// The wgmma descriptors are built here (128B swizzle: stride byte offset
// 1024, leading byte offset 8192 between 64-column chunks), as in the GEMM
// kernels. The text of the steps (loads, wgmma, softmax, finish) comes from
// AttentionText.cpp.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/AttentionKernel.h"
#include "AttentionText.h"
#include "TemplateUtils.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail::attention;
using mlir::sc::detail::RingWait;
using mlir::sc::detail::ringPositionText;
using mlir::sc::detail::replaceAll;
using mlir::sc::detail::f32StructType;
using mlir::sc::detail::typeToString;
using mlir::sc::detail::wgmmaDescriptorConstantsText;
using mlir::sc::detail::wgmmaDescriptorText;

namespace {

constexpr const char *kAttentionTemplate = R"mlir(
!tmaQ = !nvgpu.tensormap.descriptor<tensor = memref<1x1x64x64x$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaK = !nvgpu.tensormap.descriptor<tensor = memref<1x1x$BNx64x$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaV = !nvgpu.tensormap.descriptor<tensor = memref<1x1x64x64x$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaO = !nvgpu.tensormap.descriptor<tensor = memref<1x1x64x64x$T, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!box64 = memref<1x1x64x64x$T, #gpu.address_space<workgroup>>
!boxK = memref<1x1x$BNx64x$T, #gpu.address_space<workgroup>>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = $S>
!qbar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!accS = $ACCS
!accO = $ACCO
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!stage = memref<$STAGEELEMSx$T, #gpu.address_space<workgroup>>

gpu.module @scratch {
$GLOBALS
  gpu.func @$KERNEL(%tmaQp: !llvm.ptr, %tmaKp: !llvm.ptr, %tmaVp: !llvm.ptr, %tmaOp: !llvm.ptr$INDEX_PARAM$LEN_PARAMS$TABLES_PARAM$TILES_X_PARAM) kernel
      attributes {nvvm.maxntid = array<i32: $THREADS, 1, 1>$MINCTAS} {

    %tmaQ = builtin.unrealized_conversion_cast %tmaQp : !llvm.ptr to !tmaQ
    %tmaK = builtin.unrealized_conversion_cast %tmaKp : !llvm.ptr to !tmaK
    %tmaV = builtin.unrealized_conversion_cast %tmaVp : !llvm.ptr to !tmaV
    %tmaO = builtin.unrealized_conversion_cast %tmaOp : !llvm.ptr to !tmaO
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c128b = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %eltBytes = arith.constant 2 : index
    %keyLen = $KEYLEN
    %queryLen = $QUERYLEN
    %cS = arith.constant $S : index
    %cW = arith.constant $W : index
    %cBN = arith.constant $BN : index
    %c1i32 = arith.constant 1 : i32
    %c2i32 = arith.constant 2 : i32
    %c32i32 = arith.constant 32 : i32
    %c128i32 = arith.constant 128 : i32
    %qBytes = arith.constant $QBYTES : index
    %qBytesAll = arith.constant $QBYTESALL : index
    %slotBytes = arith.constant $SLOTBYTES : index
    %kBytes = arith.constant $KBYTES : index
    %ringOff = arith.constant $RINGOFF : index
    %ticks = arith.constant 10000000 : index
    %false = arith.constant false
    %true = arith.constant true
$DESC_CONSTANTS    %tid = gpu.thread_id x
    // Role from lane 0 (a shuffle), so ptxas sees it warp-uniform:
    // consumers 0 .. W-1, then the producer, a warpgroup each (ptxas
    // budgets registers per warpgroup anyway).
    %tid32 = arith.index_cast %tid : index to i32
    %roleRaw = arith.divui %tid32, %c128i32 : i32
    %lane0 = arith.constant 0 : i32
    %roleU, %roleOk = gpu.shuffle idx %roleRaw, %lane0, %c32i32 : i32
    %w = arith.index_cast %roleU : i32 to index
$CTA_TILE    scf.if %run {
    %smem = gpu.dynamic_shared_memory : !smem
    // 128B-swizzled tiles need 1024-byte aligned shared memory.
    %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
$SMEM_REGION    %smemBase = arith.index_cast %base : index to i64
    // Per ring slot: %full says its key block landed, %fullV its value
    // block; %empty that every consumer warp is done with the keys,
    // %emptyV with the values. Keys and values come and go apart: the
    // pipelined consumer is done with K (t) in the middle of iteration t
    // but with V (t) only at the end of iteration t + 1.
    %full = nvgpu.mbarrier.create -> !bars
    %fullV = nvgpu.mbarrier.create -> !bars
    %empty = nvgpu.mbarrier.create -> !bars
    %emptyV = nvgpu.mbarrier.create -> !bars
    %qbar = nvgpu.mbarrier.create -> !qbar
$BLOCKS
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %releases = arith.constant $RELEASES : index
      scf.for %s = %c0 to %cS step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !bars
        nvgpu.mbarrier.init %fullV[%s], %c1 : !bars
        nvgpu.mbarrier.init %empty[%s], %releases : !bars
        nvgpu.mbarrier.init %emptyV[%s], %releases : !bars
      }
      nvgpu.mbarrier.init %qbar[%c0], %c1 : !qbar
$QFREE_INIT    }
    gpu.barrier
    %isProducer = arith.cmpi eq, %w, %cW : index
    scf.if %isProducer {
$PRODUCER_REGS
      %prodTid = arith.muli %cW, %c128 : index
      %lead = arith.cmpi eq, %tid, %prodTid : index
      scf.if %lead {
        nvgpu.tma.prefetch.descriptor %tmaK : !tmaK
        nvgpu.tma.prefetch.descriptor %tmaV : !tmaV
        // O's too: the stores at the CTA's end then do not wait for it.
        nvgpu.tma.prefetch.descriptor %tmaO : !tmaO
$PRODUCER_TILE_OPEN$PRODUCER_Q
$PRODUCER_KV
    } else {
$CONSUMER_REGS
$CONSUMER_TILE_VALUES      %wgBar1 = arith.addi %w, %c1 : index
      %wgBar = arith.index_cast %wgBar1 : index to i32
      %inWg = arith.remui %tid, %c128 : index
      %elected = arith.cmpi eq, %inWg, %c0 : index
      %qOffW = arith.muli %w, %qBytes : index
      %qOff = arith.addi %pad, %qOffW : index
      // O is staged for its TMA store in the consumer's own Q tile: Q is
      // dead after the last Q K^T, and its 16 KB buy a third ring slot.
      %stageAt = arith.addi %qOff, %c0 : index
      %stage = memref.view %smem[%stageAt][] : !smem to !stage
      // This thread's rows of the 64-row tile (wgmma fragment layout): r0
      // and r0 + 8, and its column pair 2 (lane % 4) in every group of 8.
      %warp = arith.divui %inWg, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %laneZero = arith.cmpi eq, %lane, %c0 : index
      %quad = arith.divui %lane, %c4 : index
      %q = arith.remui %lane, %c4 : index
      %warpRow = arith.muli %warp, %c16 : index
      %r0 = arith.addi %warpRow, %quad : index
      %r8 = arith.addi %r0, %c8 : index
      %rb0 = arith.muli %r0, %c128b : index
      %rb8 = arith.muli %r8, %c128b : index
      %q2 = arith.muli %q, %c2 : index
      %qBytesT = arith.muli %q2, %eltBytes : index
      %qChunk = arith.divui %qBytesT, %c16 : index
      %qWithin = arith.remui %qBytesT, %c16 : index
$DESC_QP$MATRIX_LANES      %scale2 = arith.constant $SCALE2 : f32
      %negInf = arith.constant 0xFF800000 : f32
      %mInit = arith.constant -1.0e30 : f32
      // Lazy rescaling: a row keeps its running maximum until a block's
      // maximum exceeds it by more than 8 (log2 units): p = exp2(s - m)
      // then stays below 2^8, exact in f16/bf16 range and fp32 sums, and O
      // is rescaled only when some row of the warp moved its maximum.
      %lazyBound = arith.constant 8.0 : f32
      %zeroF = arith.constant 0.0 : f32
      %oZero = llvm.mlir.zero : !accO
$CONSUMER_BODY    }
    }
    gpu.return
  }
}
)mlir";

// A consumer's tile once its Q is in: which consumers run, their turns.
constexpr const char *kConsumerTileSetup = R"mlir(
      // Both consumers read the one request's blocks (ring positions
      // 0 .. nkb - 1). Consumer 0 always has a tile, consumer 1 when %noB
      // is false; an idle consumer still waits for and frees every slot, so
      // the producer never stalls on it.
        %jBase = arith.addi $RING_BASE, %c0 : index
        %w1 = arith.cmpi eq, %w, %c1 : index
        %idle = arith.andi %w1, %noB : i1
        %active = arith.xori %idle, %true : i1
        // Turns: when both consumers run (they wait for the same
        // K/V blocks), their wgmma phases (Q K^T, P V) alternate through
        // named barriers 3 + w (wait for my turn) and 4 - w (give the
        // other its turn), so one consumer's softmax runs while the other's
        // wgmma does, instead of both at once. Consumer 0 goes first;
        // consumer 1 does not hand back after its last P V (no arrival is
        // left pending).
        %turnsAny = arith.xori %noB, %true : i1
        // From lane 0 (a shuffle), as the role: the named barriers then sit
        // on branches ptxas knows to be warp-uniform (bar.sync is .aligned).
        %turnsI = arith.extui %turnsAny : i1 to i32
        %turnsL, %turnsOk = gpu.shuffle idx %turnsI, %lane0, %c32i32 : i32
        %turns = arith.trunci %turnsL : i32 to i1
        %myTurn0 = arith.constant 3 : index
        %myTurn1 = arith.addi %myTurn0, %w : index
        %myTurn = arith.index_cast %myTurn1 : index to i32
        %hisTurn0 = arith.constant 4 : index
        %hisTurn1 = arith.subi %hisTurn0, %w : index
        %hisTurn = arith.index_cast %hisTurn1 : index to i32
        %turnCount = arith.constant 256 : i32
        %isW0t = arith.cmpi eq, %w, %c0 : index
        %nkbLast = arith.subi %nkb, %c1 : index
)mlir";

// The CTA's tile.
constexpr const char *kConsumerTileBody = R"mlir(
$CONSUMER_TILE_OPEN$LOAD_QREGS$Q_FREE$TILE_SETUP        scf.if %active {
$CONSUMER_LOOP          // Row sums across the four threads of a row, then O / sum to the
          // staging tile and out through TMA.
$FINISH$STAGED_STORE        } else {
$IDLE_DRAIN
        }
$CONSUMER_TILE_CLOSE)mlir";

// Each consumer's blocks software pipelined (FlashAttention-3's
// intra-warpgroup overlap): block t's Q K^T and block t - 1's P V are
// issued together, the softmax of block t runs while P V (t - 1) does,
// and O is rescaled once P V (t - 1) is done. Block 0's Q K^T and softmax
// come first, the last block's P V after the loop; each of these (and
// every loop iteration) is one wgmma turn.
constexpr const char *kPipelinedPrologue = R"mlir(
          %pro:$PRO_N = scf.execute_region -> ($PRO_TYPES) {
            %t = arith.constant 0 : index
$KEY_BLOCK_IN$DESC_K            // Consumer 0's first turn needs no wait.
            %isW1f = arith.xori %isW0t, %true : i1
            %waitFirst = arith.andi %turns, %isW1f : i1
            scf.if %waitFirst {
              nvvm.barrier id = %myTurn number_of_threads = %turnCount
            }
            %sU = llvm.mlir.undef : !accS
            nvvm.wgmma.fence.aligned
$QK
            nvvm.wgmma.commit.group.sync.aligned
            scf.if %turns {
              nvvm.barrier.arrive id = %hisTurn number_of_threads = %turnCount
            }
            nvvm.wgmma.wait.group.sync.aligned 0
            // This warp is done with K (0).
            scf.if %laneZero {
              %tok0 = nvgpu.mbarrier.arrive %empty[%slot] : !bars -> !nvgpu.mbarrier.token
            }
$FRESH_ROWS$SOFTMAX_FRESH
            scf.yield %mNew0, %mNew8, %lNew0, %lNew8$PRO_P : $PRO_TYPES
          }
)mlir";
// One block t of the pipelined loop (ring position %j = %jBase + %t): its
// Q K^T issued with block t - 1's P V ($BLOCK_PV, P kept by $BLOCK_KEEP),
// the softmax of t under that P V ($BLOCK_ROWS first: a head's rows start
// over), K (t) and V (t - 1) freed. Block t - 1 is the head before's last
// one for a chained head's first block.
constexpr const char *kPipelinedBlock = R"mlir(
$KEY_BLOCK_IN            // Block t - 1's slot: its V.
            %jP = arith.subi %j, %c1 : index
$PREV_RING_SLOT            %slotOffP = arith.muli %slotP, %slotBytes : index
            %kOffP = arith.addi %kOff0, %slotOffP : index
            %vOff = arith.addi %kOffP, %kBytes : index
$DESC_K$DESC_V            // V (t - 1) is waited for here, not between the wgmma: a wait
            // loop there puts the P V on a path ptxas takes as divergent.
            nvgpu.mbarrier.try_wait.parity %fullV[%slotP], %parityP, %ticks : !bars
            // (Never the CTA's first turn: consumer 0 waits too.)
            scf.if %turns {
              nvvm.barrier id = %myTurn number_of_threads = %turnCount
            }
            // S = Q K^T (t) and O += P V (t - 1), one turn.
            %sU = llvm.mlir.undef : !accS
            nvvm.wgmma.fence.aligned
$QK
            nvvm.wgmma.commit.group.sync.aligned
$BLOCK_PV
            nvvm.wgmma.commit.group.sync.aligned
            scf.if %turns {
              nvvm.barrier.arrive id = %hisTurn number_of_threads = %turnCount
            }
            // S (t) is done, so is this warp with K (t); the softmax runs
            // while P V (t - 1) does.
            nvvm.wgmma.wait.group.sync.aligned 1
            scf.if %laneZero {
              %tokK = nvgpu.mbarrier.arrive %empty[%slot] : !bars -> !nvgpu.mbarrier.token
            }
$BLOCK_ROWS$BLOCK_SOFTMAX
            nvvm.wgmma.wait.group.sync.aligned 0
            // P (t - 1) stays in its registers until P V (t - 1) is done
            // (so P (t) gets registers of its own).
$BLOCK_KEEP
            scf.if %laneZero {
              %tokV = nvgpu.mbarrier.arrive %emptyV[%slotP] : !bars -> !nvgpu.mbarrier.token
            }
)mlir";

// Blocks 1 .. nkb - 1, from the prologue's %pro and O from %oZero.
std::string pipelinedLoopText() {
  return R"mlir(
          %oL, %mEnd0, %mEnd8, %lEnd0, %lEnd8$LOOP_RESULTS = scf.for %t = %c1 to %nkb step %c1
              iter_args(%o = %oZero, %m0 = %pro#0, %m8 = %pro#1, %l0 = %pro#2, %l8 = %pro#3$LOOP_ITER)
              -> (!accO, $PRO_TYPES) {)mlir" +
         replaceAll(kPipelinedBlock, {{"BLOCK_PV", "$PV_LOOP"},
                                      {"BLOCK_KEEP", "$KEEP_P"},
                                      {"BLOCK_ROWS", ""},
                                      {"BLOCK_SOFTMAX", "$SOFTMAX"}}) +
         R"mlir($RESCALE_LOOP
            scf.yield %oScaled, %mNew0, %mNew8, %lNew0, %lNew8$PRO_P : !accO, $PRO_TYPES
          }
)mlir";
}
// The last block's P V: %oEnd from %oL and P in %pl.
constexpr const char *kPipelinedLastPV = R"mlir(
          %oEnd = scf.execute_region -> (!accO) {
            // The last block's P V.
            %jL = arith.addi %jBase, %nkbLast : index
$LAST_RING_SLOT            %kOff0 = arith.addi %pad, %ringOff : index
            %slotOffL = arith.muli %slotL, %slotBytes : index
            %kOffL = arith.addi %kOff0, %slotOffL : index
            %vOff = arith.addi %kOffL, %kBytes : index
$DESC_V            nvgpu.mbarrier.try_wait.parity %fullV[%slotL], %parityL, %ticks : !bars
            scf.if %turns {
              nvvm.barrier id = %myTurn number_of_threads = %turnCount
            }
            nvvm.wgmma.fence.aligned
$PV_LAST
            nvvm.wgmma.commit.group.sync.aligned
            // Consumer 1 does not hand back after its last turn.
            %isW1l = arith.xori %isW0t, %true : i1
            %notW1l = arith.xori %isW1l, %true : i1
            %handLast = arith.andi %turns, %notW1l : i1
            scf.if %handLast {
              nvvm.barrier.arrive id = %hisTurn number_of_threads = %turnCount
            }
            nvvm.wgmma.wait.group.sync.aligned 0
            scf.if %laneZero {
              %tokL = nvgpu.mbarrier.arrive %emptyV[%slotL] : !bars -> !nvgpu.mbarrier.token
            }
            scf.yield %oFin : !accO
          }
)mlir";

// Chained heads: the first block of a head (ring position %jBase) as the
// pipelined loop's block t = 0, issued with the head before's last P V (P
// in %pc, O in %oC, its V at %jBase - 1) in one wgmma group (and turn,
// were there two consumers); once that P V is done, the head before's O is
// normalized (its row sums %lC0 / %lC8) and stored. (The kernel takes it
// with one consumer a candidate: the other CTA on the SM keeps the tensor
// cores busy meanwhile.)
std::string chainedPrologueText() {
  return R"mlir(
          %pro:$PRO_N = scf.execute_region -> ($PRO_TYPES) {
            %t = arith.constant 0 : index)mlir" +
         replaceAll(kPipelinedBlock, {{"BLOCK_PV", "$PV_CHAIN"},
                                      {"BLOCK_KEEP", "$KEEP_PC"},
                                      {"BLOCK_ROWS", "$FRESH_ROWS"},
                                      {"BLOCK_SOFTMAX", "$SOFTMAX_FRESH"}}) +
         R"mlir(            // The head before's O, normalized and stored.
            %lEnd0 = arith.select %true, %lC0, %lC0 : f32
            %lEnd8 = arith.select %true, %lC8, %lC8 : f32
$FINISH_PREV
            scf.yield %mNew0, %mNew8, %lNew0, %lNew8$PRO_P : $PRO_TYPES
          }
)mlir";
}

/// A chained CTA's item `item` (CTA c of C: candidate tiles c, c + C, ...,
/// each head by head): its candidate tile %<p>T and head %<p>H.
static std::string chainItemText(StringRef p, StringRef item) {
  return llvm::formatv(R"mlir(
          %{0}T0 = arith.divui {1}, %cH : index
          %{0}T0s = arith.muli %{0}T0, %ctas : index
          %{0}T = arith.addi %cta, %{0}T0s : index
          %{0}H = arith.remui {1}, %cH : index
)mlir",
                       p, item)
      .str();
}

/// Candidate tile %<p>T (chainItemText's) as its batch element %<p>X and
/// query tile %<p>Y (t = x + X y). With `grouped`, the walk's x is a
/// position in the grouping kernel's %order, which names the candidate.
static std::string chainTileText(StringRef p, bool grouped) {
  std::string candidate =
      grouped ? llvm::formatv(R"mlir(
          %{0}Xo = memref.load %order[%{0}Xw] : memref<?xi32>
          %{0}Xc = arith.index_cast %{0}Xo : i32 to index
)mlir",
                              p)
                    .str()
              : llvm::formatv("          %{0}Xc = arith.addi %{0}Xw, %c0 : index\n", p)
                    .str();
  return llvm::formatv(R"mlir(
          %{0}Xw = arith.remui %{0}T, %chainX : index
          %{0}Y = arith.divui %{0}T, %chainX : index
)mlir",
                       p)
             .str() +
         candidate +
         llvm::formatv("          %{0}X = arith.addi %{0}Xc, %c0 : index\n", p)
             .str();
}

// Chained heads: item %hIdx's (a candidate's head) ring position (every
// item has the same key blocks) and Q's phase.
constexpr const char *kChainedHead = R"mlir(
        %ring = arith.muli %hIdx, %nkb : index
        %done = arith.addi %hIdx, %c0 : index
)mlir";

// Chained heads: the consumer's items (each candidate of its share head by
// head), from the state one item leaves to the next ($STATE_TYPES: O
// before the last P V, the row sums, the last P).
constexpr const char *kChainedConsumerBody = R"mlir(
      $CHAIN_OSTAGE      // The CTA's first tile (candidate tile, head 0): the key blocks are
      // the same for every item, so they are read once.
      %tile = arith.addi %cta, %c0 : index
$CHAIN_DECODE$CHAIN_VALUES      %chainRun = arith.andi %tileRun, %chainAny : i1
      scf.if %chainRun {
      %st0:$STATE_N = scf.execute_region -> ($STATE_TYPES) {
        %hIdx = arith.constant 0 : index
$CHAIN_HEAD$CHAIN_Q$LOAD_QREGS$Q_FREE$TILE_SETUP        %hr0:$STATE_N = scf.if %active -> ($STATE_TYPES) {
$FIRST_HEAD
          scf.yield %oL, %lEnd0, %lEnd8$LOOP_RESULTS : $STATE_TYPES
        } else {
$IDLE_DRAIN
$UNDEF_STATE
          scf.yield $UNDEF_NAMES : $STATE_TYPES
        }
        scf.yield $R0_NAMES : $STATE_TYPES
      }
      %stN:$STATE_N = scf.for %hIdx = %c1 to %cItems step %c1 iter_args($CARRY) -> ($STATE_TYPES) {
$CHAIN_HEAD$CHAIN_Q$LOAD_QREGS$Q_FREE$TILE_SETUP        %hPrev = arith.subi %hIdx, %c1 : index
        %hr1:$STATE_N = scf.if %active -> ($STATE_TYPES) {
$NEXT_HEAD
          scf.yield %oL, %lEnd0, %lEnd8$LOOP_RESULTS : $STATE_TYPES
        } else {
$IDLE_DRAIN
          scf.yield $CARRIED_NAMES : $STATE_TYPES
        }
        scf.yield $R1_NAMES : $STATE_TYPES
      }
      scf.execute_region {
        %hIdx = arith.subi %cItems, %c1 : index
$CHAIN_HEAD$TILE_SETUP        scf.if %active {
$LAST_STATE
$LAST_HEAD
$FINISH_LAST
        }
        scf.yield
      }
      }
)mlir";

/// What the kernel-level IR of an attention op decided (its sc.kernel_ir
/// function after sc-lower-to-sck{attention=1} and sc-warp-specialize):
/// the key/value ring's stages (0: as many as the kernel takes) and the
/// roles' registers.
struct AttentionIRRoles {
  int64_t stages = 0;
  int64_t producerRegs, consumerRegs;
  /// Without kernel-level IR, the split sc-warp-specialize would choose.
  AttentionIRRoles(int64_t consumers, int64_t ctasPerSM) {
    sck::RoleRegisters defaults =
        sck::defaultRoleRegisters(consumers, ctasPerSM);
    producerRegs = defaults.producer;
    consumerRegs = defaults.consumer;
  }
};
} // namespace

/// Reads `op`'s kernel-level IR, if any, into `roles`; a tiling, schedule
/// or consumer count other than this kernel's (64-row query tiles, Q in
/// 64 x 64 boxes, K read transposed and V as stored in key blocks of
/// `blockN`, one CTA per tile) is refused rather than silently not
/// followed.
static LogicalResult readAttentionKernelIR(AttentionOp op,
                                           AttentionConfigAttr config,
                                           int64_t headDim,
                                           AttentionIRRoles &roles) {
  int64_t consumers = config.getConsumers(), blockN = config.getKeyBlock();
  FailureOr<func::FuncOp> kernel = sc::detail::kernelIRFunction(op);
  if (failed(kernel) || !*kernel)
    return failed(kernel) ? failure() : success();
  // A tile's query rows: two 64-row halves with two consumers (of a
  // 128-row query block, or two candidates of one request), else one.
  int64_t halves = consumers;
  // Pairs of candidates come from the table the pairing kernel makes: the
  // kernel-level IR must take it too.
  if (config.getWalk() == AttentionWalk::pairs &&
      llvm::none_of(llvm::seq<unsigned>(0, kernel->getNumArguments()),
                    [&](unsigned i) {
                      return static_cast<bool>(
                          kernel->getArgAttr(i, "sck.candidate_pairs"));
                    }))
    return kernel->emitError()
           << "the attention kernel pairs candidates of one request; the "
              "kernel-level IR takes no pairs table (sck.candidate_pairs)";
  int64_t qLoads = 0;
  Operation *tileLoop = nullptr;
  WalkResult walk = kernel->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (isa<sck::TileLoopOp>(inner) && !tileLoop)
      tileLoop = inner;
    if (auto load = dyn_cast<sck::LoadOp>(inner);
        load && load.getOperand() == "Q" && tileLoop &&
        tileLoop->isAncestor(load))
      ++qLoads;
    StringRef schedule =
        config.getWalk() == AttentionWalk::chained ? "chained" : "grid";
    if (auto loop = dyn_cast<sck::TileLoopOp>(inner);
        loop && loop.getSchedule() != schedule) {
      loop.emitError()
          << (schedule == "chained" ? "the attention kernel chains heads"
                                    : "the attention kernel runs one CTA per tile")
          << "; the kernel-level IR asks for a " << loop.getSchedule()
          << " tile loop";
      return WalkResult::interrupt();
    }
    if (auto load = dyn_cast<sck::LoadOp>(inner)) {
      StringRef name = load.getOperand();
      SmallVector<int64_t> want =
          name == "Q" ? SmallVector<int64_t>{64, 64}
          : name == "K" ? SmallVector<int64_t>{64, blockN}
                        : SmallVector<int64_t>{blockN, headDim};
      bool transposed = name == "K";
      if (load.getType().getShape() != ArrayRef<int64_t>(want) ||
          load.getTransposed() != transposed) {
        load.emitError() << "the attention kernel loads " << name << " in "
                         << want[0] << "x" << want[1] << " boxes"
                         << (transposed ? " read transposed" : "")
                         << "; the kernel-level IR asks for "
                         << load.getType()
                         << (load.getTransposed() ? " read transposed" : "");
        return WalkResult::interrupt();
      }
    }
    if (auto ring = dyn_cast<sck::RingOp>(inner)) {
      // The key/value ring (the Q ring is one buffer per consumer here).
      for (Type box : ring.getType().getBoxes())
        if (cast<sck::BoxType>(box).getShape() ==
            ArrayRef<int64_t>{blockN, headDim})
          roles.stages = ring.getStages();
    }
    auto role = dyn_cast<sck::RoleOp>(inner);
    if (!role)
      return WalkResult::advance();
    if (role.getKind() == "producer") {
      roles.producerRegs = role.getRegs();
      return WalkResult::advance();
    }
    if (static_cast<int64_t>(role.getCount()) != consumers) {
      role.emitError() << "the attention kernel runs " << consumers
                       << " consumer warpgroup(s) for this op; the "
                          "kernel-level IR asks for "
                       << role.getCount();
      return WalkResult::interrupt();
    }
    if (consumers == 2 && role.getOrder() && *role.getOrder() != "turns") {
      role.emitError() << "the attention kernel's two consumers take turns "
                          "on query tiles sharing their K/V; the "
                          "kernel-level IR asks for order '"
                       << *role.getOrder() << "'";
      return WalkResult::interrupt();
    }
    roles.consumerRegs = role.getRegs();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // Q boxes of one tile loop (a warp-specialized kernel has two copies of
  // the loop, the producer's holding the loads).
  if (tileLoop && qLoads != halves * (headDim / 64))
    return tileLoop->emitError()
           << "the attention kernel's tile is " << halves
           << " x 64 query rows (" << halves * (headDim / 64)
           << " Q boxes); the kernel-level IR loads " << qLoads;
  return success();
}

bool mlir::sc::attentionKernelTakesF16Value(AttentionOp op) {
  return getAttentionConfig(op).getPInF16();
}

FailureOr<KernelLaunch>
mlir::sc::buildAttentionKernel(AttentionOp op, gpu::GPUModuleOp gpuModule,
                               StringRef kernelName,
                               const AttentionBinding &binding,
                               StringRef chip) {
  RankedTensorType qType = op.getQuery().getType();
  RankedTensorType kType = op.getKey().getType();
  RankedTensorType vType = op.getValue().getType();
  Type elementType = qType.getElementType();
  if (chip != "sm_90a")
    return op.emitError() << "the attention kernel needs sm_90a (TMA and "
                             "wgmma), got "
                          << chip;
  if (!elementType.isF16() && !elementType.isBF16())
    return op.emitError() << "the attention kernel takes f16 or bf16, got "
                          << elementType;
  if (kType.getElementType() != elementType ||
      vType.getElementType() != elementType ||
      op.getType().getElementType() != elementType)
    return op.emitError() << "the attention kernel needs Q, K, V and the "
                             "result of one element type";
  int64_t heads = qType.getDimSize(1), queryLen = qType.getDimSize(2);
  int64_t headDim = qType.getDimSize(3), keyLen = kType.getDimSize(2);
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(headDim))
    return op.emitError() << "the attention kernel needs static heads and "
                             "head dim";
  // Dynamic lengths are passed to the kernel as values.
  bool dynamicQuery = ShapedType::isDynamic(queryLen);
  bool dynamicKey = ShapedType::isDynamic(keyLen);
  // With dynamic lengths a log-linear mask's tables are built by the
  // runtime at launch (the op verifier admits only log-linear masks there).
  bool runtimeTables = (dynamicQuery || dynamicKey) && op.getMaskAttr();
  if (headDim != 64 && headDim != 128)
    return op.emitError() << "the attention kernel takes head dims 64 and "
                             "128, got "
                          << headDim;
  if (vType.getDimSize(3) != headDim)
    return op.emitError() << "the attention kernel needs the value dim equal "
                             "to the head dim";

  bool indexed = static_cast<bool>(op.getIndex());
  auto mask = dyn_cast_if_present<BlockMaskAttrInterface>(op.getMaskAttr());
  AttentionConfigAttr config = getAttentionConfig(op);
  std::string unfit = attentionConfigLimitation(op, config);
  if (!unfit.empty())
    return op.emitError() << "the attention's kernel configuration " << config
                          << " cannot run it: " << unfit;
  // Consumers per CTA. Two warpgroups share every K/V block when their
  // 64-row query tiles read the same keys: two candidates of one request
  // (pairs), or two tiles of one query block of 128 rows (split). Else one.
  // A dynamic query length takes the split form (any length; consumer 1
  // idles on a single 64-row tile).
  int64_t consumers = config.getConsumers();
  // One consumer runs two CTAs an SM (one covers the other's waits).
  int64_t ctasPerSM = consumers == 1 ? 2 : 1;
  enum class Mode { Single, Pairs, Split } mode = Mode::Single;
  if (config.getWalk() == AttentionWalk::pairs) {
    mode = Mode::Pairs;
    if (binding.pairs.empty())
      return op.emitError() << "internal error: the attention kernel pairs "
                               "candidates but was given no pairs table";
  } else if (consumers == 2) {
    mode = Mode::Split;
  }
  // Chained heads (a chained walk: target attention of one
  // consumer a candidate): resident CTAs (two an SM), CTA c of C walking
  // the (candidate, query tile) pairs c, c + C, ... head by head; the
  // consumer's software pipeline runs on from head to head and candidate to
  // candidate (an item's first Q K^T goes with the item before's last P V,
  // whose O then goes out by TMA through a staging tile of its own), so a
  // tile's fill and drain, its Q latency and a CTA's start come once per
  // CTA (docs/decisions.md, "target attention").
  bool chained = config.getWalk() == AttentionWalk::chained;
  // Candidates in request order (GroupCandidatesKernel.h): the chained
  // walk's position x runs candidate %order[x]; the pairs kernel's CTA x
  // runs position x (its pairs table is by position).
  bool grouped = !binding.order.empty();
  if (grouped && !chained && mode != Mode::Pairs)
    return op.emitError() << "internal error: a candidate order for an "
                             "attention kernel that neither chains heads "
                             "nor pairs candidates";
  // Key blocks: the mask's blocks, else 128 keys with two consumers (wider
  // S wgmma), 64 with one (two CTAs per SM).
  int64_t blockN = config.getKeyBlock();
  std::string globals, blocks;
  // The query tile of grid row y: y itself, or with a static mask the y-th
  // heaviest (most kept key blocks first; see below).
  std::string tileOrder = "    %yTile = arith.addi %y, %c0 : index\n";
  int64_t numKeyBlocks = 0;
  int64_t keptPairs = 0;
  if (mask) {
    if (blockN != 64 && blockN != 128)
      return op.emitError() << "the attention kernel takes mask blocks of 64 "
                               "or 128 tokens, got "
                            << blockN;
  }
  if (mask && runtimeTables) {
    blocks = llvm::formatv(R"mlir(
    // Kept key blocks of this tile's query block, from the tables the
    // runtime built for this call's lengths: offsets, then key blocks.
    %maskBlock = arith.constant {0} : index
    %qRowA = arith.muli %tileA, %c64 : index
    %qBlock = arith.divui %qRowA, %maskBlock : index
    %qBlock1 = arith.addi %qBlock, %c1 : index
    %firstI = memref.load %tables[%qBlock] : memref<?xi32>
    %lastI = memref.load %tables[%qBlock1] : memref<?xi32>
    %firstRel = arith.index_cast %firstI : i32 to index
    %lastRel = arith.index_cast %lastI : i32 to index
    %nkb = arith.subi %lastRel, %firstRel : index
    %nqbUp = arith.addi %queryLen, %maskBlock : index
    %nqbUp1 = arith.subi %nqbUp, %c1 : index
    %nqb = arith.divui %nqbUp1, %maskBlock : index
    %indexBase = arith.addi %nqb, %c1 : index
    %firstKb = arith.addi %indexBase, %firstRel : index
)mlir",
                           blockN)
                 .str();
  } else if (mask) {
    int64_t numQueryBlocks = llvm::divideCeil(queryLen, blockN);
    numKeyBlocks = llvm::divideCeil(keyLen, blockN);
    // BSR tables of the kept key blocks, compiled into the module.
    SmallVector<int32_t> offsets, indices;
    mask.getBlockTables(numQueryBlocks, numKeyBlocks, offsets, indices);
    keptPairs = indices.size();
    auto list = [](ArrayRef<int32_t> v) {
      std::string s;
      for (auto [i, x] : llvm::enumerate(v))
        s += (i ? ", " : "") + std::to_string(x);
      return s;
    };
    // Heaviest query blocks first (a query tile is one mask block here):
    // CTAs start in grid order, so the last ones to start, which set the
    // kernel's tail, are the lightest. Ties keep their order (neighbours
    // share keys in L2).
    SmallVector<int32_t> order(numQueryBlocks);
    std::iota(order.begin(), order.end(), 0);
    llvm::sort(order, [&](int32_t a, int32_t b) {
      int32_t keptA = offsets[a + 1] - offsets[a];
      int32_t keptB = offsets[b + 1] - offsets[b];
      return keptA != keptB ? keptA > keptB : a < b;
    });
    globals = llvm::formatv(
                  "  memref.global \"private\" constant @$KERNEL_offsets : "
                  "memref<{0}xi32> = dense<[{1}]>\n"
                  "  memref.global \"private\" constant @$KERNEL_indices : "
                  "memref<{2}xi32> = dense<[{3}]>\n"
                  "  memref.global \"private\" constant @$KERNEL_order : "
                  "memref<{4}xi32> = dense<[{5}]>\n",
                  offsets.size(), list(offsets), indices.size(), list(indices),
                  order.size(), list(order))
                  .str();
    tileOrder = llvm::formatv(
        "    %tileOrder = memref.get_global @$KERNEL_order : memref<{0}xi32>\n"
        "    %yTileI = memref.load %tileOrder[%y] : memref<{0}xi32>\n"
        "    %yTile = arith.index_cast %yTileI : i32 to index\n",
        order.size());
    blocks = llvm::formatv(R"mlir(
    // Kept key blocks of this tile's query block (BSR tables).
    %offsets = memref.get_global @$KERNEL_offsets : memref<{0}xi32>
    %indices = memref.get_global @$KERNEL_indices : memref<{1}xi32>
    %maskBlock = arith.constant {2} : index
    %qRowA = arith.muli %tileA, %c64 : index
    %qBlock = arith.divui %qRowA, %maskBlock : index
    %qBlock1 = arith.addi %qBlock, %c1 : index
    %firstI = memref.load %offsets[%qBlock] : memref<{0}xi32>
    %lastI = memref.load %offsets[%qBlock1] : memref<{0}xi32>
    %firstKb = arith.index_cast %firstI : i32 to index
    %lastKb = arith.index_cast %lastI : i32 to index
    %nkb = arith.subi %lastKb, %firstKb : index
)mlir",
                           offsets.size(), indices.size(), blockN)
                 .str();
  } else {
    // ceil(keys / block), from the (possibly dynamic) length.
    blocks = llvm::formatv("    %nkbBlock = arith.constant {0} : index\n"
                           "    %nkbUp = arith.addi %keyLen, %nkbBlock : index\n"
                           "    %nkbUp1 = arith.subi %nkbUp, %c1 : index\n"
                           "    %nkb = arith.divui %nkbUp1, %nkbBlock : index\n",
                           blockN)
                 .str();
  }
  // Key block of iteration %t (in the loop) / of %<p>_t (loads).
  auto kbOf = [&](StringRef t, StringRef out) {
    if (!mask)
      return llvm::formatv("        {0} = arith.addi {1}, %c0 : index", out, t)
          .str();
    std::string table = runtimeTables
                            ? std::string("%tables")
                            : std::string("%indices");
    std::string type =
        runtimeTables ? std::string("memref<?xi32>")
                      : llvm::formatv("memref<{0}xi32>", keptPairs).str();
    return llvm::formatv(
               "        {0}_i = arith.addi %firstKb, {1} : index\n"
               "        {0}_v = memref.load {2}[{0}_i] : {3}\n"
               "        {0} = arith.index_cast {0}_v : i32 to index",
               out, t, table, type)
        .str();
  };

  int64_t dChunks = headDim / 64;
  int64_t eltBytes = 2;
  int64_t qBytes = dChunks * 8192;
  int64_t kBytes = dChunks * blockN * 128;
  int64_t slotBytes = 2 * kBytes;
  // Per consumer: its Q tile (which then stages O), then the ring.
  int64_t stageBytes = qBytes;
  int64_t ringOff = consumers * qBytes;
  // Ring slots: in iteration t the pipelined loop frees K (t) after its
  // Q K^T and V (t - 1) at the end, so with two slots K (t + 1) loads
  // during iteration t and V (t + 1) from its end (needed in t + 2). Three
  // with two consumers (their turns stretch an iteration); with one, two,
  // so that two CTAs fit an SM (81 KB for d = 128).
  int64_t stages = consumers == 2 ? 3 : 2;
  // (Chained heads keep the one-CTA-per-tile split: its producer walks only
  // the CTA's heads, and 24 / 232 gains nothing over 40 / 216.)
  AttentionIRRoles roles(consumers, ctasPerSM);
  if (failed(readAttentionKernelIR(op, config, headDim, roles)))
    return failure();
  // setmaxnreg moves registers between the roles: the total is what the
  // CTA got at launch (two CTAs an SM with one consumer).
  int64_t launchRegs = sck::launchRegisters(consumers + 1, ctasPerSM);
  if (roles.producerRegs + consumers * roles.consumerRegs >
      (consumers + 1) * launchRegs)
    return op.emitError() << "the kernel-level IR asks for a producer of "
                          << roles.producerRegs << " registers and "
                          << consumers << " consumer(s) of "
                          << roles.consumerRegs << "; the CTA has "
                          << consumers + 1 << " x " << launchRegs;
  if (roles.stages > 0) {
    // One consumer runs two CTAs an SM: each gets half the shared memory.
    int64_t perCta = ctasPerSM == 1 ? 227 * 1024 : 113 * 1024;
    int64_t fit = (perCta - ringOff - (chained ? consumers * qBytes : 0) -
                   detail::kSmemAlignReserve) /
                  slotBytes;
    if (roles.stages > fit)
      return op.emitError() << "the kernel-level IR asks for "
                            << roles.stages << " key/value ring slots; "
                            << fit << " fit in shared memory"
                            << (consumers == 2 ? "" : " (two CTAs an SM)");
    stages = roles.stages;
  }
  // Chained heads: O goes out through a staging tile of its own past the
  // ring, by TMA (the Q tile holds the next head's Q; from registers, O's
  // scattered stores cost more than chaining saved). Two CTAs an SM still
  // fit (99 KB each at d = 128).
  int64_t oStageOff = ringOff + stages * slotBytes;
  int64_t sharedBytes = oStageOff + (chained ? consumers * qBytes : 0) +
                        detail::kSmemAlignReserve;
  float scale = op.getScaleOrDefault();
  double scale2 = static_cast<double>(scale) * 1.4426950408889634;
  bool maskTail = dynamicKey || keyLen % blockN != 0;

  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["T"] = typeToString(elementType);
  values["BN"] = std::to_string(blockN);
  values["S"] = std::to_string(stages);
  values["QBYTES"] = std::to_string(qBytes);
  values["KBYTES"] = std::to_string(kBytes);
  values["SLOTBYTES"] = std::to_string(slotBytes);
  values["RINGOFF"] = std::to_string(ringOff);
  values["W"] = std::to_string(consumers);
  values["THREADS"] = std::to_string(128 * (consumers + 1));
  // One consumer: two CTAs share an SM (one covers the other's waits), so
  // 128 registers a thread at launch; the pipelined loop needs ~142, which
  // the consumer gets from the producer by setmaxnreg (without it ptxas
  // spills).
  values["MINCTAS"] =
      ctasPerSM > 1 ? llvm::formatv(", nvvm.minctasm = {0} : i32", ctasPerSM).str()
                    : "";
  values["RELEASES"] = std::to_string(4 * consumers);
  values["QBYTESALL"] = std::to_string(consumers * qBytes);
  values["STAGEELEMS"] = std::to_string(stageBytes / eltBytes);
  values["ACCS"] = f32StructType(blockN / 2);
  values["ACCO"] = f32StructType(headDim / 2);
  values["SCALE2"] = llvm::formatv("{0:e}", scale2).str();
  // The index, then the pairs table, then the order (as the launch's
  // parameters below); pairs and order come only with an index.
  values["INDEX_PARAM"] =
      std::string(indexed ? ", %idx: memref<?xi32>" : "") +
      (mode == Mode::Pairs ? ", %pairs: memref<?xi32>" : "") +
      (grouped ? ", %order: memref<?xi32>" : "");

  llvm::StringMap<std::string> pieces;
  pieces["GLOBALS"] = globals;
  pieces["DESC_CONSTANTS"] = wgmmaDescriptorConstantsText();
  // Ring positions: block t - 1's and the last block's slots (their V),
  // and the producer's (the empty barrier).
  values["PREV_RING_SLOT"] = ringPositionText("%jP", "%slotP", "%parityP", RingWait::Full);
  values["LAST_RING_SLOT"] = ringPositionText("%jL", "%slotL", "%parityL", RingWait::Full);
  values["PRODUCER_RING_SLOT"] = ringPositionText("%pj", "%ps", "%pepar", RingWait::Empty);
  pieces["SMEM_REGION"] = detail::smemRegionText();
  pieces["MATRIX_LANES"] = kMatrixLanes;
  pieces["DESC_QP"] =
      wgmmaDescriptorText("qDesc", "qOff");
  pieces["BLOCKS"] = blocks;
  // What the CTA computes: consumer 0 (1) takes batch element %bA (%bB),
  // query tile %tileA (%tileB), both reading keys of request %rA; %noB
  // when consumer 1 has nothing to do; %run is false for CTAs with nothing
  // to do (past the batch, or a partner run by its pair's CTA).
  auto userOf = [&](StringRef b, StringRef out) {
    if (!indexed)
      return llvm::formatv("    {0} = arith.addi {1}, %c0 : index\n", out, b)
          .str();
    return llvm::formatv("    {0}_raw = memref.load %idx[{1}] : memref<?xi32>\n"
                         "    {0} = arith.index_cast {0}_raw : i32 to index\n",
                         out, b)
        .str();
  };
  // $O prefixes the values a section defines (%bA ... %rA; the run flag is
  // $RUN, below): empty for the op alone, "t_" for the target section of a
  // fused launch.
  std::string assign;
  if (mode == Mode::Pairs) {
    // CTA x runs candidate x when the pairing kernel made it lead (its
    // entry p + 1 names the partner, of the same request; 0: alone) and
    // nothing when x is some other candidate's partner (-1). Grouped
    // (GroupCandidatesKernel.h), x is a position of the order, whose pairs
    // table is by position: its candidate is order[x] ($LEAD).
    assign = R"mlir(
    %nB = memref.dim %idx, %c0 : memref<?xi32>
    %inB = arith.cmpi ult, %x, %nB : index
    %xc = arith.select %inB, %x, %c0 : index
$LEAD    %pairOf = memref.load %pairs[%xc] : memref<?xi32>
    %pairNone = arith.constant 0 : i32
    %leads = arith.cmpi sge, %pairOf, %pairNone : i32
    %$RUN = arith.andi %inB, %leads : i1
    %pairOne = arith.constant 1 : i32
    %partner32 = arith.subi %pairOf, %pairOne : i32
    %partner = arith.index_cast %partner32 : i32 to index
    %partnerIn = arith.cmpi ult, %partner, %nB : index
    %hasPartner = arith.cmpi sgt, %pairOf, %pairNone : i32
    %hasB0 = arith.andi %hasPartner, %partnerIn : i1
    %hasB = arith.andi %hasB0, %$RUN : i1
    %$OnoB = arith.xori %hasB, %true : i1
    %$ObB = arith.select %hasB, %partner, %$ObA : index
    %$OtileA = arith.addi %y, %c0 : index
    %$OtileB = arith.addi %y, %c0 : index
)mlir";
    assign = replaceAll(
        assign, {{"LEAD", grouped ? "    %xg0 = memref.load %order[%xc] : memref<?xi32>\n"
                                    "    %xg = arith.index_cast %xg0 : i32 to index\n"
                                    "    %$ObA = arith.addi %xg, %c0 : index\n"
                                  : "    %$ObA = arith.addi %x, %c0 : index\n"}});
    assign += userOf(grouped ? "%xg" : "%xc", "%$OrA");
  } else if (mode == Mode::Split) {
    assign = R"mlir(
    %$ObA = arith.addi %x, %c0 : index
    %$ObB = arith.addi %x, %c0 : index
    %$RUN = arith.constant true
$TILE_ORDER    %$OtileA = arith.muli %yTile, %c2 : index
    %$OtileB = arith.addi %$OtileA, %c1 : index
    %rowB = arith.muli %$OtileB, %c64 : index
    %hasB = arith.cmpi ult, %rowB, %queryLen : index
    %$OnoB = arith.xori %hasB, %true : i1
)mlir";
    assign += userOf("%$ObA", "%$OrA");
  } else {
    assign = R"mlir(
    %$ObA = arith.addi %x, %c0 : index
    %$ObB = arith.addi %x, %c0 : index
    %$RUN = arith.constant true
$TILE_ORDER    %$OtileA = arith.addi %yTile, %c0 : index
    %$OtileB = arith.addi %yTile, %c0 : index
    %$OnoB = arith.constant true
)mlir";
    assign += userOf("%$ObA", "%$OrA");
  }
  // The flag saying whether the CTA (the chained walk: the tile) runs:
  // %run, or the chained walk's %tileRun (its %run, outside the walk, is
  // true).
  assign = replaceAll(assign, {{"O", ""},
                               {"RUN", chained ? "tileRun" : "run"},
                               {"TILE_ORDER", tileOrder}});
  std::string ctaTile = "    %x = gpu.block_id x\n"
                        "    %y = gpu.block_id y\n"
                        "    %h = gpu.block_id z\n" +
                        assign;
  std::string consumerTileValues =
      "      // Consumer %w: its batch element, query tile, Q and staging tiles.\n"
      "      %isW0 = arith.cmpi eq, %w, %c0 : index\n"
      "      %bW = arith.select %isW0, %bA, %bB : index\n"
      "      %tileW = arith.select %isW0, %tileA, %tileB : index\n"
      "      %q0 = arith.muli %tileW, %c64 : index\n";
  // The chained walk's decode of %tile (each head's).
  std::string chainDecode;
  if (!chained) {
    pieces["CTA_TILE"] = ctaTile;
    pieces["BLOCKS"] = blocks;
    pieces["CONSUMER_TILE_VALUES"] = consumerTileValues;
    pieces["CONSUMER_TILE_OPEN"] =
        "      nvgpu.mbarrier.try_wait.parity %qbar[%c0], %false, %ticks : !qbar\n";
    pieces["CONSUMER_TILE_CLOSE"] = "";
    pieces["PRODUCER_TILE_OPEN"] = "";
    pieces["Q_FREE"] = "";
    pieces["QFREE_INIT"] = "";
    pieces["PRODUCER_TILE_CLOSE"] = "";
    values["RING_BASE"] = "%c0";
    values["TILES_X_PARAM"] = "";
  } else {
    // Tile %tile -> (x, y, head), x fastest, as a launch would number its
    // CTAs; then what the tile computes and its kept key blocks.
    // The batch (x) may be dynamic: then a parameter, %tilesXArg.
    int64_t tilesX = qType.getDimSize(0);
    bool dynamicBatch = ShapedType::isDynamic(tilesX);
    int64_t tilesY = llvm::divideCeil(queryLen, config.getTileRows());
    std::string tilesXValue =
        dynamicBatch ? std::string("arith.addi %tilesXArg, %c0 : index")
                     : llvm::formatv("arith.constant {0} : index", tilesX).str();
    std::string tile = llvm::formatv(R"mlir(
        %tilesX = {0}
        %tilesY = arith.constant {1} : index
        %x = arith.remui %tile, %tilesX : index
        %tileYH = arith.divui %tile, %tilesX : index
        %y = arith.remui %tileYH, %tilesY : index
        %h = arith.divui %tileYH, %tilesY : index
)mlir",
                                     tilesXValue, tilesY)
                           .str();
    if (grouped)
      // Tile t = T + chainTiles h: T decoded as chainTileText does.
      tile = R"mlir(
        %tT = arith.remui %tile, %chainTiles : index
        %h = arith.divui %tile, %chainTiles : index
)mlir" + chainTileText("t", grouped) + R"mlir(
        %x = arith.addi %tX, %c0 : index
        %y = arith.addi %tY, %c0 : index
)mlir";
    // A tile's %tileRun is false for a candidate some other's pair runs.
    tile += assign + blocks;
    chainDecode = tile;
    pieces["CTA_TILE"] =
        "    %run = arith.constant true\n"
        "    %cta = gpu.block_id x\n"
        "    %ctas = gpu.grid_dim x\n";
    // CTA c of C takes candidate tiles (x, y; t = x + X y) c, c + C,
    // c + 2 C, ... of the T, each head by head (%cItems items), so the CTAs
    // running at once read the keys of a few neighbouring requests, which
    // then stay in L2 (contiguous shares would have the running CTAs read
    // every request's keys at once). (T + C - 1 - c) / C tiles: c < C, so
    // nothing wraps.
    pieces["CTA_TILE"] += llvm::formatv(R"mlir(
    %cH = arith.constant {0} : index
    %chainX = {1}
    %chainY = arith.constant {2} : index
    %chainTiles = arith.muli %chainX, %chainY : index
    %chainUp = arith.addi %chainTiles, %ctas : index
    %chainUp1 = arith.subi %chainUp, %c1 : index
    %chainLeft = arith.subi %chainUp1, %cta : index
    %chainMine = arith.divui %chainLeft, %ctas : index
    %cItems = arith.muli %chainMine, %cH : index
    %chainAny = arith.cmpi ugt, %chainMine, %c0 : index
)mlir",
                                          heads, tilesXValue, tilesY)
                                .str();
    pieces["BLOCKS"] = "    %qfree = nvgpu.mbarrier.create -> !qbar\n";
    pieces["CONSUMER_TILE_VALUES"] = "";
    // The CTA's items, its candidate tiles (x, y) c, c + C, ..., each head
    // by head; %done counts items (Q's barrier phases), %ring the ring
    // position. (The producer loads the next item's Q from within this
    // one's key blocks: below.)
    std::string open = R"mlir(
        %tiles:2 = scf.for %item = %c0 to %cItems step %c1 iter_args(%ring = %c0, %done = %c0) -> (index, index) {)mlir" +
                       chainItemText("item", "%item") + R"mlir(
          %itemHT = arith.muli %itemH, %chainTiles : index
          %tile = arith.addi %itemT, %itemHT : index
)mlir" + tile;
    pieces["PRODUCER_TILE_OPEN"] = open;
    pieces["CONSUMER_TILE_OPEN"] = open + consumerTileValues + R"mlir(
      %qpar0 = arith.remui %done, %c2 : index
      %qpar = arith.index_cast %qpar0 : index to i1
      nvgpu.mbarrier.try_wait.parity %qbar[%c0], %qpar, %ticks : !qbar
)mlir";
    std::string next = R"mlir(
        %ringNext = arith.addi %ring, %nkb : index
        %doneNext = arith.addi %done, %c1 : index
        scf.yield %ringNext, %doneNext : index, index
        }
)mlir";
    pieces["CONSUMER_TILE_CLOSE"] = next;
    pieces["PRODUCER_TILE_CLOSE"] = next;
    pieces["Q_FREE"] = R"mlir(
      // This warp's Q is in its registers: its part of the Q tile is free
      // (the next tile's Q loads while this one runs) once every lane has
      // read it.
      %qfreeLanes = arith.constant -1 : i32
      nvvm.bar.warp.sync %qfreeLanes : i32
      scf.if %laneZero {
        %qtok = nvgpu.mbarrier.arrive %qfree[%c0] : !qbar -> !nvgpu.mbarrier.token
      }
)mlir";
    values["RING_BASE"] = "%ring";
    pieces["QFREE_INIT"] = llvm::formatv(
        "      %qfreeCount = arith.constant {0} : index\n"
        "      nvgpu.mbarrier.init %qfree[%c0], %qfreeCount : !qbar\n",
        4 * consumers);
    values["TILES_X_PARAM"] = dynamicBatch ? ", %tilesXArg: index" : "";
  }
  // The producer gives its registers to the consumers.
  pieces["PRODUCER_REGS"] = llvm::formatv(
      "      nvvm.setmaxregister decrease {0}\n", roles.producerRegs);
  pieces["CONSUMER_REGS"] = llvm::formatv(
      "      nvvm.setmaxregister increase {0}\n", roles.consumerRegs);
  // Q's TMA loads (expecting their bytes on %qbar) for consumer 0's query
  // tile `tileA` of batch element `bA` and consumer 1's (`tileB`, `bB`),
  // head `head`; `p` prefixes the names.
  auto loadQText = [&](StringRef tileA, StringRef bA, StringRef tileB,
                       StringRef bB, StringRef head, StringRef p) {
    std::string text = "        nvgpu.mbarrier.arrive.expect_tx %qbar[%c0], "
                       "%qBytesAll : !qbar\n";
    for (int64_t wg = 0; wg < consumers; ++wg)
      for (int64_t c = 0; c < dChunks; ++c)
        text += llvm::formatv(R"mlir(
        %{6}qa{0}{1} = arith.constant {2} : index
        %{6}qo{0}{1} = arith.addi %pad, %{6}qa{0}{1} : index
        %{6}qv{0}{1} = memref.view %smem[%{6}qo{0}{1}][] : !smem to !box64
        %{6}qd{0}{1} = arith.constant {3} : index
        %{6}qr{0}{1} = arith.muli {4}, %c64 : index
        nvgpu.tma.async.load %tmaQ[%{6}qd{0}{1}, %{6}qr{0}{1}, {7}, {5}], %qbar[%c0] to %{6}qv{0}{1} : !tmaQ, !qbar -> !box64
)mlir",
                              wg, c, wg * qBytes + c * 8192, c * 64,
                              wg ? tileB : tileA, wg ? bB : bA, p, head)
                    .str();
    return text;
  };
  std::string loadQ = loadQText("%tileA", "%bA", "%tileB", "%bB", "%h", "");
  pieces["PRODUCER_Q"] = loadQ;
  // Chained: the CTA's first item's Q before its key blocks, each next
  // item's a block into the one before (once the consumer has that one's
  // Q in its registers), not after the last: the ring keeps the producer
  // only two blocks ahead of the consumer, too little to hide Q's trip
  // from memory (Nsight: the consumer waited for Q at every item).
  std::string nextQ;
  if (chained) {
    pieces["PRODUCER_Q"] = "        %firstItem = arith.cmpi eq, %item, %c0 : index\n"
                           "        scf.if %firstItem {\n" +
                           loadQ + "        }\n";
    nextQ = R"mlir(
          %nqAt0 = arith.subi %nkb, %c1 : index
          %nqAt = arith.minui %nqAt0, %c1 : index
          %nqHere = arith.cmpi eq, %t, %nqAt : index
          %nqItem = arith.addi %item, %c1 : index
          %nqAny = arith.cmpi ult, %nqItem, %cItems : index
          %nqLoad = arith.andi %nqHere, %nqAny : i1
          scf.if %nqLoad {
            %nqPar0 = arith.remui %done, %c2 : index
            %nqPar = arith.index_cast %nqPar0 : index to i1
            nvgpu.mbarrier.try_wait.parity %qfree[%c0], %nqPar, %ticks : !qbar
)mlir" + chainItemText("nq", "%nqItem") + chainTileText("nq", grouped) + loadQText("%nqY", "%nqX", "%nqY", "%nqX", "%nqH", "nq") +
            "          }\n";
  }
  // An idle consumer frees K and V of every block once both landed (V's
  // wait also orders its release after the active consumer's of the
  // slot's previous values: the producer waited for those).
  pieces["IDLE_DRAIN"] = sc::detail::drainSlotsText(
      "%nkb", "%jBase",
      "              %dtokV = nvgpu.mbarrier.arrive %emptyV[%ds] : !bars -> !nvgpu.mbarrier.token\n",
      "            nvgpu.mbarrier.try_wait.parity %fullV[%ds], %dpar, %ticks : !bars\n");
  pieces["LOADKV"] = loadKeyValueText("ld", "%pj", dChunks, blockN,
                                      kbOf("%t", "%ld_kb"));
  // bf16 with P in f16 (the configuration's p_in_f16): P rounded to f16 (8x finer than
  // bf16, its rounding was most of the bf16 error) needs V in f16 too
  // (wgmma takes one type for both operands): the entry converts V once
  // before the kernel (buildConvertKernel), which reads it as f16.
  bool f16P = attentionKernelTakesF16Value(op);
  std::string pType = f16P ? "f16" : typeToString(elementType);
  std::string loadLoop = R"mlir(
        scf.for %t = %c0 to %nkb step %c1 {
          %pj = arith.addi %t, $RING_BASE : index
$PRODUCER_RING_SLOT          nvgpu.mbarrier.try_wait.parity %empty[%ps], %pepar, %ticks : !bars
$LOADKV$NEXT_Q        }
)mlir";
  pieces["PRODUCER_KV"] = replaceAll(
      "        // The request's key/value blocks into the ring: K once every\n"
      "        // consumer is done with the slot's keys, V once with its values.\n"
      "        %kvBatch = arith.addi %rA, %c0 : index\n" +
          loadLoop + pieces["PRODUCER_TILE_CLOSE"] + "      }\n",
      {{"LOADKV", pieces["LOADKV"]}, {"NEXT_Q", nextQ}});
  // Block %t: its ring slot once K landed, its key block, K's
  // offset.
  pieces["KEY_BLOCK_IN"] = R"mlir(
            %j = arith.addi %jBase, %t : index
)mlir" + ringPositionText("%j", "%slot", "%parity", RingWait::Full) + R"mlir(
            nvgpu.mbarrier.try_wait.parity %full[%slot], %parity, %ticks : !bars
)mlir" + kbOf("%t", "%kb") + R"mlir(
            %slotOff = arith.muli %slot, %slotBytes : index
            %kOff0 = arith.addi %pad, %ringOff : index
            %kOff = arith.addi %kOff0, %slotOff : index
)mlir";
  // Q K^T reads Q from registers (loaded once a tile), so only K comes
  // from shared memory, except in the pairs kernel, where it does not pay.
  bool qInRegs = mode != Mode::Pairs;
  pieces["QK"] = qInRegs ? qkRegsText(dChunks, blockN, typeToString(elementType))
                         : qkText(dChunks, blockN, typeToString(elementType));
  pieces["LOAD_QREGS"] =
      qInRegs ? loadQRegsText(headDim) : "";
  // The pipelined consumer loop: P (as wgmma A fragments, blockN / 16
  // k16 steps of 4 registers) is carried from one iteration to the next.
  {
    std::string types = "f32, f32, f32, f32", proP, loopIter, loopResults;
    int64_t pRegs = blockN / 16 * 4, idx = 4;
    for (int64_t kk = 0; kk < blockN / 16; ++kk)
      for (int64_t r = 0; r < 4; ++r, ++idx) {
        types += ", i32";
        proP += llvm::formatv(", %pa{0}_{1}", kk, r).str();
        loopIter += llvm::formatv(", %pp{0}_{1} = %pro#{2}", kk, r, idx).str();
        loopResults += llvm::formatv(", %pl{0}_{1}", kk, r).str();
      }
    values["PRO_N"] = std::to_string(4 + pRegs);
    values["PRO_TYPES"] = types;
    pieces["PRO_P"] = proP;
    pieces["LOOP_ITER"] = loopIter;
    pieces["LOOP_RESULTS"] = loopResults;
    pieces["KEEP_P"] = keepPText(blockN, "pp");
    pieces["DESC_K"] = wgmmaDescriptorText("kDesc", "kOff");
    pieces["DESC_V"] = wgmmaDescriptorText("vDesc", "vOff");
    pieces["PV_LOOP"] = pvText(dChunks, blockN, headDim, pType, "pp", "%o",
                               "%oPV");
    pieces["PV_LAST"] = pvText(dChunks, blockN, headDim, pType, "pl", "%oL",
                               "%oFin");
    pieces["RESCALE_LOOP"] = rescaleText(headDim, "%oPV", "%oScaled");
  }
  // Skipping unmoved maxima (softmaxText) pays everywhere but on pairs of
  // candidates, which keep the shuffles; guessing that no maximum moves
  // (speculativeSoftmaxText) pays with 64-key blocks (docs/decisions.md,
  // "softmax instruction choices"). With 128-key
  // blocks the scores, the guessed P and O do not fit the registers
  // (ptxas spilled 252 bytes on log-linear blocks of 128).
  bool speculativeSoftmax = mode != Mode::Pairs && blockN == 64;
  // A row's first block: its maximum moves (from -1e30), so no guess.
  pieces["SOFTMAX_FRESH"] = softmaxText(
      blockN, maskTail, pType, /*skipUnmovedMaxima=*/mode != Mode::Pairs);
  pieces["SOFTMAX"] = speculativeSoftmax
                          ? speculativeSoftmaxText(blockN, maskTail, pType)
                          : pieces["SOFTMAX_FRESH"];
  // A tile's first block: the rows' running maxima and sums start over.
  pieces["FRESH_ROWS"] = R"mlir(            %m0 = arith.addf %mInit, %zeroF : f32
            %m8 = arith.addf %mInit, %zeroF : f32
            %l0 = arith.addf %zeroF, %zeroF : f32
            %l8 = arith.addf %zeroF, %zeroF : f32
)mlir";
  pieces["FINISH"] = finishText(headDim, typeToString(elementType));
  // O's TMA stores from the staging tile at `stageAt` to head `head`.
  auto storeOText = [&](StringRef stageAt, StringRef head,
                        StringRef row = "%q0", StringRef batch = "%bW") {
    std::string text;
    for (int64_t c = 0; c < dChunks; ++c)
      text += llvm::formatv(R"mlir(
      %so{0} = arith.constant {1} : index
      %sa{0} = arith.addi {3}, %so{0} : index
      %sv{0} = memref.view %smem[%sa{0}][] : !smem to !box64
      %sd{0} = arith.constant {2} : index
      nvgpu.tma.async.store %sv{0} to %tmaO[%sd{0}, {5}, {4}, {6}] : !box64 -> !tmaO
)mlir",
                            c, c * 8192, c * 64, stageAt, head, row, batch)
                  .str();
    return text;
  };
  pieces["STOREO"] = storeOText("%stageAt", "%h");
  pieces["STAGED_STORE"] = R"mlir(
          nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
          nvvm.barrier id = %wgBar number_of_threads = %c128i32
          scf.if %elected {
$STOREO
            nvvm.cp.async.bulk.commit.group
            // The staging tile must outlive the stores' reads of it, not
            // their writes: the CTA (and its shared memory) may go once
            // they are read.
            nvvm.cp.async.bulk.wait_group 0 {read}
          }
)mlir";
  values["KEYLEN"] =
      dynamicKey ? std::string("arith.addi %keyLenArg, %c0 : index")
                 : llvm::formatv("arith.constant {0} : index", keyLen).str();
  values["QUERYLEN"] =
      dynamicQuery ? std::string("arith.addi %queryLenArg, %c0 : index")
                   : llvm::formatv("arith.constant {0} : index", queryLen).str();
  values["TABLES_PARAM"] = runtimeTables ? ", %tables: memref<?xi32>" : "";
  values["LEN_PARAMS"] =
      std::string(dynamicQuery ? ", %queryLenArg: index" : "") +
      (dynamicKey ? ", %keyLenArg: index" : "");
  std::string consumerBody = kConsumerTileBody;
  if (chained) {
    // The state one head leaves to the next: O before its last P V, the
    // row sums, and the last P (as wgmma A fragments).
    int64_t pRegs = blockN / 16 * 4;
    std::string types = "!accO, f32, f32", undef = "          %uO = llvm.mlir.undef : !accO\n",
                undefNames = "%uO, %zeroF, %zeroF", carry = "%oC = %st0#0, %lC0 = %st0#1, %lC8 = %st0#2",
                carried = "%oC, %lC0, %lC8", r0 = "%hr0#0, %hr0#1, %hr0#2", r1 = "%hr1#0, %hr1#1, %hr1#2",
                last = "          %oL = arith.select %true, %stN#0, %stN#0 : !accO\n"
                       "          %lEnd0 = arith.select %true, %stN#1, %stN#1 : f32\n"
                       "          %lEnd8 = arith.select %true, %stN#2, %stN#2 : f32\n";
    undef += "          %uP = llvm.mlir.undef : i32\n";
    int64_t idx = 3;
    for (int64_t kk = 0; kk < blockN / 16; ++kk)
      for (int64_t r = 0; r < 4; ++r, ++idx) {
        types += ", i32";
        undefNames += ", %uP";
        carry += llvm::formatv(", %pc{0}_{1} = %st0#{2}", kk, r, idx).str();
        carried += llvm::formatv(", %pc{0}_{1}", kk, r).str();
        r0 += llvm::formatv(", %hr0#{0}", idx).str();
        r1 += llvm::formatv(", %hr1#{0}", idx).str();
        last += llvm::formatv("          %pl{0}_{1} = arith.select %true, %stN#{2}, "
                              "%stN#{2} : i32\n",
                              kk, r, idx)
                    .str();
      }
    pieces["PV_CHAIN"] = pvText(dChunks, blockN, headDim, pType, "pc", "%oC", "%oEnd");
    pieces["KEEP_PC"] = keepPText(blockN, "pc");
    // O / row sums into the consumer's O staging tile (once TMA has read
    // the item before's out of it), then out by TMA to the item's place:
    // the item before's (%hPrev) under the next one's first block, the last
    // item's (%hIdx) at the end, waiting for TMA to have read it before the
    // CTA may leave.
    auto stagedFinish = [&](StringRef item, bool last) {
      // Item `item`'s (candidate tile, head): where its O goes.
      std::string p = last ? "last" : "prev";
      std::string head = "%" + p + "H", row = "%" + p + "Q0",
                  batch = "%" + p + "X";
      return chainItemText(p, item) + chainTileText(p, grouped) +
             llvm::formatv("          %{0}Q0 = arith.muli %{0}Y, %c64 : index\n",
                           p)
                 .str() +
             "          scf.if %elected {\n"
             "            nvvm.cp.async.bulk.wait_group 0 {read}\n"
             "          }\n" +
             finishText(headDim, typeToString(elementType), "%oStageAt") +
             "          nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, "
             "space = #nvvm.shared_space<cta>}\n"
             "          nvvm.barrier id = %wgBar number_of_threads = %c128i32\n"
             "          scf.if %elected {\n" +
             storeOText("%oStageAt", head, row, batch) +
             "            nvvm.cp.async.bulk.commit.group\n" +
             (last ? "            nvvm.cp.async.bulk.wait_group 0 {read}\n" : "") +
             "          }\n";
    };
    pieces["FINISH_PREV"] = stagedFinish("%hPrev", /*last=*/false);
    pieces["FINISH_LAST"] = stagedFinish("%hIdx", /*last=*/true);
    pieces["CHAIN_OSTAGE"] = llvm::formatv(
        "      %oStageOff = arith.constant {0} : index\n"
        "      %oStageW = arith.muli %w, %qBytes : index\n"
        "      %oStageOff1 = arith.addi %oStageOff, %oStageW : index\n"
        "      %oStageAt = arith.addi %pad, %oStageOff1 : index\n"
        "      %oStage = memref.view %smem[%oStageAt][] : !smem to !stage\n",
        oStageOff)
                                 .str();
    consumerBody = replaceAll(
        kChainedConsumerBody,
        {{"CHAIN_DECODE", chainDecode},
         {"CHAIN_HEAD", kChainedHead},
         {"CHAIN_VALUES", consumerTileValues},
         {"CHAIN_Q", "      %qpar0 = arith.remui %done, %c2 : index\n"
                     "      %qpar = arith.index_cast %qpar0 : index to i1\n"
                     "      nvgpu.mbarrier.try_wait.parity %qbar[%c0], %qpar, %ticks : !qbar\n"},
         {"FIRST_HEAD", kPipelinedPrologue + pipelinedLoopText()},
         {"NEXT_HEAD", chainedPrologueText() + pipelinedLoopText()},
         {"LAST_HEAD", kPipelinedLastPV},
         {"LAST_STATE", last},
         {"UNDEF_STATE", undef},
         {"UNDEF_NAMES", undefNames},
         {"STATE_N", std::to_string(3 + pRegs)},
         {"STATE_TYPES", types},
         {"CARRY", carry},
         {"CARRIED_NAMES", carried},
         {"R0_NAMES", r0},
         {"R1_NAMES", r1}});
  }
  // The consumer loop first: its own pieces are filled in with the rest.
  std::string text = replaceAll(
      kAttentionTemplate,
      {{"CONSUMER_BODY", consumerBody},
       {"TILE_SETUP", kConsumerTileSetup},
       {"CONSUMER_LOOP", kPipelinedPrologue + pipelinedLoopText() +
                             kPipelinedLastPV}});
  text = replaceAll(replaceAll(text, pieces), values);

  if (failed(sc::detail::installTemplate(op.getLoc(), gpuModule, text,
                                         "attention")))
    return failure();

  // Launch: one CTA per (batch element, 64-row query tile, head), batch
  // fastest so that the candidates of one request run side by side and
  // share its keys and values in L2.
  auto dim = [](int64_t size, const std::string &symbol) {
    return ShapedType::isDynamic(size) ? LaunchDim::sym(symbol)
                                       : LaunchDim::of(size);
  };
  LaunchDim batch = dim(qType.getDimSize(0), binding.batchSymbol);
  LaunchDim keyBatch = dim(kType.getDimSize(0), binding.keyBatchSymbol);
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 128 * (consumers + 1);
  // Pairs: CTA x takes candidate x and its partner when x leads a pair or
  // runs alone; the CTAs of partners (about half) return at once.
  launch.grid[0] = batch;
  int64_t rowsPerCta = mode == Mode::Split ? 128 : 64;
  launch.grid[1] =
      dynamicQuery ? LaunchDim::ceilDiv(binding.queryLenSymbol, rowsPerCta)
                   : LaunchDim::of(llvm::divideCeil(queryLen, rowsPerCta));
  launch.grid[2] = LaunchDim::of(heads);
  if (chained) {
    // Resident CTAs, each walking its share of the candidate tiles, head by
    // head.
    launch.grid[0] = LaunchDim::sym("SMS", ctasPerSM);
    launch.grid[1] = LaunchDim::of(1);
    launch.grid[2] = LaunchDim::of(1);
  }
  launch.sharedBytes = sharedBytes;
  // [batch, heads, rows, head dim]; rows (and so the outer strides) may be
  // a dynamic length.
  auto map = [&](const std::string &tensor, int64_t rows,
                 const std::string &rowsSymbol, LaunchDim batchDim,
                 int64_t boxRows) {
    LaunchParam p;
    p.kind = LaunchParam::Kind::Tma;
    p.tensor = tensor;
    auto rowsTimes = [&](int64_t f) {
      return ShapedType::isDynamic(rows) ? LaunchDim::sym(rowsSymbol, f)
                                         : LaunchDim::of(rows * f);
    };
    p.dims = {LaunchDim::of(headDim), rowsTimes(1), LaunchDim::of(heads),
              batchDim};
    p.stridesBytes = {LaunchDim::of(headDim * eltBytes),
                      rowsTimes(headDim * eltBytes),
                      rowsTimes(heads * headDim * eltBytes)};
    p.box = {64, boxRows, 1, 1};
    return p;
  };
  launch.params.push_back(
      map(binding.query, queryLen, binding.queryLenSymbol, batch, 64));
  launch.params.push_back(
      map(binding.key, keyLen, binding.keyLenSymbol, keyBatch, blockN));
  launch.params.push_back(
      map(binding.value, keyLen, binding.keyLenSymbol, keyBatch, 64));
  launch.params.push_back(
        map(binding.result, queryLen, binding.queryLenSymbol, batch, 64));
  if (indexed) {
    LaunchParam p;
    p.tensor = binding.index;
    launch.params.push_back(p);
  }
  if (mode == Mode::Pairs) {
    LaunchParam p;
    p.tensor = binding.pairs;
    launch.params.push_back(p);
  }
  if (grouped) {
    LaunchParam p;
    p.tensor = binding.order;
    launch.params.push_back(p);
  }
  for (auto [isDynamic, symbol] :
       {std::pair<bool, std::string>{dynamicQuery, binding.queryLenSymbol},
        std::pair<bool, std::string>{dynamicKey, binding.keyLenSymbol}}) {
    if (!isDynamic)
      continue;
    LaunchParam p;
    p.kind = LaunchParam::Kind::Dim;
    p.dim = LaunchDim::sym(symbol);
    launch.params.push_back(p);
  }
  if (runtimeTables) {
    auto logLinear = cast<LogLinearMaskAttr>(op.getMaskAttr());
    LaunchParam p;
    p.kind = LaunchParam::Kind::LogLinearTables;
    p.queryLen = dynamicQuery ? LaunchDim::sym(binding.queryLenSymbol)
                              : LaunchDim::of(queryLen);
    p.keyLen = dynamicKey ? LaunchDim::sym(binding.keyLenSymbol)
                          : LaunchDim::of(keyLen);
    p.maskBlock = blockN;
    p.localWidth = logLinear.getLocalWidth();
    p.anchors = static_cast<int64_t>(logLinear.getAnchors());
    p.causal = logLinear.getCausal();
    launch.params.push_back(p);
  }
  if (chained && batch.constant == 0 && !batch.symbol.empty()) {
    LaunchParam tilesX;
    tilesX.kind = LaunchParam::Kind::Dim;
    tilesX.dim = batch;
    launch.params.push_back(tilesX);
  }
  StringRef modeText =
      mode == Mode::Pairs
          ? "two consumer warpgroups on two candidates of one request "
            "(paired by the kernel before), sharing its K/V"
      : mode == Mode::Split
          ? "two consumer warpgroups on the two 64-row halves of a 128-row "
            "query tile, sharing K/V"
          : "one consumer warpgroup on a 64-row query tile";
  launch.summary =
      llvm::formatv(
          "{0}: attention {1} x {2} keys, {3} heads, head dim {4}, {5}, "
          "{6}{7}, TMA producer warpgroup, {8}-key blocks{9}, {10} ring "
          "slots, wgmma QK^T and PV{12}, online softmax (exp2, fp32), TMA "
          "stores, {11} B shared memory",
          kernelName,
          dynamicQuery ? std::string("?") : std::to_string(queryLen),
          dynamicKey ? std::string("?") : std::to_string(keyLen), heads,
          headDim,
          typeToString(elementType),
          indexed ? "keys/values read through the index, " : "", modeText,
          blockN,
          runtimeTables
              ? std::string(" (kept blocks from BSR tables the runtime builds "
                            "for each call's lengths)")
          : mask ? llvm::formatv(" ({0} of {1} block pairs kept, BSR tables in "
                               "the module)",
                               keptPairs,
                               llvm::divideCeil(queryLen, blockN) *
                                   numKeyBlocks)
                     .str()
               : std::string(),
          stages, sharedBytes,
          f16P ? " (P in f16, V read as f16: converted before the kernel)"
               : "")
          .str();
  if (chained)
    launch.summary +=
        llvm::formatv("; chained heads: {0} CTAs an SM, CTA c of C walking "
                      "candidates c, c + C, ...{2}, each candidate's "
                      "{1} heads in turn, the consumer's pipeline running on "
                      "from one to the next, O by TMA through a staging tile "
                      "of its own",
                      ctasPerSM, heads,
                      grouped ? " in request order (the grouping kernel's "
                                "table)"
                              : "")
            .str();
  return launch;
}
