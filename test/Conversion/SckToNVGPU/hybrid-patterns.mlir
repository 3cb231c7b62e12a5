// RUN: sparcast-opt %S/Inputs/hybrid.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-convert-sck-to-nvgpu -verify-diagnostics

// The hybrid-tiled GEMM's sck ops, one pattern each (sc-convert-sck-to-nvgpu
// on a kernel of sck.schedule hybrid):
// - sck.ring: the frame's two barrier pairs (the tokens' ring; the dense
//   and 2:4 rings share one), four slots each, initialized by thread 0;
// - sck.role: the producer is warpgroup 1 (one consumer: no setmaxnreg),
//   one elected thread (128); each role's counters (puts or gets, then
//   releases) a pair a ring that owns its slots, in registers;
// - sck.hybrid_tile: the kind (zero-extended) and slot from the tables,
//   lane 0's by a shuffle (warp-uniform for ptxas);
// - sck.put / sck.get / sck.release: the role's next position of the ring
//   from its counter;
// - sck.mma_sp: sparse wgmma (inline PTX), each thread's metadata words
//   read before the group's fence;
// - sck.mma / sck.mma_sp leave their group in flight (the one before
//   waited for); sck.mma_wait waits for the rest, after which each
//   k-tile's slots are released (sc-schedule-wgmma);
// - sck.epilogue: each register stored transposed inside the result.
// CHECK-LABEL: gpu.func @linear(
// CHECK-COUNT-4: nvgpu.mbarrier.create
// CHECK: nvgpu.mbarrier.init %{{.*}}[%c0], %c1
// CHECK: nvgpu.mbarrier.init %{{.*}}[%c0], %c4
// CHECK: gpu.barrier
// CHECK: %[[P:.*]] = arith.cmpi eq, %[[WG:.*]], %c1 : index
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NOT: nvvm.setmaxregister
// CHECK: arith.cmpi eq, %{{.*}}, %c128 : index
// CHECK: %[[XC:.*]] = memref.alloca() : memref<2xindex>
// CHECK: %[[WC:.*]] = memref.alloca() : memref<2xindex>
// CHECK: %[[J:.*]] = memref.load %[[XC]][%c0] : memref<2xindex>
// CHECK: memref.store %{{.*}}, %[[XC]][%c0] : memref<2xindex>
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c2048
// CHECK: memref.load %{{.*}} : memref<2x2xi8>
// CHECK: nvvm.shfl.sync idx
// CHECK: nvvm.shfl.sync idx
// CHECK: scf.index_switch
// CHECK: memref.load %[[WC]][%c0] : memref<2xindex>
// CHECK: %[[C:.*]] = arith.cmpi ult, %[[WG]], %c1 : index
// CHECK: scf.if %[[C]] {
// CHECK: %[[GC:.*]] = memref.alloca() : memref<2xindex>
// CHECK: %[[GW:.*]] = memref.alloca() : memref<2xindex>
// CHECK: llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: memref.load %[[GC]][%c0]
// CHECK: case 2 {
// CHECK: memref.load %[[GW]][%c0]
// CHECK: memref.load %{{.*}} : memref<256xi32, #gpu.address_space<workgroup>>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: default {
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: memref.load %[[GC]][%c1]
// CHECK: nvgpu.mbarrier.arrive
// CHECK: case 1 {
// CHECK-NEXT: memref.load %[[GW]][%c1]
// CHECK: nvgpu.mbarrier.arrive
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<?x5x128xf32>

