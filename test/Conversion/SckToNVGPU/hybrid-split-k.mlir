// RUN: sparcast-opt %s --sc-lower-to-sck --sc-split-k=splits=2 --sc-warp-specialize --sc-schedule-wgmma --sc-test-hybrid-gemm-kernel | FileCheck %s

// sck.reduce_splits (split-K of a decode hybrid-tiled GEMM) lowered warp
// by warp: the kernel takes the parts' partial sums (f32) and the arrival
// counts (i32) after C; each thread stores its 4 accumulator words at
// ((tile x 2 + part) x 4 + r) x 128 + t, fences them, the warp meets, its
// lane 0 counts the arrival of the warp's rows (tile x 4 + warp) and the
// count (it was the last part: 1 before) is broadcast from lane 0; the
// last warp fences again and adds both parts' words, in part order, and
// its epilogue stores the sum under the same condition.
// CHECK-LABEL: gpu.func @linear_gemm0(
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<?x5x128xf16>, %[[PARTIALS:[a-z0-9]+]]: memref<?xf32>, %[[ARRIVALS:[a-z0-9]+]]: memref<?xi32>)
// CHECK-COUNT-4: memref.store %{{.*}}, %[[PARTIALS]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK: nvvm.bar.warp.sync
// CHECK: %[[COUNT:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: %[[BEFORE:.*]] = memref.atomic_rmw addi %{{.*}}, %[[ARRIVALS]][%{{.*}}] : (i32, memref<?xi32>) -> i32
// CHECK: arith.cmpi eq, %[[BEFORE]], %c1_i32
// CHECK: %[[BCAST:.*]], %{{.*}} = gpu.shuffle  idx %[[COUNT]]
// CHECK: %[[LAST:.*]] = arith.cmpi ne, %[[BCAST]]
// CHECK: %[[SUM:.*]] = scf.if %[[LAST]] -> (!llvm.struct<(f32, f32, f32, f32)>) {
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK-COUNT-8: memref.load %[[PARTIALS]]
// CHECK: scf.if %[[LAST]] {
// CHECK: llvm.extractvalue %[[SUM]][0]
// CHECK: memref.store %{{.*}}, %[[C]]
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @linear(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf16>
  return %y : tensor<?x5x128xf16>
}
