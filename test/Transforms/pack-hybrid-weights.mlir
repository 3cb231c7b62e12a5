// RUN: sparcast-opt %s -split-input-file -sc-pack-hybrid-weights="tile-rows=64 tile-cols=32 report=1" -verify-diagnostics | FileCheck %s
// RUN: not sparcast-opt %s -split-input-file -sc-pack-hybrid-weights="tile-rows=100" 2>&1 | FileCheck %s --check-prefix=OPTIONS

// Constant weights packed at compile time (the runtime inspector's code):
// all-zero tiles become zero tiles, with buffers of one never-read dense
// and 2:4 slot so that no buffer of the entry is empty; a weight read
// [k, n] is packed from its transpose. Weights it cannot or need not pack
// are left, with the reason.

// CHECK-LABEL: func.func @zeros
// CHECK: sc.assemble_hybrid {{.*}} : tensor<2x1xi8>, tensor<2x1xi32>, tensor<1x64x32xf16>, tensor<1x64x16xf16>, tensor<1x64x1xi32> -> tensor<128x32xf16, #sc.hybrid_tiles<tile = [64, 32], grid = [2, 1], kinds = "zz">>
// CHECK: sc.batch_matmul {{.*}} {transpose_rhs}
func.func @zeros(%x: tensor<?x4x32xf16>) -> tensor<?x4x128xf32> {
  %w = arith.constant dense<0.0> : tensor<32x128xf16>
  // expected-remark @below {{weight packed in 64 x 32 hybrid tiles: 0 dense, 0 2:4, 2 zero}}
  %y = sc.batch_matmul %x, %w : tensor<?x4x32xf16>, tensor<32x128xf16> -> tensor<?x4x128xf32>
  return %y : tensor<?x4x128xf32>
}

// -----

// CHECK-LABEL: func.func @left
// CHECK-NOT: sc.assemble_hybrid
func.func @left(%x: tensor<?x4x32xf16>, %arg: tensor<64x32xf16>, %x32: tensor<?x4x32xf32>) -> (tensor<?x4x64xf32>, tensor<?x4x64xf32>, tensor<?x4x100xf32>, tensor<?x4x64xf32>) {
  // expected-remark @below {{weight not packed in hybrid tiles: the weight is not a constant}}
  %a = sc.batch_matmul %x, %arg {transpose_rhs} : tensor<?x4x32xf16>, tensor<64x32xf16> -> tensor<?x4x64xf32>
  %ones = arith.constant dense<1.0> : tensor<64x32xf16>
  // expected-remark @below {{weight not packed in hybrid tiles: every tile would stay dense}}
  %b = sc.batch_matmul %x, %ones {transpose_rhs} : tensor<?x4x32xf16>, tensor<64x32xf16> -> tensor<?x4x64xf32>
  %odd = arith.constant dense<0.0> : tensor<100x32xf16>
  // expected-remark @below {{weight not packed in hybrid tiles: the 64 x 32 tile does not divide the 100 x 32 weight}}
  %c = sc.batch_matmul %x, %odd {transpose_rhs} : tensor<?x4x32xf16>, tensor<100x32xf16> -> tensor<?x4x100xf32>
  %w32 = arith.constant dense<0.0> : tensor<64x32xf32>
  // expected-remark @below {{weight not packed in hybrid tiles: the weight is not f16 or bf16}}
  %d = sc.batch_matmul %x32, %w32 {transpose_rhs} : tensor<?x4x32xf32>, tensor<64x32xf32> -> tensor<?x4x64xf32>
  return %a, %b, %c, %d : tensor<?x4x64xf32>, tensor<?x4x64xf32>, tensor<?x4x100xf32>, tensor<?x4x64xf32>
}

// OPTIONS: error: sc-pack-hybrid-weights: tiles of multiples of 64 rows and 32 columns and a dense budget in [0, 1], got 100 x 128 and 0.000000e+00
