// RUN: sparcast-opt %s -sc-pad-n=report -verify-diagnostics | FileCheck %s
// RUN: sparcast-opt %s -sc-pad-n=odd-only | FileCheck %s --check-prefix=ODD

// A 16-bit product with N = 13: its rhs padded with 3 zero columns, the
// product over 16, the result sliced back; the epilogue's column clamped
// to 12. N already a multiple of 8, and f32 operands, are left.
// CHECK-LABEL: func.func @odd_n
// CHECK: %[[P:.*]] = tensor.pad %arg1 low[0, 0, 0] high[0, 0, 3]
// CHECK: %[[Y:.*]] = sc.batch_matmul %arg0, %[[P]] epilogue_ins(%arg2 : tensor<13xf32>) : tensor<5x16xf16>, tensor<?x16x16xf16> -> tensor<?x5x16xf16>
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %[[N:.*]]: index,
// CHECK: %[[C:.*]] = arith.minui %[[N]], %c12
// CHECK: tensor.extract %{{.*}}[%[[C]]]
// CHECK: tensor.extract_slice %[[Y]][0, 0, 0] [%{{.*}}, 5, 13] [1, 1, 1] : tensor<?x5x16xf16> to tensor<?x5x13xf16>
func.func @odd_n(%w: tensor<5x16xf16>, %e: tensor<?x16x13xf16>, %bias: tensor<13xf32>) -> tensor<?x5x13xf16> {
  // expected-remark @below {{padded N 13 -> 16 (16-byte rows), the result sliced back}}
  %y = sc.batch_matmul %w, %e epilogue_ins(%bias : tensor<13xf32>) : tensor<5x16xf16>, tensor<?x16x13xf16> -> tensor<?x5x13xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<13xf32>):
    %v = tensor.extract %bs[%n] : tensor<13xf32>
    %s = arith.addf %acc, %v : f32
    %o = arith.truncf %s : f32 to f16
    sc.yield %o : f16
  }
  return %y : tensor<?x5x13xf16>
}

// CHECK-LABEL: func.func @left
// CHECK-NOT: tensor.pad
func.func @left(%w: tensor<5x16xf16>, %e: tensor<?x16x24xf16>, %w32: tensor<5x16xf32>, %e32: tensor<?x16x13xf32>) -> (tensor<?x5x24xf32>, tensor<?x5x13xf32>) {
  %a = sc.batch_matmul %w, %e : tensor<5x16xf16>, tensor<?x16x24xf16> -> tensor<?x5x24xf32>
  %b = sc.batch_matmul %w32, %e32 : tensor<5x16xf32>, tensor<?x16x13xf32> -> tensor<?x5x13xf32>
  return %a, %b : tensor<?x5x24xf32>, tensor<?x5x13xf32>
}

// odd-only (sm_90a): N = 250 is left (its rows are copied and stored in
// 4-byte pieces there); N = 13 is padded as before.
// ODD-LABEL: func.func @odd_n
// ODD: tensor.pad
// ODD-LABEL: func.func @even_n
// ODD-NOT: tensor.pad
// ODD: sc.batch_matmul %arg0, %arg1 : tensor<5x16xf16>, tensor<?x16x250xf16> -> tensor<?x5x250xf16>
// CHECK-LABEL: func.func @even_n
// CHECK: tensor.pad %arg1 low[0, 0, 0] high[0, 0, 6]
func.func @even_n(%w: tensor<5x16xf16>, %e: tensor<?x16x250xf16>) -> tensor<?x5x250xf16> {
  // expected-remark @below {{padded N 250 -> 256 (16-byte rows), the result sliced back}}
  %y = sc.batch_matmul %w, %e : tensor<5x16xf16>, tensor<?x16x250xf16> -> tensor<?x5x250xf16>
  return %y : tensor<?x5x250xf16>
}
