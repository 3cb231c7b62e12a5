// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -sc-warp-specialize -sc-schedule-wgmma | FileCheck %s

// A hybrid-tiled GEMM's consumer frees each k-tile's slots once its MMA
// is done: after the switch on the k-tile's kind (its MMA, left in flight
// by the lowering), the wait for all, the tokens' slot and, by the
// k-tile's kind, its weight ring's. The producer is left as it was.
// CHECK-LABEL: func.func private @linear_gemm0_kernel
// CHECK: %[[X:.*]] = sck.ring
// CHECK: %[[D:.*]] = sck.ring
// CHECK: %[[S:.*]] = sck.ring
// CHECK: sck.role producer
// CHECK-NOT: sck.mma_wait
// CHECK: sck.role consumer
// CHECK: %[[ZERO:.*]] = sck.zero
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK: sck.get %[[X]]
// CHECK: %[[KIND:.*]], %{{.*}} = sck.hybrid_tile "B"
// CHECK: %[[NEW:.*]] = scf.index_switch %[[KIND]]
// CHECK: case 1 {
// CHECK: sck.get %[[D]]
// CHECK-NEXT: %[[M:.*]] = sck.mma
// CHECK-NEXT: scf.yield %[[M]]
// CHECK: case 2 {
// CHECK: sck.get %[[S]]
// CHECK-NEXT: %[[MS:.*]] = sck.mma_sp
// CHECK-NEXT: scf.yield %[[MS]]
// CHECK: default {
// CHECK-NEXT: scf.yield %[[ACC]]
// CHECK: sck.mma_wait 0
// CHECK-NEXT: sck.release %[[X]]
// CHECK-NEXT: scf.index_switch %[[KIND]]
// CHECK-NEXT: case 1 {
// CHECK-NEXT: sck.release %[[D]]
// CHECK: case 2 {
// CHECK-NEXT: sck.release %[[S]]
// CHECK: scf.yield %[[NEW]]
// CHECK-NOT: sck.release
// CHECK: sck.epilogue "C"[{{.*}}] transposed, %[[R]]
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @linear(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf32> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf32>
  return %y : tensor<?x5x128xf32>
}

// -----

// A weight of one tile column (K = 128): no k loop; the tile's slots are
// freed after the wait for its MMAs.
// CHECK-LABEL: func.func private @one_k_tile_gemm0_kernel
// CHECK: sck.role consumer
// CHECK: %[[KIND:.*]], %{{.*}} = sck.hybrid_tile "B"
// CHECK: %[[R:.*]] = scf.index_switch %[[KIND]]
// CHECK-NOT: sck.release
// CHECK: sck.mma_wait 0
// CHECK-NEXT: sck.release
// CHECK-NEXT: scf.index_switch %[[KIND]]
// CHECK: sck.epilogue "C"[{{.*}}] transposed, %[[R]]
#w1 = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 1], kinds = "">
func.func @one_k_tile(%k: tensor<2x1xi8>, %s: tensor<2x1xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x128xf16>) -> tensor<?x5x128xf32> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x1xi8>, tensor<2x1xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x128xf16, #w1>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x128xf16>, tensor<128x128xf16, #w1> -> tensor<?x5x128xf32>
  return %y : tensor<?x5x128xf32>
}
