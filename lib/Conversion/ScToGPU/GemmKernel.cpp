//===- GemmKernel.cpp - sc.batch_matmul to a Hopper kernel ----------------===//
//
// One CTA of one warpgroup (128 threads) computes a 128x128 tile of one batch
// element, walking K in 64-wide tiles:
//
//   thread 0: TMA loads of k-tiles 0..S-2 into ring slots, mbarrier expect_tx
//   for each k-tile kt:
//     wait mbarrier[kt % S] (phase parity (kt / S) % 2)
//     wgmma 128x128x64 from the slot (nvgpu.warpgroup.mma: 8 x m64n128k16,
//       which waits for the previous group, so slot (kt-1) % S is free)
//     barrier; thread 0 refills that slot with k-tile kt + S - 1
//   wait all wgmma; accumulators -> shared memory (fp32, reusing the ring)
//   every thread: element-wise epilogue (the op's region, as a device
//   function) on its elements, bounds-checked store to global memory.
//
// A and B are read through 3-D tensor maps when batched ([B, M, K] and
// [B, K, N]; 2-D when shared), so that rows past M and K are zero-filled,
// never read from the next batch element.
// Partial tiles in M, N and K come from TMA's zero fill and the store's
// bounds check.
//
// The kernel body is a textual template: it reads as the kernel it is, and
// only the tile arithmetic and types vary. The epilogue is built op by op.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"
#include "TemplateUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using mlir::sc::detail::replaceAll;
using mlir::sc::detail::typeToString;

namespace {

constexpr int64_t kTileM = 128, kTileK = 64;

// What both TMA schedules declare: tensor map, barrier, accumulator,
// descriptor and tile types ($TYPES), and the tensor maps cast from the
// kernel's pointer parameters ($CASTS).
constexpr const char *kTmaTypesTemplate = R"mlir(
!tmaA = !nvgpu.tensormap.descriptor<tensor = memref<$ABOXx$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaAW = !nvgpu.tensormap.descriptor<tensor = memref<$ACCMx64x$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaB = !nvgpu.tensormap.descriptor<tensor = memref<$BBOXx$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaB2 = !nvgpu.tensormap.descriptor<tensor = memref<64x64x$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = $S>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<$ACCMx$BNxf32>>
!dA = !nvgpu.warpgroup.descriptor<tensor = memref<$ACCMx64x$T, 3>>
!dB = !nvgpu.warpgroup.descriptor<tensor = memref<64x$BNx$T, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!tileA = memref<$ABOXx$T, #gpu.address_space<workgroup>>
!tileAW = memref<$ACCMx64x$T, #gpu.address_space<workgroup>>
!tileB = memref<$BBOXx$T, #gpu.address_space<workgroup>>
!tileB2 = memref<64x$BNx$T, #gpu.address_space<workgroup>>
)mlir";

constexpr const char *kTmaCastsTemplate = R"mlir(
    %tmaA = builtin.unrealized_conversion_cast %tmaAp : !llvm.ptr to !tmaA
    %tmaAW = builtin.unrealized_conversion_cast %tmaAp : !llvm.ptr to !tmaAW
    %tmaB = builtin.unrealized_conversion_cast %tmaBp : !llvm.ptr to !tmaB
    %tmaB2 = builtin.unrealized_conversion_cast %tmaBp : !llvm.ptr to !tmaB2
)mlir";

// $NAME placeholders are replaced by replaceAll(); every name used here is
// listed in buildGemmKernel.
constexpr const char *kKernelTemplate = R"mlir(
$TYPES
!stageW = memref<$ACCMx$BNxf32, strided<[$BNP, 1]>, #gpu.address_space<workgroup>>
!stage = memref<128x$BNPxf32, #gpu.address_space<workgroup>>

gpu.module @scratch {
  gpu.func @$KERNEL(%tmaAp: !llvm.ptr, %tmaBp: !llvm.ptr, %C: $CTYPE$EPI_PARAMS) kernel
      attributes {nvvm.maxntid = array<i32: $THREADS, 1, 1>} {
$CASTS
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %cS = arith.constant $S : index
    %cSm1 = arith.constant $SM1 : index
    %cM = arith.constant $M : index
    %cN = arith.constant $N : index
    %cBN = arith.constant $BN : index
    %kTiles = arith.constant $KT : index
    %tileBytesA = arith.constant 16384 : index
    %tileBytesB = arith.constant $TILEB : index
    %wgBytesA = arith.constant $WGBYTESA : index
    %ringB = arith.constant $RINGB : index
    %txBytes = arith.constant $TX : index
    %ticks = arith.constant 10000000 : index
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %nb = gpu.block_id x
    %mb = gpu.block_id y
    %b = gpu.block_id z
    %n0 = arith.muli %nb, %cBN : index
    %m0 = arith.muli %mb, %c128 : index
    %aRow = $AROW
    %leader = arith.cmpi eq, %tid, %c0 : index
    %smem = gpu.dynamic_shared_memory : !smem
    // 128B-swizzled TMA tiles need 1024-byte aligned shared memory.
    %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
    %mis = arith.remui %base, %c1024 : index
    %pad0 = arith.subi %c1024, %mis : index
    %pad = arith.remui %pad0, %c1024 : index
    %wgOffA = arith.muli %wg, %wgBytesA : index
    %bars = nvgpu.mbarrier.create -> !bars
    scf.if %leader {
      scf.for %s = %c0 to %cS step %c1 {
        nvgpu.mbarrier.init %bars[%s], %c1 : !bars
      }
      nvgpu.tma.prefetch.descriptor %tmaA : !tmaA
      nvgpu.tma.prefetch.descriptor %tmaB : !tmaB
    }
    gpu.barrier

    %prologue = arith.minui %cSm1, %kTiles : index
    scf.for %kt = %c0 to %prologue step %c1 {
      scf.if %leader {
$LOAD_PROLOGUE
      }
    }
    // Warpgroup %wg multiplies rows [%wg * ACCM, (%wg + 1) * ACCM) of the
    // A tile with the whole B tile.
    %acc0 = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %accN = scf.for %kt = %c0 to %kTiles step %c1 iter_args(%acc = %acc0) -> (!acc) {
      %s = arith.remui %kt, %cS : index
      %round = arith.divui %kt, %cS : index
      %par = arith.remui %round, %c2 : index
      %parity = arith.index_cast %par : index to i1
      nvgpu.mbarrier.try_wait.parity %bars[%s], %parity, %ticks : !bars
      %aOff0 = arith.muli %s, %tileBytesA : index
      %aOff1 = arith.addi %aOff0, %pad : index
      %aOff = arith.addi %aOff1, %wgOffA : index
      %bOff0 = arith.muli %s, %tileBytesB : index
      %bOff1 = arith.addi %bOff0, %ringB : index
      %bOff = arith.addi %bOff1, %pad : index
      %va = memref.view %smem[%aOff][] : !smem to !tileAW
      %vb = memref.view %smem[%bOff][] : !smem to !tileB2
      %da = nvgpu.warpgroup.generate.descriptor %va, %tmaAW : !tileAW, !tmaAW -> !dA
      %db = nvgpu.warpgroup.generate.descriptor %vb, %tmaB2 : !tileB2, !tmaB2 -> !dB
      %acc2 = nvgpu.warpgroup.mma %da, %db, %acc {transposeB} : !dA, !dB, !acc -> !acc
      // The mma of kt-1 is complete (wait_group 1 in every warpgroup): once
      // all threads got here its slot takes k-tile kt + S - 1.
      %next = arith.addi %kt, %cSm1 : index
      %more = arith.cmpi ult, %next, %kTiles : index
      scf.if %more {
        gpu.barrier
        scf.if %leader {
$LOAD_REFILL
        }
      }
      scf.yield %acc2 : !acc
    }
    nvvm.wgmma.wait.group.sync.aligned 0
    gpu.barrier
    // Epilogue through a shared staging tile of 128 x BN fp32, rows padded
    // by 8 floats so that the fragment stores of 8 rows do not hit the same
    // banks. Each
    // warpgroup stores its accumulator rows; nvgpu.warpgroup.mma.store places
    // warpgroup w's rows at w * ACCM from the base it is given (it derives
    // them from the thread id), so both get the same 64-row view. Then eight
    // consecutive columns per thread: one 32-byte shared load, the epilogue
    // on each element, one vector store (N is a multiple of 8, so a vector
    // is either fully inside N or fully outside).
    %stage = memref.view %smem[%pad][] : !smem to !stage
    %stageW = memref.subview %stage[0, 0] [$ACCM, $BN] [1, 1] : !stage to !stageW
    nvgpu.warpgroup.mma.store %accN, %stageW : !acc to !stageW
    gpu.barrier
    %total = arith.constant $STAGEELEMS : index
    %step = arith.constant $STAGESTEP : index
    %first = arith.muli %tid, %c8 : index
    scf.for %i = %first to %total step %step {
      %r = arith.divui %i, %cBN : index
      %col = arith.remui %i, %cBN : index
      %m = arith.addi %m0, %r : index
      %n = arith.addi %n0, %col : index
      %inM = arith.cmpi ult, %m, %cM : index
      %inN = arith.cmpi ult, %n, %cN : index
      %in = arith.andi %inM, %inN : i1
      scf.if %in {
        %v = vector.load %stage[%r, %col] {alignment = 16} : !stage, vector<8xf32>
        %o_init = ub.poison : vector<8x$OUT>
$LANES
        vector.store %o_7, %C[%b, %m, %n] {alignment = 16} : $CTYPE, vector<8x$OUT>
      }
    }
    gpu.return
  }

  // The op's epilogue region; its body is built after parsing.
  func.func private @$KERNEL_epilogue(f32, index, index, index$EPI_TYPES) -> $OUT
}
)mlir";

