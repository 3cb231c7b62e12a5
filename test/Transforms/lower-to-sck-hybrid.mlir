// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -canonicalize | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -sc-warp-specialize | FileCheck %s --check-prefix=WS
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck=report -verify-diagnostics

// A GEMM whose rhs is a hybrid-tiled weight (y = x W^T): tiles of 64
// weight rows by 8 tokens (M = 5: the least power of two from 8), two
// bands (N = 128) of one token tile; per tile a loop over W's two tile
// columns reading the tokens' box, the tile's kind and slot, then a dense
// tile's box into sck.mma, a 2:4 tile's values and metadata into
// sck.mma_sp, nothing for a zero tile; the accumulator (weight rows by
// tokens) stored transposed. Warp-specialized: three rings (tokens, dense,
// 2:4), one consumer; the producer's switch puts and yields nothing.
// CHECK-LABEL: func.func private @linear_gemm0_kernel(
// CHECK-SAME: sck.schedule = #sck.kernel_schedule<hybrid>
// CHECK: sck.tile_loop %{{.*}}, %{{.*}}, %{{.*}} attributes {schedule = #sck.tile_schedule<grid>}
// CHECK: scf.for {{.*}} -> (!sck.acc<64x8xf32>)
// CHECK: sck.load "A"[%{{.*}}, %{{.*}}, %{{.*}}] {transposed} : !sck.box<128x8xf16>
// CHECK: %[[KIND:.*]], %[[SLOT:.*]] = sck.hybrid_tile "B"
// CHECK: scf.index_switch %[[KIND]] -> !sck.acc<64x8xf32>
// CHECK: case 1 {
// CHECK: sck.load "B.dense"[%{{.*}}, %{{.*}}, %[[SLOT]]] : !sck.box<64x128xf16>
// CHECK: sck.mma
// CHECK: case 2 {
// CHECK: sck.load "B.sparse"[%{{.*}}, %{{.*}}, %[[SLOT]]] : !sck.box<64x64xf16>
// CHECK: sck.load "B.meta"[%{{.*}}, %{{.*}}, %[[SLOT]]] : !sck.box<64x4xi32>
// CHECK: sck.mma_sp
// CHECK: default {
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}] transposed, %{{.*}} : !sck.acc<64x8xf32>
// WS: sck.ring {{.*}} : !sck.ring<!sck.box<128x8xf16>>
// WS: sck.ring {{.*}} : !sck.ring<!sck.box<64x128xf16>>
// WS: sck.ring {{.*}} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>>
// WS: sck.role producer
// WS: scf.index_switch %{{.*}}{{ *$}}
// WS: sck.put
// WS: sck.put
// WS: sck.role consumer attributes {regs
// WS-NOT: order
// WS: sck.get
// WS: sck.mma_sp
// WS: sck.release
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @linear(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf16>
  return %y : tensor<?x5x128xf16>
}

// -----

// At 200 tokens (a token tile of 256) tiles of 128 rows run 128 weight rows
// a CTA: 128-row boxes and accumulator, two consumers recorded, split by
// sc-warp-specialize as a cooperative pair.
// CHECK-LABEL: func.func private @prefill_gemm0_kernel(
// CHECK-SAME: sck.consumers = 2
// CHECK: scf.for {{.*}} -> (!sck.acc<128x256xf32>)
// CHECK: sck.load "A"[%{{.*}}, %{{.*}}, %{{.*}}] {transposed} : !sck.box<128x256xf16>
// CHECK: sck.load "B.dense"[%{{.*}}, %{{.*}}, %{{.*}}] : !sck.box<128x128xf16>
// CHECK: sck.load "B.sparse"[%{{.*}}, %{{.*}}, %{{.*}}] : !sck.box<128x64xf16>
// CHECK: sck.load "B.meta"[%{{.*}}, %{{.*}}, %{{.*}}] : !sck.box<128x4xi32>
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}] transposed, %{{.*}} : !sck.acc<128x256xf32>
// WS-LABEL: func.func private @prefill_gemm0_kernel(
// WS: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>
#w = #sc.hybrid_tiles<tile = [128, 128], grid = [2, 2], kinds = "">
func.func @prefill(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x128x128xf16>, %sp: tensor<?x128x64xf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x200x256xf16>) -> tensor<?x200x256xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<256x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x200x256xf16>, tensor<256x256xf16, #w> -> tensor<?x200x256xf16>
  return %y : tensor<?x200x256xf16>
}

// -----

// Tiles of 64 columns: a 2:4 tile's values would be half a swizzled box.
#w = #sc.hybrid_tiles<tile = [64, 64], grid = [2, 4], kinds = "">
func.func @narrow(%k: tensor<2x4xi8>, %s: tensor<2x4xi32>, %d: tensor<?x64x64xf16>, %sp: tensor<?x64x32xf16>, %m: tensor<?x64x2xi32>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x4xi8>, tensor<2x4xi32>, tensor<?x64x64xf16>, tensor<?x64x32xf16>, tensor<?x64x2xi32> -> tensor<128x256xf16, #w>
  // expected-remark @below {{no kernel-level form: hybrid tiles of a multiple of 128 columns only}}
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf16>
  return %y : tensor<?x5x128xf16>
}
