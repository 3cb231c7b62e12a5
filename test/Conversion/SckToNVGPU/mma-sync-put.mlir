// RUN: sparcast-opt %s -sc-convert-sck-to-mma-sync | FileCheck %s

// sck.put at position 1 of a 3-slot ring: A's slot part at 1 x 128 rows of
// 80 bytes (64 + 16 of padding), B's after every slot's A (3 x 10240) at
// 1 x 32 rows of 272 bytes; each of 128 threads copies 4 of A's 512
// 16-byte chunks (row = chunk / 4, column 8 (chunk % 4)) and 4 of B's
// (16 chunks a row), zero-filling those past the operand (source size 0
// from the operand's base), then one commit group for the slot.
// CHECK-LABEL: gpu.func @gemm(
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[SLOT:.*]] = arith.remui %c1{{.*}}, %c3{{.*}} : index
// CHECK: %[[OFF:.*]] = arith.muli %[[SLOT]], %c10240 : index
// CHECK: %[[A:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[CHUNK:.*]] = arith.addi %[[TID]], %c0 : index
// CHECK: %[[ROW:.*]] = arith.divui %[[CHUNK]], %c4 : index
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: arith.muli %[[ROW]], %c80 : index
// CHECK: %[[SRC:.*]] = arith.select %[[IN]], %{{.*}}, %[[A]] : index
// CHECK: %[[SIZE:.*]] = arith.select %[[IN]], %c16_i32, %c0_i32 : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]]
// CHECK-COUNT-3: nvvm.cp.async.shared.global
// CHECK: arith.constant 30720 : index
// CHECK: arith.muli %{{.*}}, %c8704 : index
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: arith.constant 272 : index
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK-NEXT: nvvm.cp.async.commit.group

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