gpu.module @kernels {
  gpu.func @get_at_a_position(%a: !llvm.ptr {sck.operand = "A"}, %dense: !llvm.ptr {sck.operand = "B.dense"}, %sparse: !llvm.ptr {sck.operand = "B.sparse"}, %meta: !llvm.ptr {sck.operand = "B.meta"}, %kinds: memref<2x2xi8> {sck.operand = "B.kinds"}, %slots: memref<2x2xi32> {sck.operand = "B.slots"}, %c: memref<?x5x128xf32> {sck.operand = "C"}) kernel attributes {sck.consumers = 1 : i64, sck.schedule = #sck.kernel_schedule<hybrid>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %batch = memref.dim %c, %c0 : memref<?x5x128xf32>
    %x = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x8xf16>>
    %w = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x128xf16>>
    %s = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>>
    sck.role producer attributes {regs = 128 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.load "A"[%c0, %m, %b] {transposed} : !sck.box<128x8xf16>
        sck.put %x, %t : !sck.ring<!sck.box<128x8xf16>>, !sck.box<128x8xf16>
        %d = sck.load "B.dense"[%c0, %c0, %c0] : !sck.box<64x128xf16>
        sck.put %w, %d : !sck.ring<!sck.box<64x128xf16>>, !sck.box<64x128xf16>
        %v = sck.load "B.sparse"[%c0, %c0, %c0] : !sck.box<64x64xf16>
        %mm = sck.load "B.meta"[%c0, %c0, %c0] : !sck.box<64x4xi32>
        sck.put %s, %v, %mm : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>>, !sck.box<64x64xf16>, !sck.box<64x4xi32>
      }
    }
    sck.role consumer attributes {regs = 128 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
      ^bb0(%b: index, %m: index, %n: index):
        // expected-error @below {{sck-to-nvgpu: a get of a role, at its next slot}}
        %t = sck.get %x[%c0] : !sck.ring<!sck.box<128x8xf16>> -> !sck.box<128x8xf16>
        sck.release %x : !sck.ring<!sck.box<128x8xf16>>
      }
    }
    gpu.return
  }
}

// -----

// The MMA lowerings leave a group in flight: a kernel whose slots are not
// released after waits (sc-schedule-wgmma's) is refused.
gpu.module @kernels {
  // expected-error @below {{sck-to-nvgpu: a hybrid-tiled kernel whose slots are released after its MMAs' waits (run sc-schedule-wgmma)}}
  gpu.func @unscheduled(%a: !llvm.ptr {sck.operand = "A"}, %dense: !llvm.ptr {sck.operand = "B.dense"}, %sparse: !llvm.ptr {sck.operand = "B.sparse"}, %meta: !llvm.ptr {sck.operand = "B.meta"}, %kinds: memref<2x2xi8> {sck.operand = "B.kinds"}, %slots: memref<2x2xi32> {sck.operand = "B.slots"}, %c: memref<?x5x128xf32> {sck.operand = "C"}) kernel attributes {sck.consumers = 1 : i64, sck.schedule = #sck.kernel_schedule<hybrid>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %batch = memref.dim %c, %c0 : memref<?x5x128xf32>
    %x = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x8xf16>>
    %w = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x128xf16>>
    %s = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>>
    sck.role producer attributes {regs = 128 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.load "A"[%c0, %m, %b] {transposed} : !sck.box<128x8xf16>
        sck.put %x, %t : !sck.ring<!sck.box<128x8xf16>>, !sck.box<128x8xf16>
        %d = sck.load "B.dense"[%c0, %c0, %c0] : !sck.box<64x128xf16>
        sck.put %w, %d : !sck.ring<!sck.box<64x128xf16>>, !sck.box<64x128xf16>
        %v = sck.load "B.sparse"[%c0, %c0, %c0] : !sck.box<64x64xf16>
        %mm = sck.load "B.meta"[%c0, %c0, %c0] : !sck.box<64x4xi32>
        sck.put %s, %v, %mm : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>>, !sck.box<64x64xf16>, !sck.box<64x4xi32>
      }
    }
    sck.role consumer attributes {regs = 128 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.get %x : !sck.ring<!sck.box<128x8xf16>> -> !sck.box<128x8xf16>
        %d = sck.get %w : !sck.ring<!sck.box<64x128xf16>> -> !sck.box<64x128xf16>
        %z = sck.zero : !sck.acc<64x8xf32>
        %r = sck.mma %d, %t, %z : !sck.box<64x128xf16>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
        sck.release %w : !sck.ring<!sck.box<64x128xf16>>
        sck.release %x : !sck.ring<!sck.box<128x8xf16>>
        sck.epilogue "C"[%c0, %m, %b] transposed, %r : !sck.acc<64x8xf32>
      }
    }
    gpu.return
  }
}
