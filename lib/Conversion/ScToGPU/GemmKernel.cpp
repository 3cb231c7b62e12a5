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

// Chunk $J of the B tile: columns [n0 + 64 J, n0 + 64 J + 64), 8 KB apart.
constexpr const char *kLoadChunkTemplate = R"mlir(
        %$P_cb$J = arith.constant $CHUNKOFF : index
        %$P_bo$J = arith.addi %$P_bOff, %$P_cb$J : index
        %$P_cn$J = arith.constant $CHUNKCOL : index
        %$P_n$J = arith.addi %n0, %$P_cn$J : index
        %$P_vb$J = memref.view %smem[%$P_bo$J][] : !smem to !tileB
        nvgpu.tma.async.load %tmaB[%$P_n$J, %$P_k$BCOORD], %$FULL[%$P_s] to %$P_vb$J : !tmaB, !bars -> !tileB
)mlir";

// Warp-specialized, persistent: 3 warpgroups per CTA, one CTA per SM
// walking tiles (n fastest, then m, then batch) with stride gridDim.x.
//   warpgroup 2 (producer): one thread waits for a free ring slot (empty
//     barrier), then issues the TMA loads of the next k-tile into it; it runs
//     ahead across tile boundaries, so the next tile's loads overlap the
//     consumers' epilogue;
//   warpgroups 0 and 1 (consumers): wait for a full slot, wgmma on their
//     64 rows of the 128x256 tile, and release the previous slot once its
//     wgmma is done; after the
//     last k-tile, the epilogue through a staging tile of their own (not the
//     ring), one warpgroup's rows at a time, synchronized on named barrier 1
//     among the 256 consumer threads. Slots are freed by lane 0 of each
//     consumer warp (count 8).
// Slot and phase counters run on across tiles: no pipeline drain.
constexpr const char *kWsKernelTemplate = R"mlir(
$TYPES
!stageW = memref<64x256xf32, #gpu.address_space<workgroup>>

