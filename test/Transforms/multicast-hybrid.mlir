// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck "-sc-multicast=hybrid-pairs=1 report=1" -verify-diagnostics | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -sc-multicast | FileCheck %s --check-prefix=OFF

// A hybrid-tiled GEMM's prefill tile (128 weight rows on two consumers,
// 256 tokens) with an even number of N tiles (4): CTA pairs on pairs of N
// tiles share the tokens' box. Its grid loop stays a grid (a cluster the
// launch co-schedules). Off unless asked (hybrid-pairs).
// CHECK-LABEL: func.func private @prefill_gemm0_kernel
// CHECK: sck.tile_loop {{.*}} attributes {cluster = 2 : i64, schedule = #sck.tile_schedule<grid>}
// OFF-LABEL: func.func private @prefill_gemm0_kernel
// OFF-NOT: cluster
#w = #sc.hybrid_tiles<tile = [128, 128], grid = [4, 2], kinds = "">
func.func @prefill(%k: tensor<4x2xi8>, %s: tensor<4x2xi32>, %d: tensor<?x128x128xf16>, %sp: tensor<?x128x64xf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x300x256xf16>) -> tensor<?x300x512xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<4x2xi8>, tensor<4x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<512x256xf16, #w>
  // expected-remark @below {{tile loop: CTA pairs on pairs of N tiles (W's bands), the tokens' box shared by TMA multicast}}
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x300x256xf16>, tensor<512x256xf16, #w> -> tensor<?x300x512xf16>
  return %y : tensor<?x300x512xf16>
}

// -----

// An odd number of N tiles (3): a pair would straddle two token tiles.
// CHECK-LABEL: func.func private @odd_gemm0_kernel
// CHECK-NOT: cluster
#w = #sc.hybrid_tiles<tile = [128, 128], grid = [3, 2], kinds = "">
func.func @odd(%k: tensor<3x2xi8>, %s: tensor<3x2xi32>, %d: tensor<?x128x128xf16>, %sp: tensor<?x128x64xf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x300x256xf16>) -> tensor<?x300x384xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<3x2xi8>, tensor<3x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<384x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x300x256xf16>, tensor<384x256xf16, #w> -> tensor<?x300x384xf16>
  return %y : tensor<?x300x384xf16>
}

// -----

// Decode (one consumer on 64 weight rows, 8 tokens): the weight's bytes
// dominate, the tokens' box is small; not paired.
// CHECK-LABEL: func.func private @decode_gemm0_kernel
// CHECK-NOT: cluster
#w = #sc.hybrid_tiles<tile = [128, 128], grid = [4, 2], kinds = "">
func.func @decode(%k: tensor<4x2xi8>, %s: tensor<4x2xi32>, %d: tensor<?x128x128xf16>, %sp: tensor<?x128x64xf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x1x256xf16>) -> tensor<?x1x512xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<4x2xi8>, tensor<4x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<512x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x256xf16>, tensor<512x256xf16, #w> -> tensor<?x1x512xf16>
  return %y : tensor<?x1x512xf16>
}