// Loads k-tile %$KT of A (one 128x64 box) and B (BN/64 boxes of 64x64) into
// ring slot (%$SLOT mod S), signalling barrier group %$FULL; local names are
// prefixed with $P so that several uses do not collide.
constexpr const char *kLoadHeadTemplate = R"mlir(
        %$P_s = arith.remui %$SLOT, %cS : index
        %$P_k = arith.muli %$KT, %c64 : index
        %$P_aOff0 = arith.muli %$P_s, %tileBytesA : index
        %$P_aOff = arith.addi %$P_aOff0, %pad : index
        %$P_bOff0 = arith.muli %$P_s, %tileBytesB : index
        %$P_bOff1 = arith.addi %$P_bOff0, %ringB : index
        %$P_bOff = arith.addi %$P_bOff1, %pad : index
        %$P_va = memref.view %smem[%$P_aOff][] : !smem to !tileA
        nvgpu.mbarrier.arrive.expect_tx %$FULL[%$P_s], %txBytes : !bars
        nvgpu.tma.async.load %tmaA[%$P_k, %aRow$ACOORD], %$FULL[%$P_s] to %$P_va : !tmaA, !bars -> !tileA
)mlir";

// Chunk $J of the B tile: columns [n0 + 64 J, n0 + 64 J + 64), 8 KB apart:
// 64 k-rows of 64 columns (N-major), or 64 n-rows of 64 k (K-major, the rhs
// transposed).
constexpr const char *kLoadChunkTemplate = R"mlir(
        %$P_cb$J = arith.constant $CHUNKOFF : index
        %$P_bo$J = arith.addi %$P_bOff, %$P_cb$J : index
        %$P_cn$J = arith.constant $CHUNKCOL : index
        %$P_n$J = arith.addi %n0, %$P_cn$J : index
        %$P_vb$J = memref.view %smem[%$P_bo$J][] : !smem to !tileB
        nvgpu.tma.async.load %tmaB[$BCOORDS$BCOORD], %$FULL[%$P_s] to %$P_vb$J : !tmaB, !bars -> !tileB
)mlir";

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
!tmaC = !nvgpu.tensormap.descriptor<tensor = memref<1x64x$EOUTx$OUT, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!boxC = memref<1x64x$EOUTx$OUT, #gpu.address_space<workgroup>>
!stageC = memref<$HALFELEMSx$OUT, #gpu.address_space<workgroup>>