gpu.module @scratch {
  gpu.func @$KERNEL(%tmaAp: !llvm.ptr, %tmaBp: !llvm.ptr, %C: $CTYPE$EPI_PARAMS) kernel
      attributes {nvvm.maxntid = array<i32: 384, 1, 1>} {
$CASTS
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %c65536 = arith.constant 65536 : index
    %cS = arith.constant $S : index
    %cM = arith.constant $M : index
    %cN = arith.constant $N : index
    %cBN = arith.constant 256 : index
    %cGN = arith.constant $GN : index
    %cGM = arith.constant $GM : index
    %kTiles = arith.constant $KT : index
    %tileBytesA = arith.constant 16384 : index
    %tileBytesB = arith.constant 32768 : index
    %wgBytesA = arith.constant 8192 : index
    %ringB = arith.constant $RINGB : index
    %stageOff = arith.constant $STAGEOFF : index
    %txBytes = arith.constant 49152 : index
    %ticks = arith.constant 10000000 : index
    %consumerBar = arith.constant 1 : i32
    %consumerCount = arith.constant 256 : i32
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %cta = gpu.block_id x
    %ctas = gpu.grid_dim x
    %batch = memref.dim %C, %c0 : $CTYPE
    %perBatch = arith.muli %cGN, %cGM : index
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
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %cS step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !bars
        nvgpu.mbarrier.init %empty[%s], %c8 : !bars
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
        %done = scf.for %i = %c0 to %mine step %c1 iter_args(%it = %c0) -> (index) {
$DECODE
          %itEnd = scf.for %kt = %c0 to %kTiles step %c1 iter_args(%j = %it) -> (index) {
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
          scf.yield %itEnd : index
        }
      }
    } else {
      nvvm.setmaxregister increase 232
      %wgOffA = arith.muli %wg, %wgBytesA : index
      %c32 = arith.constant 32 : index
      %lane = arith.remui %tid, %c32 : index
      %laneZero = arith.cmpi eq, %lane, %c0 : index
      %done = scf.for %i = %c0 to %mine step %c1 iter_args(%it = %c0) -> (index) {
$DECODE
        %acc0 = nvgpu.warpgroup.mma.init.accumulator -> !acc
        %accN, %itEnd = scf.for %kt = %c0 to %kTiles step %c1 iter_args(%acc = %acc0, %j = %it) -> (!acc, index) {
          %s = arith.remui %j, %cS : index
          %round = arith.divui %j, %cS : index
          %par = arith.remui %round, %c2 : index
          %parity = arith.index_cast %par : index to i1
          nvgpu.mbarrier.try_wait.parity %full[%s], %parity, %ticks : !bars
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
          // The previous k-tile's wgmma is done (wait_group 1, warp by warp):
          // lane 0 of each consumer warp frees its slot (count 8).
          %notFirst0 = arith.cmpi ugt, %kt, %c0 : index
          %notFirst = arith.andi %notFirst0, %laneZero : i1
          scf.if %notFirst {
            %jp = arith.subi %j, %c1 : index
            %sp = arith.remui %jp, %cS : index
            %tok = nvgpu.mbarrier.arrive %empty[%sp] : !bars -> !nvgpu.mbarrier.token
          }
          %j1 = arith.addi %j, %c1 : index
          scf.yield %acc2, %j1 : !acc, index
        }
        nvvm.wgmma.wait.group.sync.aligned 0
        %jl = arith.subi %itEnd, %c1 : index
        %sl = arith.remui %jl, %cS : index
        scf.if %laneZero {
          %tokl = nvgpu.mbarrier.arrive %empty[%sl] : !bars -> !nvgpu.mbarrier.token
        }
        // Epilogue, one warpgroup's 64 rows at a time through a 64x256
        // staging tile. nvgpu.warpgroup.mma.store puts warpgroup w's rows at
        // 64 w from the view's base (it derives them from the thread id), so
        // warpgroup 1's view starts 64 rows before the staging tile.
        %stageBase = arith.addi %pad, %stageOff : index
        %wgStage = arith.muli %wg, %c65536 : index
        %myView = arith.subi %stageBase, %wgStage : index
        %stage = memref.view %smem[%stageBase][] : !smem to !stageW
        scf.for %h = %c0 to %c2 step %c1 {
          %mineH = arith.cmpi eq, %wg, %h : index
          scf.if %mineH {
            %stageW = memref.view %smem[%myView][] : !smem to !stageW
            nvgpu.warpgroup.mma.store %accN, %stageW : !acc to !stageW
          }
          nvvm.barrier id = %consumerBar number_of_threads = %consumerCount
          %mh0 = arith.muli %h, %c64 : index
          %mh = arith.addi %m0, %mh0 : index
          %total = arith.constant 16384 : index
          %step = arith.constant 2048 : index
          %firstEl = arith.muli %tid, %c8 : index
          scf.for %e = %firstEl to %total step %step {
            %r = arith.divui %e, %cBN : index
            %col = arith.remui %e, %cBN : index
            %m = arith.addi %mh, %r : index
            %n = arith.addi %n0, %col : index
            %inM = arith.cmpi ult, %m, %cM : index
            %inN = arith.cmpi ult, %n, %cN : index
            %in = arith.andi %inM, %inN : i1
            scf.if %in {
              %v = vector.load %stage[%r, %col] {alignment = 16} : !stageW, vector<8xf32>
              %o_init = ub.poison : vector<8x$OUT>
$LANES
              vector.store %o_7, %C[%b, %m, %n] {alignment = 16} : $CTYPE, vector<8x$OUT>
            }
          }
          // Everyone has read the staging tile before it is written again.
          nvvm.barrier id = %consumerBar number_of_threads = %consumerCount
        }
        scf.yield %itEnd : index
      }
    }
    gpu.return
  }

  // The op's epilogue region; its body is built after parsing.
  func.func private @$KERNEL_epilogue(f32, index, index, index$EPI_TYPES) -> $OUT
}
)mlir";

