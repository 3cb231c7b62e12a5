// RUN: sparcast-opt %s -sc-convert-sck-to-mma-sync | FileCheck %s

// sck.ring: the kernel's dynamic shared memory, its address the ring's
// value; every copy the ring's puts issued has landed before the kernel
// returns (puts past the last get are never waited for by a get). The
// operand names on the arguments are dropped once the ops are lowered.
// CHECK-LABEL: gpu.func @gemm(
// CHECK-SAME: %{{.*}}: memref<?x200x72xf16>, %{{.*}}: memref<?x72x136xf16>, %{{.*}}: memref<?x200x136xf32>) kernel
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK-NOT: sck.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.return

gpu.module @kernels {
  gpu.func @gemm(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x136xf16> {sck.operand = "B"}, %c: memref<?x200x136xf32> {sck.operand = "C"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %ring = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
    sck.tile_loop %c1, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%i: index, %m0: index, %n0: index):
      %zero = sck.zero : !sck.acc<128x128xf32>
      %a0 = sck.load "A"[%c0, %m0, %i] : !sck.box<128x32xf16>
      %b0 = sck.load "B"[%n0, %c0, %i] : !sck.box<32x128xf16>
      sck.put %ring[%c1], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %got:2 = sck.get %ring[%c1] : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>> -> !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %r = sck.mma %got#0, %got#1, %zero : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      sck.epilogue "C"[%n0, %m0, %i], %r : !sck.acc<128x128xf32>
    }
    gpu.return
  }
}