gpu.module @scratch {
  gpu.func @$KERNEL(%tmaAp: !llvm.ptr, %tmaBp: !llvm.ptr, %C: $CTYPE$EPI_PARAMS, %tmaCp: !llvm.ptr) kernel
      attributes {nvvm.maxntid = array<i32: 384, 1, 1>} {
$CASTS
    %tmaC = builtin.unrealized_conversion_cast %tmaCp : !llvm.ptr to !tmaC
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %c16384 = arith.constant 16384 : index
    %cS = arith.constant $S : index
    %cM = arith.constant $M : index
    %cN = arith.constant $N : index
    %cBN = arith.constant 256 : index
    %cGN = arith.constant $GN : index
    %cGM = arith.constant $GM : index
    %cGroup = arith.constant $GROUP : index
    %kTiles = arith.constant $KT : index
    %cTileM = arith.constant $TILEM : index
    %tileBytesA = arith.constant $ABYTES : index
    %tileBytesB = arith.constant 32768 : index
    %wgBytesA = arith.constant $WGBYTESA : index
    %ringB = arith.constant $RINGB : index
    %stageOff = arith.constant $STAGEOFF : index
    %halfBytes = arith.constant $HALFBYTES : index
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
    %batch = memref.dim %C, %c0 : $CTYPE
    %perBatch = arith.muli %cGN, %cGM : index
    %perGroup = arith.muli %cGroup, %cGN : index
    %numTiles = arith.muli %batch, %perBatch : index
    // Tiles of this CTA: cta, cta + ctas, ... below numTiles.
    %left = arith.subi %numTiles, %cta : index
    %leftP = arith.addi %left, %ctas : index
    %leftM = arith.subi %leftP, %c1 : index
    %mineRaw = arith.divui %leftM, %ctas : index
    %any = arith.cmpi ult, %cta, %numTiles : index
    %mine = arith.select %any, %mineRaw, %c0 : index
    %smem = gpu.dynamic_shared_memory : !smem
    %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
    %mis = arith.remui %base, %c1024 : index
    %pad0 = arith.subi %c1024, %mis : index
    %pad = arith.remui %pad0, %c1024 : index
    %full = nvgpu.mbarrier.create -> !bars
    %empty = nvgpu.mbarrier.create -> !bars
    // wgmma shared-memory descriptors: (address >> 4) in bits 0-13 over
    // fixed bits for the 128B swizzle: leading byte offset 8192 (between
    // 64-column chunks of an MN-major tile), stride byte offset 1024 (between
    // 8-row groups), swizzle mode 1 (128B) in bits 62-63.
    %descBits = arith.constant 4611686293338849280 : i64
    %descAddrMask = arith.constant 262143 : i64
    %c4i64 = arith.constant 4 : i64
    %smemBase = arith.index_cast %base : index to i64
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %cS step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !bars
        nvgpu.mbarrier.init %empty[%s], %cReleases : !bars
      }
      nvgpu.tma.prefetch.descriptor %tmaA : !tmaA
      nvgpu.tma.prefetch.descriptor %tmaB : !tmaB
    }
    gpu.barrier
    %isProducer = arith.cmpi eq, %wg, %c2 : index
    scf.if %isProducer {
      // The producer needs few registers: give them to the consumers.
      nvvm.setmaxregister decrease 40
      %leader = arith.cmpi eq, %tid, %c256 : index
      scf.if %leader {
        scf.for %i = %c0 to %mine step %c1 {
$DECODE
          %j0 = arith.muli %i, %kTiles : index
          %itEnd = scf.for %kt = %c0 to %kTiles step %c1 iter_args(%j = %j0) -> (index) {
            %s = arith.remui %j, %cS : index
            %round = arith.divui %j, %cS : index
            %rpar = arith.remui %round, %c2 : index
            %epar = arith.xori %rpar, %c1 : index
            %eparity = arith.index_cast %epar : index to i1
            nvgpu.mbarrier.try_wait.parity %empty[%s], %eparity, %ticks : !bars
$LOAD
            %j1 = arith.addi %j, %c1 : index
            scf.yield %j1 : index
          }
        }
      }
    } else {
      nvvm.setmaxregister increase 232
      %wgOffA = arith.muli %wg, %wgBytesA : index
      %c32 = arith.constant 32 : index
      %lane = arith.remui %tid, %c32 : index
      %laneZero = arith.cmpi eq, %lane, %c0 : index
      // The warpgroup's output staging (one 64x128 half of its rows at a
      // time, as 64-row boxes of 128 bytes, 128B-swizzled like the TMA map
      // of C), its named barrier (2 + wg, 128 threads) and the thread that
      // issues its TMA stores.
      %inWg = arith.remui %tid, %c128 : index
      %elected = arith.cmpi eq, %inWg, %c0 : index
      %wgBar2 = arith.addi %wg, %c2 : index
      %wgBar = arith.index_cast %wgBar2 : index to i32
      %wgCount = arith.constant 128 : i32
      %stage0 = arith.addi %pad, %stageOff : index
      %stageWg = arith.muli %wg, %halfBytes : index
      %stageBase = arith.addi %stage0, %stageWg : index
      %stage = memref.view %smem[%stageBase][] : !smem to !stageC
      %firstTile = $FIRSTTILE
      scf.for %i = %firstTile to %mine step %cTileStep {
$DECODE
        %j0 = arith.muli %i, %kTiles : index
$ORDER_BEFORE
        // The first k-tile is peeled: its first wgmma ignores the
        // accumulator, so nothing has to zero it.
        %accU = llvm.mlir.undef : !accS
$KTILE_FIRST
        %jNext = arith.addi %j0, %c1 : index
        %accL, %accR, %itEnd = scf.for %kt = %c1 to %kTiles step %c1 iter_args(%aL = %k0_L, %aR = %k0_R, %j = %jNext) -> (!accS, !accS, index) {
$KTILE
          // One group is left in flight: the previous k-tile's wgmma is
          // done, warp by warp, so lane 0 of each warp that read the slot
          // frees it.
          scf.if %laneZero {
            %jp = arith.subi %j, %c1 : index
            %sp = arith.remui %jp, %cS : index
            %tok = nvgpu.mbarrier.arrive %empty[%sp] : !bars -> !nvgpu.mbarrier.token
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
        }
$EPILOGUE
      }
      // Shared memory must outlive the TMA stores that read it.
      scf.if %elected {
        nvvm.cp.async.bulk.wait_group 0
      }
    }
    gpu.return
  }

  // The op's epilogue region; its body is built after parsing.
  func.func private @$KERNEL_epilogue(f32, index, index, index$EPI_TYPES) -> $OUT
}
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
        %i_s = arith.muli %i, %ctas : index
        %t = arith.addi %cta, %i_s : index
        %b = arith.divui %t, %perBatch : index
        %tb = arith.remui %t, %perBatch : index
        %grp = arith.divui %tb, %perGroup : index
        %inGrp = arith.remui %tb, %perGroup : index
        %firstM = arith.muli %grp, %cGroup : index
        %rowsLeft = arith.subi %cGM, %firstM : index
        %grpRows = arith.minui %rowsLeft, %cGroup : index
        %mOff = arith.remui %inGrp, %grpRows : index
        %mb = arith.addi %firstM, %mOff : index
        %nb = arith.divui %inGrp, %grpRows : index
        %n0 = arith.muli %nb, %cBN : index
        %m0 = arith.muli %mb, %cTileM : index
        %aRow = $AROW
)mlir";


// The portable path: one thread per output element, fp32 accumulation over
// K, the same epilogue function. Correct for every shape and layout the op
// allows; used for sm_80 and where the Hopper path does not apply.
constexpr const char *kSimtTemplate = R"mlir(
gpu.module @scratch {
  gpu.func @$KERNEL(%A: $ATYPE, %B: $BTYPE, %C: $CTYPE$EPI_PARAMS) kernel
      attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %cM = arith.constant $M : index
    %cN = arith.constant $N : index
    %cK = arith.constant $K : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %b = gpu.block_id z
    %base = arith.muli %bid, %c256 : index
    %flat = arith.addi %base, %tid : index
    %m = arith.divui %flat, %cN : index
    %n = arith.remui %flat, %cN : index
    %in = arith.cmpi ult, %m, %cM : index
    scf.if %in {
      %acc = scf.for %k = %c0 to %cK step %c1 iter_args(%sum = %zero) -> (f32) {
        %a = memref.load %A[$AIDX] : $ATYPE
        %x = memref.load %B[$BIDX] : $BTYPE
        %af = $AEXT
        %xf = $BEXT
        %p = arith.mulf %af, %xf : f32
        %s = arith.addf %sum, %p : f32
        scf.yield %s : f32
      }
      %o = func.call @$KERNEL_epilogue(%acc, %b, %m, %n$EPI_ARGS) : (f32, index, index, index$EPI_TYPES) -> $OUT
      memref.store %o, %C[%b, %m, %n] : $CTYPE
    }
    gpu.return
  }

  func.func private @$KERNEL_epilogue(f32, index, index, index$EPI_TYPES) -> $OUT
}
)mlir";

MemRefType memrefOf(RankedTensorType t) {
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// The epilogue region as a device function
/// (acc, b, m, n, memrefs...) -> result element: tensor.extract on the
/// epilogue operands becomes memref.load; everything else is cloned.
LogicalResult buildEpilogueFunction(BatchMatmulOp op, func::FuncOp func) {
  Location loc = op.getLoc();
  Type resultElement = op.getType().getElementType();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  if (!op.hasEpilogue()) {
    Value acc = entry->getArgument(0);
    Value out = acc;
    if (resultElement != acc.getType())
      out = arith::TruncFOp::create(b, loc, resultElement, acc);
    func::ReturnOp::create(b, loc, out);
    return success();
  }
  Block &body = op.getEpilogue().front();
  IRMapping mapping;
  for (auto [from, to] : llvm::zip(body.getArguments(), entry->getArguments()))
    mapping.map(from, to);
  for (Operation &inner : body) {
    if (auto yield = dyn_cast<YieldOp>(inner)) {
      func::ReturnOp::create(b, loc, mapping.lookup(yield.getValue()));
      continue;
    }
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      Value memref = mapping.lookupOrNull(extract.getTensor());
      if (!memref || !isa<MemRefType>(memref.getType()))
        return inner.emitError()
               << "the GPU epilogue reads only the epilogue operands";
      SmallVector<Value> indices;
      for (Value i : extract.getIndices())
        indices.push_back(mapping.lookup(i));
      Value loaded = memref::LoadOp::create(b, inner.getLoc(), memref, indices);
      mapping.map(extract.getResult(), loaded);
      continue;
    }
    bool touchesTensors =
        llvm::any_of(inner.getOperandTypes(), llvm::IsaPred<TensorType>) ||
        llvm::any_of(inner.getResultTypes(), llvm::IsaPred<TensorType>) ||
        inner.getNumRegions() != 0;
    if (touchesTensors)
      return inner.emitError() << "'" << inner.getName()
                               << "' is not supported in a GPU epilogue";
    b.clone(inner, mapping);
  }
  return success();
}