// Tile %i of this CTA -> (%b, %m0, %n0): n fastest, then m, then the
// batch, so the M tiles of one batch element run at about the same time.
constexpr const char *kWsDecodeTemplate = R"mlir(
        %i_s = arith.muli %i, %ctas : index
        %t = arith.addi %cta, %i_s : index
        %nb = arith.remui %t, %cGN : index
        %t1 = arith.divui %t, %cGN : index
        %mb = arith.remui %t1, %cGM : index
        %b = arith.divui %t1, %cGM : index
        %n0 = arith.muli %nb, %cBN : index
        %m0 = arith.muli %mb, %c128 : index
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
std::string hopperPathLimitation(BatchMatmulOp op) {
  RankedTensorType lhsType = op.getLhs().getType();
  Type elementType = lhsType.getElementType();
  int64_t n = op.getType().getDimSize(2), k = lhsType.getShape().back();
  if (!elementType.isF16() && !elementType.isBF16())
    return "wgmma takes f16/bf16 operands here, got " + typeToString(elementType);
  if (op.getTransposeRhs())
    return "transpose_rhs is not supported by the TMA/wgmma path yet";
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
SmallVector<LaunchParam> tmaKernelParams(BatchMatmulOp op,
                                         const GemmBinding &binding) {
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
  a.box = {kTileK, kTileM};
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
  b.dims = {LaunchDim::of(n), LaunchDim::of(rhsK)};
  b.stridesBytes = {LaunchDim::of(n * bytes)};
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
  SmallVector<LaunchParam> params = {a, b, c};
  for (const std::string &name : binding.epilogueIns) {
    LaunchParam e;
    e.tensor = name;
    params.push_back(e);
  }
  return params;
}

/// The loads of one k-tile (see kLoadHeadTemplate) for a BN-wide B tile.
std::string loadText(StringRef prefix, StringRef slot, StringRef kt,
                     StringRef barriers, int64_t tileN) {
  std::string text = kLoadHeadTemplate;
  for (int64_t j = 0; j < tileN / 64; ++j)
    text += replaceAll(kLoadChunkTemplate,
                       {{"J", std::to_string(j)},
                        {"CHUNKOFF", std::to_string(j * 64 * kTileK * 2)},
                        {"CHUNKCOL", std::to_string(j * 64)}});
  return replaceAll(text, {{"P", prefix.str()},
                           {"SLOT", slot.str()},
                           {"KT", kt.str()},
                           {"FULL", barriers.str()}});
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
  SmallVector<LaunchParam> params = tmaKernelParams(op, binding);
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
                                          const GemmBinding &binding) {
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
  // Three slots of 48 KB and a 64 KB staging tile: 209 KB of the 227 KB.
  const int64_t stages = 3;
  int64_t kTiles = llvm::divideCeil(k, kTileK);
  int64_t ringBytes = stages * (kTileM * kTileK * 2 + kTileK * 256 * 2);
  int64_t sharedBytes = ringBytes + 64 * 256 * 4 + 1024;

  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["T"] = typeToString(elementType);
  values["OUT"] = typeToString(resultType.getElementType());
  values["CTYPE"] = typeToString(memrefOf(resultType));
  values["M"] = std::to_string(m);
  values["N"] = std::to_string(n);
  values["ACCM"] = "64";
  values["BN"] = "256";
  values["GN"] = std::to_string(llvm::divideCeil(n, 256));
  values["GM"] = std::to_string(llvm::divideCeil(m, kTileM));
  values["KT"] = std::to_string(kTiles);
  values["S"] = std::to_string(stages);
  values["RINGB"] = std::to_string(stages * kTileM * kTileK * 2);
  values["STAGEOFF"] = std::to_string(ringBytes);
  values["BBOX"] = rhsBatched ? "1x64x64" : "64x64";
  values["BCOORD"] = rhsBatched ? ", %b" : "";
  // A batched A is read through a 3-D map [B, M, K]: rows past M are
  // zero-filled instead of read from the next batch element.
  values["AROW"] = "arith.addi %m0, %c0 : index";
  values["ABOX"] = lhsBatched ? "1x128x64" : "128x64";
  values["ACOORD"] = lhsBatched ? ", %b" : "";
  epilogueText(op, values);
  std::string lanes = epilogueLanes(14);
  llvm::StringMap<std::string> pieces;
  pieces["LANES"] = lanes;
  pieces["DECODE"] = kWsDecodeTemplate;
  pieces["TYPES"] = kTmaTypesTemplate;
  pieces["CASTS"] = kTmaCastsTemplate;
  pieces["LOAD"] = loadText("ws", "j", "kt", "full", 256);
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
  SmallVector<LaunchParam> params = tmaKernelParams(op, binding);
  launch.params.assign(params.begin(), params.end());
  launch.summary =
      llvm::formatv("{0}: {1}x{2}x{3} {4}, warp-specialized persistent: "
                    "producer warpgroup (TMA, 40 registers) + 2 consumer "
                    "warpgroups (wgmma + epilogue, 232 registers), tile "
                    "128x256x64, {5} stages, {6} k-tiles, one CTA per SM "
                    "walking tiles n, m, batch, {7} B shared memory, "
                    "epilogue {8}",
                    kernelName, m, n, k, typeToString(elementType), stages,
                    kTiles, sharedBytes,
                    op.hasEpilogue() ? "fused (region)" : "convert")
          .str();
  return launch;
}

} // namespace

bool mlir::sc::usesHopperGemmPath(BatchMatmulOp op, StringRef chip) {
  return chip == "sm_90a" && hopperPathLimitation(op).empty();
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
  if (options.chip == "sm_90a") {
    std::string limitation = hopperPathLimitation(op);
    if (limitation.empty() && options.schedule == "warp-specialized")
      return buildWsGemmKernel(op, gpuModule, kernelName, binding);
    if (limitation.empty())
      return buildHopperGemmKernel(op, gpuModule, kernelName, binding, options);
    op.emitRemark() << "using the portable GEMM path: " << limitation;
  }
  if (binding.rhsSourceK)
    return op.emitError() << "internal error: K padding can only be left to "
                             "TMA on the sm_90a path";
  return buildSimtGemmKernel(op, gpuModule, kernelName, binding);
}
