// RUN: sparcast-opt %s -sc-convert-sck-to-mma-sync | FileCheck %s

// B's rows (130 f16, 260 bytes) are no 16-byte multiple: its box loaded
// by threads is copied in 4-byte pieces (cp.async.ca; .cg copies 16 bytes
// only): 64 pieces a 32-row box row, 16 a thread of 128; a piece's column
// 2 (piece mod 64), zero-filled past B's 130 columns and 72 rows. A's rows
// (72 f16, 144 bytes) keep their 16-byte chunks.
// CHECK-LABEL: gpu.func @gemm(
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %c64 : index
// CHECK: %[[PIECE:.*]] = arith.remui %{{.*}}, %c64 : index
// CHECK: %[[COL:.*]] = arith.muli %[[PIECE]], %c2 : index
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
// CHECK: %[[C:.*]] = arith.addi %{{.*}}, %[[COL]] : index
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %[[R]], %c72 : index
// CHECK: %[[CIN:.*]] = arith.cmpi ult, %[[C]], %c130 : index
// CHECK: %[[IN:.*]] = arith.andi %[[RIN]], %[[CIN]] : i1
// CHECK: %[[SIZE:.*]] = arith.select %[[IN]], %c4_i32, %c0_i32 : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache =  ca, %[[SIZE]]
// CHECK-COUNT-15: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache =  ca
// CHECK-NEXT: nvvm.cp.async.commit.group

gpu.module @kernels {
  gpu.func @gemm(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x130xf16> {sck.operand = "B"}, %c: memref<?x200x130xf32> {sck.operand = "C"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %ring = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
    sck.tile_loop %c1, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%i: index, %m0: index, %n0: index):
      %zero = sck.zero : !sck.acc<128x128xf32>
      %a0 = sck.load "A"[%c0, %m0, %i] : !sck.box<128x32xf16>
      %b0 = sck.load "B"[%n0, %c0, %i] {by_threads} : !sck.box<32x128xf16>
      sck.put %ring[%c1], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %got:2 = sck.get %ring[%c1] : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>> -> !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %r = sck.mma %got#0, %got#1, %zero : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      sck.epilogue "C"[%n0, %m0, %i], %r : !sck.acc<128x128xf32>
    }
    gpu.return
  }
}