/// Why the Hopper path cannot take `op`, or an empty string when it can.
std::string hopperPathLimitation(BatchMatmulOp op, StringRef schedule) {
  RankedTensorType lhsType = op.getLhs().getType();
  Type elementType = lhsType.getElementType();
  int64_t n = op.getType().getDimSize(2), k = lhsType.getShape().back();
  if (!elementType.isF16() && !elementType.isBF16())
    return "wgmma takes f16/bf16 operands here, got " + typeToString(elementType);
  if (op.getTransposeRhs() && schedule == "simple")
    return "the simple schedule does not take transpose_rhs (the "
           "warp-specialized ones do)";
  if (k % 8 != 0 || n % 8 != 0)
    return "TMA needs 16-byte aligned rows: K (" + std::to_string(k) +
           ") and N (" + std::to_string(n) +
           ") must be multiples of 8 (pad K with sc-pad-k)";
  return "";
}

/// Moves the parsed kernel and its epilogue declaration into `gpuModule`
/// and builds the epilogue body.
LogicalResult installKernel(BatchMatmulOp op, gpu::GPUModuleOp gpuModule,
                            StringRef kernelName, const std::string &text) {
  OwningOpRef<ModuleOp> parsed =
      sc::detail::parseTemplate(op.getContext(), text);
  if (!parsed)
    return op.emitError() << "internal error: the GEMM kernel template does "
                             "not parse";
  gpu::GPUModuleOp scratch = sc::detail::templateModule(*parsed);
  auto epilogue =
      scratch.lookupSymbol<func::FuncOp>((kernelName + "_epilogue").str());
  if (failed(buildEpilogueFunction(op, epilogue)))
    return failure();
  sc::detail::moveKernels(scratch, gpuModule);
  return success();
}

/// Epilogue parameters, arguments and types as template text.
void epilogueText(BatchMatmulOp op, llvm::StringMap<std::string> &values) {
  std::string epiParams, epiArgs, epiTypes;
  for (auto [i, v] : llvm::enumerate(op.getEpilogueIns())) {
    std::string t = typeToString(memrefOf(cast<RankedTensorType>(v.getType())));
    epiParams += llvm::formatv(", %e{0}: {1}", i, t).str();
    epiArgs += llvm::formatv(", %e{0}", i).str();
    epiTypes += ", " + t;
  }
  values["EPI_PARAMS"] = epiParams;
  values["EPI_ARGS"] = epiArgs;
  values["EPI_TYPES"] = epiTypes;
}

FailureOr<KernelLaunch> buildSimtGemmKernel(BatchMatmulOp op,
                                            gpu::GPUModuleOp gpuModule,
                                            StringRef kernelName,
                                            const GemmBinding &binding) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  RankedTensorType resultType = op.getType();
  bool lhsBatched = lhsType.getRank() == 3, rhsBatched = rhsType.getRank() == 3;
  int64_t m = resultType.getDimSize(1), n = resultType.getDimSize(2);
  int64_t k = lhsType.getShape().back();
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
      ShapedType::isDynamic(k))
    return op.emitError() << "the GEMM lowering needs static M, N, K";
  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["ATYPE"] = typeToString(memrefOf(lhsType));
  values["BTYPE"] = typeToString(memrefOf(rhsType));
  values["CTYPE"] = typeToString(memrefOf(resultType));
  values["OUT"] = typeToString(resultType.getElementType());
  values["M"] = std::to_string(m);
  values["N"] = std::to_string(n);
  values["K"] = std::to_string(k);
  values["AIDX"] = lhsBatched ? "%b, %m, %k" : "%m, %k";
  std::string bIdx = op.getTransposeRhs() ? "%n, %k" : "%k, %n";
  values["BIDX"] = rhsBatched ? "%b, " + bIdx : bIdx;
  bool isF32 = lhsType.getElementType().isF32();
  std::string t = typeToString(lhsType.getElementType());
  values["AEXT"] = isF32 ? "arith.addf %a, %zero : f32"
                         : "arith.extf %a : " + t + " to f32";
  values["BEXT"] = isF32 ? "arith.addf %x, %zero : f32"
                         : "arith.extf %x : " + t + " to f32";
  epilogueText(op, values);
  if (failed(installKernel(op, gpuModule, kernelName,
                           replaceAll(kSimtTemplate, values))))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 256;
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(m * n, 256));
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = ShapedType::isDynamic(resultType.getDimSize(0))
                       ? LaunchDim::sym(binding.batchSymbol)
                       : LaunchDim::of(resultType.getDimSize(0));
  for (const std::string &name : {binding.lhs, binding.rhs, binding.result}) {
    LaunchParam p;
    p.tensor = name;
    launch.params.push_back(p);
  }
  for (const std::string &name : binding.epilogueIns) {
    LaunchParam p;
    p.tensor = name;
    launch.params.push_back(p);
  }
  launch.summary =
      llvm::formatv("{0}: {1}x{2}x{3} {4}, portable path (one thread per "
                    "output, fp32 accumulation), block 256, grid {5}x1x{6}",
                    kernelName, m, n, k, t, launch.grid[0].constant,
                    launch.grid[2].symbol.empty()
                        ? std::to_string(launch.grid[2].constant)
                        : launch.grid[2].symbol)
          .str();
  return launch;
}

