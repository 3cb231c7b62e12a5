// RUN: sparcast-opt %s -sc-convert-sck-to-mma-sync | FileCheck %s

// sck.epilogue without a region: a device function converting the
// accumulator element; each thread's elements two columns a store, rows
// past M (200) and columns past N (136) skipped.
// CHECK-LABEL: gpu.func @gemm(
// CHECK: mma.sync
// CHECK: %[[ROWIN:.*]] = arith.cmpi ult, %[[ROW:.*]], %c200 : index
// CHECK-NEXT: scf.if %[[ROWIN]]
// CHECK: %[[COLIN:.*]] = arith.cmpi ult, %{{.*}}, %c136 : index
// CHECK: scf.if %[[COLIN]]
// CHECK: func.call @gemm_epilogue(%{{.*}}, %{{.*}}, %[[ROW]], %{{.*}}) : (f32, index, index, index) -> f32
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}, %[[ROW]], %{{.*}}] {alignment = 8 : i64} : memref<?x200x136xf32>, vector<2xf32>
// CHECK: func.func private @gemm_epilogue(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index) -> f32
// CHECK-NEXT: return %[[ACC]] : f32

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

// With sum_rows = 200 (a shared A, C [B, 1, 136] f32): per column, the
// region's element (bf16, as stored) at rows clamped below 200, extended
// and masked to 0 past them, summed over the thread's registers; a
// butterfly over the lane quads; the first quad adds the two columns below
// 136 into C[b, 0, n]. No stores.
// CHECK-LABEL: gpu.func @summed(
// CHECK: mma.sync
// CHECK: %[[COLAT:.*]] = arith.minui %{{.*}}, %c134 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c200 : index
// CHECK: %[[ROW:.*]] = arith.minui %{{.*}}, %c199 : index
// CHECK: %[[Y:.*]] = func.call @summed_epilogue(%{{.*}}, %{{.*}}, %[[ROW]], %[[COLAT]]) : (f32, index, index, index) -> bf16
// CHECK: %[[W:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK: arith.select %[[IN]], %[[W]], %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: scf.if
// CHECK: memref.atomic_rmw addf %{{.*}}, %arg2[%{{.*}}, %{{.*}}, %{{.*}}] : (f32, memref<?x1x136xf32>) -> f32
// CHECK-NOT: vector.store
// CHECK: func.func private @summed_epilogue(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index) -> bf16

gpu.module @sum_kernels {
  gpu.func @summed(%a: memref<200x72xbf16> {sck.operand = "A"}, %b: memref<?x72x136xbf16> {sck.operand = "B"}, %c: memref<?x1x136xf32> {sck.operand = "C"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %ring = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<128x32xbf16>, !sck.box<32x128xbf16>>
    sck.tile_loop %c1, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%i: index, %m0: index, %n0: index):
      %zero = sck.zero : !sck.acc<128x128xf32>
      %a0 = sck.load "A"[%c0, %m0] : !sck.box<128x32xbf16>
      %b0 = sck.load "B"[%n0, %c0, %i] : !sck.box<32x128xbf16>
      sck.put %ring[%c1], %a0, %b0 : !sck.ring<!sck.box<128x32xbf16>, !sck.box<32x128xbf16>>, !sck.box<128x32xbf16>, !sck.box<32x128xbf16>
      %got:2 = sck.get %ring[%c1] : !sck.ring<!sck.box<128x32xbf16>, !sck.box<32x128xbf16>> -> !sck.box<128x32xbf16>, !sck.box<32x128xbf16>
      %r = sck.mma %got#0, %got#1, %zero : !sck.box<128x32xbf16>, !sck.box<32x128xbf16>, !sck.acc<128x128xf32>
      sck.epilogue "C"[%n0, %m0, %i], %r {sum_rows = 200 : i64} : !sck.acc<128x128xf32> {
      ^bb0(%acc: f32, %bb: index, %m: index, %n: index):
        %h = arith.truncf %acc : f32 to bf16
        sck.yield %h : bf16
      }
    }
    gpu.return
  }
}