/// Parameters of the TMA kernels: A's and B's tensor maps, then C and the
/// epilogue operands as memrefs.
std::vector<LaunchParam> tmaKernelParams(BatchMatmulOp op,
                                         const GemmBinding &binding,
                                         int64_t tileM = kTileM) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  int64_t m = op.getType().getDimSize(1), n = op.getType().getDimSize(2);
  int64_t k = lhsType.getShape().back();
  int64_t bytes = lhsType.getElementType().getIntOrFloatBitWidth() / 8;
  LaunchParam a;
  a.kind = LaunchParam::Kind::Tma;
  a.tensor = binding.lhs;
  a.dims = {LaunchDim::of(k), LaunchDim::of(m)};
  a.stridesBytes = {LaunchDim::of(k * bytes)};
  a.box = {kTileK, tileM};
  if (lhsType.getRank() == 3) {
    a.dims.push_back(ShapedType::isDynamic(lhsType.getDimSize(0))
                         ? LaunchDim::sym(binding.batchSymbol)
                         : LaunchDim::of(lhsType.getDimSize(0)));
    a.stridesBytes.push_back(LaunchDim::of(m * k * bytes));
    a.box.push_back(1);
  }
  LaunchParam b;
  b.kind = LaunchParam::Kind::Tma;
  b.tensor = binding.rhs;
  // The rows past K read as zeros: the padding along K, if any, too.
  int64_t rhsK = binding.rhsSourceK ? binding.rhsSourceK : k;
  // [K, N] row-major, or [N, K] when transposed; boxes of 64 x 64.
  if (op.getTransposeRhs()) {
    b.dims = {LaunchDim::of(rhsK), LaunchDim::of(n)};
    b.stridesBytes = {LaunchDim::of(rhsK * bytes)};
  } else {
    b.dims = {LaunchDim::of(n), LaunchDim::of(rhsK)};
    b.stridesBytes = {LaunchDim::of(n * bytes)};
  }
  b.box = {64, kTileK};
  if (rhsType.getRank() == 3) {
    b.dims.push_back(ShapedType::isDynamic(rhsType.getDimSize(0))
                         ? LaunchDim::sym(binding.batchSymbol)
                         : LaunchDim::of(rhsType.getDimSize(0)));
    b.stridesBytes.push_back(LaunchDim::of(rhsK * n * bytes));
    b.box.push_back(1);
  }
  LaunchParam c;
  c.tensor = binding.result;
  std::vector<LaunchParam> params = {a, b, c};
  for (const std::string &name : binding.epilogueIns) {
    LaunchParam e;
    e.tensor = name;
    params.push_back(e);
  }
  return params;
}

/// The loads of one k-tile (see kLoadHeadTemplate) for a BN-wide B tile.
std::string loadText(StringRef prefix, StringRef slot, StringRef kt,
                     StringRef barriers, int64_t tileN, bool kMajorB = false) {
  std::string text = kLoadHeadTemplate;
  for (int64_t j = 0; j < tileN / 64; ++j)
    text += replaceAll(kLoadChunkTemplate,
                       {{"BCOORDS", kMajorB ? "%$P_k, %$P_n$J" : "%$P_n$J, %$P_k"},
                        {"J", std::to_string(j)},
                        {"CHUNKOFF", std::to_string(j * 64 * kTileK * 2)},
                        {"CHUNKCOL", std::to_string(j * 64)}});
  return replaceAll(text, {{"P", prefix.str()},
                           {"SLOT", slot.str()},
                           {"KT", kt.str()},
                           {"FULL", barriers.str()}});
}

/// One k-tile of the warp-specialized consumer, k-tile %`j` of the ring:
/// wait until its slot is full, then the wgmma of the warpgroup's 64 A rows
/// with the two 128-column halves of the B tile, into `accL` / `accR`
/// (results %<p>_L, %<p>_R), as one commit group, then a wait that leaves
/// only this group in flight. Names are prefixed by `p`. When `first`, the
/// first wgmma of each half ignores its accumulator (scale-d 0).
/// The descriptors are built here rather than by nvgpu so that B can be in
/// either layout:
///   N-major (B row-major [K, N]): 64-column chunks of 64 k-rows, wgmma
///     "row" layout for B, 16 k-rows (2048 bytes) per k16 step;
///   K-major (the rhs transposed, [N, K]): n-rows of 64 k, like A, wgmma
///     "col" layout for B, 32 bytes per k16 step.
/// A is K-major: 32 bytes per k16 step.
std::string consumerKTileText(StringRef p, StringRef j, StringRef accL,
                              StringRef accR, bool first, bool kMajorB,
                              StringRef elementType) {
  std::string text = replaceAll(R"mlir(
          %$P_s = arith.remui $J, %cS : index
          %$P_round = arith.divui $J, %cS : index
          %$P_par = arith.remui %$P_round, %c2 : index
          %$P_parity = arith.index_cast %$P_par : index to i1
          nvgpu.mbarrier.try_wait.parity %full[%$P_s], %$P_parity, %ticks : !bars
          %$P_aOff0 = arith.muli %$P_s, %tileBytesA : index
          %$P_aOff1 = arith.addi %$P_aOff0, %pad : index
          %$P_aOff = arith.addi %$P_aOff1, %wgOffA : index
          %$P_bOff0 = arith.muli %$P_s, %tileBytesB : index
          %$P_bOff1 = arith.addi %$P_bOff0, %ringB : index
          %$P_bLOff = arith.addi %$P_bOff1, %pad : index
          %$P_bROff = arith.addi %$P_bLOff, %c16384 : index
)mlir",
                                {{"P", p.str()}, {"J", j.str()}});
  for (StringRef name : {"a", "bL", "bR"}) {
    text += llvm::formatv(R"mlir(
          %{0}_{1}Off64 = arith.index_cast %{0}_{1}Off : index to i64
          %{0}_{1}Addr = arith.addi %smemBase, %{0}_{1}Off64 : i64
          %{0}_{1}Masked = arith.andi %{0}_{1}Addr, %descAddrMask : i64
          %{0}_{1}Enc = arith.shrui %{0}_{1}Masked, %c4i64 : i64
          %{0}_{1}Desc = arith.ori %{0}_{1}Enc, %descBits : i64
)mlir",
                          p, name)
                .str();
  }
  text += "          nvvm.wgmma.fence.aligned\n";
  int64_t bStep = kMajorB ? 2 : 128;
  for (auto [half, accIn] : {std::pair<StringRef, StringRef>{"L", accL},
                             std::pair<StringRef, StringRef>{"R", accR}}) {
    for (int64_t kk = 0; kk < 4; ++kk) {
      std::string in = kk == 0 ? accIn.str()
                               : llvm::formatv("%{0}_w{1}{2}", p, half, kk - 1).str();
      std::string out = kk == 3 ? llvm::formatv("%{0}_{1}", p, half).str()
                                : llvm::formatv("%{0}_w{1}{2}", p, half, kk).str();
      text += llvm::formatv(
                  R"mlir(
          %{0}_dA{1}{2} = arith.constant {3} : i64
          %{0}_dAk{1}{2} = arith.addi %{0}_aDesc, %{0}_dA{1}{2} : i64
          %{0}_dB{1}{2} = arith.constant {4} : i64
          %{0}_dBk{1}{2} = arith.addi %{0}_b{1}Desc, %{0}_dB{1}{2} : i64
          {5} = nvvm.wgmma.mma_async %{0}_dAk{1}{2}, %{0}_dBk{1}{2}, {6}, #nvvm.shape<m = 64, n = 128, k = 16>, D [<f32>, <{7}>], A [<{8}>, <one>, <row>], B [<{8}>, <one>, <{9}>] : !accS -> !accS
)mlir",
                  p, half, kk, 2 * kk, bStep * kk, out, in,
                  first && kk == 0 ? "zero" : "one", elementType,
                  kMajorB ? "col" : "row")
                  .str();
    }
  }
  text += R"mlir(
          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 1
)mlir";
  return text;
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
std::string tmaStoreEpilogueText(ArrayRef<std::string> accs, int64_t outBytes,
                                 int64_t rowsPerWarpgroup) {
  int64_t boxCols = 128 / outBytes;
  std::string text = llvm::formatv(R"mlir(
        %se_c4 = arith.constant 4 : index
        %se_c16 = arith.constant 16 : index
        %se_c32 = arith.constant 32 : index
        %se_bytes = arith.constant {0} : index
        %se_warp = arith.divui %inWg, %se_c32 : index
        %se_lane = arith.remui %tid, %se_c32 : index
        %se_quad = arith.divui %se_lane, %se_c4 : index
        %se_q = arith.remui %se_lane, %se_c4 : index
        %se_warpRow = arith.muli %se_warp, %se_c16 : index
        %se_rowRel0 = arith.addi %se_warpRow, %se_quad : index
        %se_rowRel8 = arith.addi %se_rowRel0, %c8 : index
        %se_wgRows = arith.constant {1} : index
        %se_wgRow = arith.muli %wg, %se_wgRows : index
        %se_m = arith.addi %m0, %se_wgRow : index
        %se_row0 = arith.addi %se_m, %se_rowRel0 : index
        %se_row8 = arith.addi %se_m, %se_rowRel8 : index
        %se_in0 = arith.cmpi ult, %se_row0, %cM : index
        %se_in8 = arith.cmpi ult, %se_row8, %cM : index
        %se_rb0 = arith.muli %se_rowRel0, %c128 : index
        %se_rb8 = arith.muli %se_rowRel8, %c128 : index
        %se_q2 = arith.muli %se_q, %c2 : index
        %se_col = arith.addi %n0, %se_q2 : index
        %se_qBytes = arith.muli %se_q2, %se_bytes : index
        %se_qChunk = arith.divui %se_qBytes, %se_c16 : index
        %se_qWithin = arith.remui %se_qBytes, %se_c16 : index
        %se_zero = arith.constant 0.0 : $OUT
)mlir", outBytes, rowsPerWarpgroup).str();
  for (auto [h, acc] : llvm::enumerate(accs)) {
    text += llvm::formatv(R"mlir(
        // Columns [{0}, {0} + 128): wait until TMA has read the staging tile.
        scf.if %elected {{
          nvvm.cp.async.bulk.wait_group 0 {{read}
        }
        nvvm.barrier id = %wgBar number_of_threads = %wgCount
)mlir",
                          128 * h)
                .str();
    for (int64_t p = 0; p < 32; ++p) {
      int64_t colInHalf = 8 * (p / 2);
      int64_t box = colInHalf / boxCols;
      int64_t chunkBase = (colInHalf % boxCols) * outBytes / 16;
      int row = 8 * (p % 2);
      text += llvm::formatv(R"mlir(
        %se_xa{0}_{1} = llvm.extractvalue {3}[{2}] : !accS
        %se_xb{0}_{1} = llvm.extractvalue {3}[{4}] : !accS
        %se_no{0}_{1} = arith.constant {5} : index
        %se_n{0}_{1} = arith.addi %se_col, %se_no{0}_{1} : index
        %se_inN{0}_{1} = arith.cmpi ult, %se_n{0}_{1}, %cN : index
        %se_in{0}_{1} = arith.andi %se_in{6}, %se_inN{0}_{1} : i1
        %se_ya{0}_{1}, %se_yb{0}_{1} = scf.if %se_in{0}_{1} -> ($OUT, $OUT) {{
          %se_n1 = arith.addi %se_n{0}_{1}, %c1 : index
          %se_ea = func.call @$KERNEL_epilogue(%se_xa{0}_{1}, %b, %se_row{6}, %se_n{0}_{1}$EPI_ARGS) : (f32, index, index, index$EPI_TYPES) -> $OUT
          %se_eb = func.call @$KERNEL_epilogue(%se_xb{0}_{1}, %b, %se_row{6}, %se_n1$EPI_ARGS) : (f32, index, index, index$EPI_TYPES) -> $OUT
          scf.yield %se_ea, %se_eb : $OUT, $OUT
        } else {{
          scf.yield %se_zero, %se_zero : $OUT, $OUT
        }
        %se_v{0}_{1} = vector.from_elements %se_ya{0}_{1}, %se_yb{0}_{1} : vector<2x$OUT>
        %se_cb{0}_{1} = arith.constant {7} : index
        %se_c{0}_{1} = arith.addi %se_qChunk, %se_cb{0}_{1} : index
        %se_sw{0}_{1} = arith.xori %se_c{0}_{1}, %se_quad : index
        %se_swb{0}_{1} = arith.muli %se_sw{0}_{1}, %se_c16 : index
        %se_bo{0}_{1} = arith.constant {8} : index
        %se_o1{0}_{1} = arith.addi %se_rb{6}, %se_bo{0}_{1} : index
        %se_o2{0}_{1} = arith.addi %se_o1{0}_{1}, %se_swb{0}_{1} : index
        %se_o3{0}_{1} = arith.addi %se_o2{0}_{1}, %se_qWithin : index
        %se_i{0}_{1} = arith.divui %se_o3{0}_{1}, %se_bytes : index
        vector.store %se_v{0}_{1}, %stage[%se_i{0}_{1}] : !stageC, vector<2x$OUT>
)mlir",
                            h, p, 2 * p, acc, 2 * p + 1,
                            128 * h + colInHalf, row, chunkBase, box * 8192)
                  .str();
    }
    // Every thread's writes are visible to the TMA (async) proxy before
    // the elected thread issues the stores.
    text += R"mlir(
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        nvvm.barrier id = %wgBar number_of_threads = %wgCount
        scf.if %elected {
)mlir";
    for (int64_t j = 0; j < 128 / boxCols; ++j)
      text += llvm::formatv(R"mlir(
          %se_bb{0}_{1} = arith.constant {2} : index
          %se_ba{0}_{1} = arith.addi %stageBase, %se_bb{0}_{1} : index
          %se_box{0}_{1} = memref.view %smem[%se_ba{0}_{1}][] : !smem to !boxC
          %se_bn{0}_{1} = arith.constant {3} : index
          %se_nc{0}_{1} = arith.addi %n0, %se_bn{0}_{1} : index
          nvgpu.tma.async.store %se_box{0}_{1} to %tmaC[%se_nc{0}_{1}, %se_m, %b] : !boxC -> !tmaC
)mlir",
                            h, j, j * 8192, 128 * h + j * boxCols)
                  .str();
    text += R"mlir(
          nvvm.cp.async.bulk.commit.group
        }
)mlir";
  }
  return text;
}

/// Eight epilogue calls on the lanes of %v into %o_7, indented by `indent`.
std::string epilogueLanes(int indent) {
  std::string pad(indent, ' '), lanes;
  for (int j = 0; j < 8; ++j)
    lanes += llvm::formatv(
        "{2}%v_{0} = vector.extract %v[{0}] : f32 from vector<8xf32>\n"
        "{2}%cj_{0} = arith.constant {0} : index\n"
        "{2}%n_{0} = arith.addi %n, %cj_{0} : index\n"
        "{2}%e_{0} = func.call @$KERNEL_epilogue(%v_{0}, %b, %m, %n_{0}$EPI_ARGS)"
        " : (f32, index, index, index$EPI_TYPES) -> $OUT\n"
        "{2}%o_{0} = vector.insert %e_{0}, {1} [{0}] : $OUT into vector<8x$OUT>\n",
        j, j == 0 ? std::string("%o_init") : "%o_" + std::to_string(j - 1), pad)
        .str();
  return lanes;
}

FailureOr<KernelLaunch> buildHopperGemmKernel(BatchMatmulOp op,
                                              gpu::GPUModuleOp gpuModule,
                                              StringRef kernelName,
                                              const GemmBinding &binding,
                                              const GemmKernelOptions &options) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  RankedTensorType resultType = op.getType();
  Type elementType = lhsType.getElementType();
  bool lhsBatched = lhsType.getRank() == 3, rhsBatched = rhsType.getRank() == 3;
  int64_t m = resultType.getDimSize(1), n = resultType.getDimSize(2);
  int64_t k = lhsType.getShape().back();

  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
      ShapedType::isDynamic(k))
    return op.emitError() << "the GEMM lowering needs static M, N, K";
  for (Value v : op.getEpilogueIns())
    if (!isa<RankedTensorType>(v.getType()))
      return op.emitError() << "GPU epilogue operands must be ranked tensors, "
                               "got "
                            << v.getType();

  // The tile is 128 x BN: BN = 128 with one warpgroup (128x128 accumulator),
  // or BN = 256 with two warpgroups of 64x256 each, which halves how often
  // A is re-read and uses the widest wgmma.
  int64_t tileN = options.tileN;
  if (tileN == 0)
    tileN = n >= 256 ? 256 : 128;
  if (tileN != 128 && tileN != 256)
    return op.emitError() << "tile-n must be 128 or 256, got " << tileN;
  int64_t stages = options.stages ? options.stages : (tileN == 256 ? 4 : 2);
  if (stages < 2 || stages > 6)
    return op.emitError() << "stages must be in [2, 6], got " << stages;
  int64_t warpgroups = tileN / 128;
  int64_t accRows = kTileM / warpgroups;
  int64_t kTiles = llvm::divideCeil(k, kTileK);
  int64_t tileBytesB = kTileK * tileN * 2;
  int64_t ringBytes = stages * (kTileM * kTileK * 2 + tileBytesB);
  int64_t stageBytes = kTileM * (tileN + 8) * 4;
  // +1024: the kernel realigns the dynamic shared memory base.
  int64_t sharedBytes = std::max(ringBytes, stageBytes) + 1024;
  if (sharedBytes > 227 * 1024)
    return op.emitError() << stages << " stages of a 128x" << tileN
                          << "x64 tile need " << sharedBytes
                          << " B of shared memory, more than 227 KB";

  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["T"] = typeToString(elementType);
  values["OUT"] = typeToString(resultType.getElementType());
  values["CTYPE"] = typeToString(memrefOf(resultType));
  values["M"] = std::to_string(m);
  values["N"] = std::to_string(n);
  values["BN"] = std::to_string(tileN);
  values["BNP"] = std::to_string(tileN + 8);
  values["WGS"] = std::to_string(warpgroups);
  values["ACCM"] = std::to_string(accRows);
  values["THREADS"] = std::to_string(128 * warpgroups);
  values["KT"] = std::to_string(kTiles);
  values["S"] = std::to_string(stages);
  values["SM1"] = std::to_string(stages - 1);
  values["TILEB"] = std::to_string(tileBytesB);
  values["WGBYTESA"] = std::to_string(accRows * kTileK * 2);
  values["RINGB"] = std::to_string(stages * kTileM * kTileK * 2);
  values["TX"] = std::to_string(kTileM * kTileK * 2 + tileBytesB);
  values["STAGEELEMS"] = std::to_string(kTileM * tileN);
  values["STAGESTEP"] = std::to_string(128 * warpgroups * 8);
  values["BBOX"] = rhsBatched ? "1x64x64" : "64x64";
  values["BCOORD"] = rhsBatched ? ", %b" : "";
  // A batched A is read through a 3-D map [B, M, K]: rows past M are
  // zero-filled instead of read from the next batch element.
  values["AROW"] = "arith.addi %m0, %c0 : index";
  values["ABOX"] = lhsBatched ? "1x128x64" : "128x64";
  values["ACOORD"] = lhsBatched ? ", %b" : "";
  epilogueText(op, values);
  std::string lanes = epilogueLanes(8);
  // Two phases: first splice the generated pieces, then fill in the values
  // they share with the template.
  llvm::StringMap<std::string> pieces;
  pieces["LANES"] = lanes;
  pieces["TYPES"] = kTmaTypesTemplate;
  pieces["CASTS"] = kTmaCastsTemplate;
  pieces["LOAD_PROLOGUE"] = loadText("pro", "kt", "kt", "bars", tileN);
  pieces["LOAD_REFILL"] = loadText("ref", "next", "next", "bars", tileN);
  std::string text = replaceAll(replaceAll(kKernelTemplate, pieces), values);

  if (failed(installKernel(op, gpuModule, kernelName, text)))
    return failure();

  // The launch: grid (N tiles, M tiles, batch), tensor maps, memrefs.
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 128 * warpgroups;
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(n, tileN));
  launch.grid[1] = LaunchDim::of(llvm::divideCeil(m, kTileM));
  launch.grid[2] = ShapedType::isDynamic(resultType.getDimSize(0))
                       ? LaunchDim::sym(binding.batchSymbol)
                       : LaunchDim::of(resultType.getDimSize(0));
  launch.sharedBytes = sharedBytes;
  std::vector<LaunchParam> params = tmaKernelParams(op, binding);
  launch.params.assign(params.begin(), params.end());
  launch.summary =
      llvm::formatv("{0}: {1}x{2}x{3} {4}, tile 128x{12}x64, {13} "
                    "warpgroup(s), {5} stages, {6} k-tiles, grid {7}x{8}x{9}, "
                    "{10} B shared memory, epilogue {11}",
                    kernelName, m, n, k, typeToString(elementType), stages,
                    kTiles, launch.grid[0].constant, launch.grid[1].constant,
                    launch.grid[2].symbol.empty()
                        ? std::to_string(launch.grid[2].constant)
                        : launch.grid[2].symbol,
                    sharedBytes,
                    op.hasEpilogue() ? "fused (region)" : "convert", tileN,
                    warpgroups)
          .str();
  return launch;
}

FailureOr<KernelLaunch> buildWsGemmKernel(BatchMatmulOp op,
                                          gpu::GPUModuleOp gpuModule,
                                          StringRef kernelName,
                                          const GemmBinding &binding,
                                          bool pingpong) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  RankedTensorType resultType = op.getType();
  Type elementType = lhsType.getElementType();
  bool lhsBatched = lhsType.getRank() == 3, rhsBatched = rhsType.getRank() == 3;
  int64_t m = resultType.getDimSize(1), n = resultType.getDimSize(2);
  int64_t k = lhsType.getShape().back();
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
      ShapedType::isDynamic(k))
    return op.emitError() << "the GEMM lowering needs static M, N, K";
  // Cooperative: both consumers on one 128x256 tile (64 rows each).
  // Ping-pong: each consumer on its own 64x256 tile, alternating, so one's
  // epilogue runs while the other's wgmma does.
  int64_t tileM = pingpong ? 64 : 128;
  int64_t tileBytesA = tileM * kTileK * 2, slotBytes = tileBytesA + kTileK * 256 * 2;
  // Ring slots and, per consumer warpgroup, a 64x128 output staging tile
  // (16 KB for 16-bit results, 32 KB for f32), within the 227 KB.
  int64_t outBytes = resultType.getElementType().getIntOrFloatBitWidth() / 8;
  const int64_t groupM = 8;
  int64_t halfBytes = 64 * 128 * outBytes;
  int64_t stages = (227 * 1024 - 2 * halfBytes - 1024 - 256) / slotBytes;
  int64_t kTiles = llvm::divideCeil(k, kTileK);
  int64_t ringBytes = stages * slotBytes;
  int64_t sharedBytes = ringBytes + 2 * halfBytes + 1024;

  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["T"] = typeToString(elementType);
  values["OUT"] = typeToString(resultType.getElementType());
  values["CTYPE"] = typeToString(memrefOf(resultType));
  values["M"] = std::to_string(m);
  values["N"] = std::to_string(n);
  values["ACCM"] = "64";
  values["BN"] = "128";
  values["GROUP"] = std::to_string(groupM);
  std::string accStruct = "!llvm.struct<(";
  for (int i = 0; i < 64; ++i)
    accStruct += i ? ", f32" : "f32";
  values["ACCSTRUCT"] = accStruct + ")>";
  values["HALFBYTES"] = std::to_string(halfBytes);
  values["HALFELEMS"] = std::to_string(64 * 128);
  values["EOUT"] = std::to_string(128 / outBytes);
  values["GN"] = std::to_string(llvm::divideCeil(n, 256));
  values["GM"] = std::to_string(llvm::divideCeil(m, tileM));
  values["TILEM"] = std::to_string(tileM);
  values["ABYTES"] = std::to_string(tileBytesA);
  values["TX"] = std::to_string(slotBytes);
  values["WGBYTESA"] = pingpong ? "0" : "8192";
  values["TILESTEP"] = pingpong ? "2" : "1";
  values["FIRSTTILE"] = pingpong ? "arith.addi %wg, %c0 : index"
                                 : "arith.addi %c0, %c0 : index";
  // Lane 0 of each warp that reads a slot frees it.
  values["RELEASES"] = pingpong ? "4" : "8";
  values["KT"] = std::to_string(kTiles);
  values["S"] = std::to_string(stages);
  values["RINGB"] = std::to_string(stages * tileBytesA);
  values["STAGEOFF"] = std::to_string(ringBytes);
  values["BBOX"] = rhsBatched ? "1x64x64" : "64x64";
  values["BCOORD"] = rhsBatched ? ", %b" : "";
  // A batched A is read through a 3-D map [B, M, K]: rows past M are
  // zero-filled instead of read from the next batch element.
  values["AROW"] = "arith.addi %m0, %c0 : index";
  values["ABOX"] = (lhsBatched ? "1x" : "") + std::to_string(tileM) + "x64";
  values["ACOORD"] = lhsBatched ? ", %b" : "";
  epilogueText(op, values);
  llvm::StringMap<std::string> pieces;
  pieces["DECODE"] = kWsDecodeTemplate;
  pieces["TYPES"] = kTmaTypesTemplate;
  pieces["CASTS"] = kTmaCastsTemplate;
  bool kMajorB = op.getTransposeRhs();
  pieces["LOAD"] = loadText("ws", "j", "kt", "full", 256, kMajorB);
  pieces["KTILE_FIRST"] =
      consumerKTileText("k0", "%j0", "%accU", "%accU", /*first=*/true,
                        kMajorB, typeToString(elementType));
  pieces["KTILE"] =
      consumerKTileText("k", "%j", "%aL", "%aR", /*first=*/false, kMajorB,
                        typeToString(elementType));
  pieces["ORDER_BEFORE"] = pingpong ? kPingPongWaitTemplate : "";
  pieces["ORDER_AFTER"] = pingpong ? kPingPongArriveTemplate : "";
  pieces["EPILOGUE"] =
      tmaStoreEpilogueText({"%accL", "%accR"}, outBytes, pingpong ? 0 : 64);
  std::string text = replaceAll(replaceAll(kWsKernelTemplate, pieces), values);
  if (failed(installKernel(op, gpuModule, kernelName, text)))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 384;
  launch.grid[0] = LaunchDim::sym("SMS");
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = LaunchDim::of(1);
  launch.sharedBytes = sharedBytes;
  std::vector<LaunchParam> params = tmaKernelParams(op, binding, tileM);
  launch.params.assign(params.begin(), params.end());
  // C's tensor map for the TMA stores: boxes of 64 rows x 128 bytes.
  LaunchParam c;
  c.kind = LaunchParam::Kind::Tma;
  c.tensor = binding.result;
  c.dims = {LaunchDim::of(n), LaunchDim::of(m),
            ShapedType::isDynamic(resultType.getDimSize(0))
                ? LaunchDim::sym(binding.batchSymbol)
                : LaunchDim::of(resultType.getDimSize(0))};
  c.stridesBytes = {LaunchDim::of(n * outBytes), LaunchDim::of(m * n * outBytes)};
  c.box = {128 / outBytes, 64, 1};
  launch.params.push_back(c);
  launch.summary =
      llvm::formatv(
          "{0}: {1}x{2}x{3} {4}, warp-specialized persistent, {5}: producer "
          "warpgroup (TMA, 40 registers) + 2 consumer warpgroups (wgmma + "
          "epilogue, 232 registers), {6}, {7} stages, {8} k-tiles, one CTA "
          "per SM walking tiles in groups of {9} M tiles, {10} B shared "
          "memory, epilogue {11} in registers, TMA stores",
          kernelName, m, n, k, typeToString(elementType),
          pingpong ? "ping-pong" : "cooperative",
          pingpong ? "each consumer a 64x256x64 tile of its own"
                   : "both consumers on one 128x256x64 tile",
          stages, kTiles, groupM, sharedBytes,
          op.hasEpilogue() ? "fused (region)" : "convert")
          .str();
  return launch;
}

} // namespace

/// The schedule `requested` means for `op`: "auto" picks ping-pong when
/// the epilogue reads other tensors (its loads then run under the other
/// consumer's wgmma) or K is short (the epilogue is a large share of each
/// tile's time), cooperative otherwise (long K: its 128x256 tile reads less
/// from L2 per flop). Measured on the H200, see docs/performance.md.
static StringRef resolveSchedule(BatchMatmulOp op, StringRef requested) {
  if (requested != "auto")
    return requested;
  int64_t k = op.getLhs().getType().getShape().back();
  return !op.getEpilogueIns().empty() || k < 4096 ? "pingpong" : "cooperative";
}

bool mlir::sc::usesHopperGemmPath(BatchMatmulOp op,
                                  const GemmKernelOptions &options) {
  return options.chip == "sm_90a" &&
         hopperPathLimitation(op, resolveSchedule(op, options.schedule))
             .empty();
}

FailureOr<KernelLaunch>
mlir::sc::buildGemmKernel(BatchMatmulOp op, gpu::GPUModuleOp gpuModule,
                          StringRef kernelName, const GemmBinding &binding,
                          const GemmKernelOptions &options) {
  for (Value v : op.getEpilogueIns())
    if (!isa<RankedTensorType>(v.getType()))
      return op.emitError() << "GPU epilogue operands must be ranked tensors, "
                               "got "
                            << v.getType();
  StringRef schedule = options.schedule;
  if (schedule != "auto" && schedule != "simple" && schedule != "cooperative" &&
      schedule != "pingpong")
    return op.emitError() << "unknown GEMM schedule '" << schedule
                          << "', expected auto, simple, cooperative or pingpong";
  schedule = resolveSchedule(op, schedule);
  if (options.chip == "sm_90a") {
    std::string limitation = hopperPathLimitation(op, schedule);
    if (limitation.empty() &&
        (schedule == "cooperative" || schedule == "pingpong"))
      return buildWsGemmKernel(op, gpuModule, kernelName, binding,
                               schedule == "pingpong");
    if (limitation.empty())
      return buildHopperGemmKernel(op, gpuModule, kernelName, binding, options);
    op.emitRemark() << "using the portable GEMM path: " << limitation;
  }
  if (binding.rhsSourceK)
    return op.emitError() << "internal error: K padding can only be left to "
                             "TMA on the sm_90a path";
  return buildSimtGemmKernel(op, gpuModule, kernelName, binding);
}
