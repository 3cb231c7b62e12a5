// RUN: sparcast-opt %s -split-input-file -sc-raise-linalg | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-raise-linalg=report -verify-diagnostics

// Rows by a weight from zero: one-row items of a batched matmul, the rows
// expanded and collapsed around it (the kernels read them as flat rows).
// CHECK-LABEL: func.func @rows
// CHECK: %[[R:.*]] = tensor.dim %arg0
// CHECK: %[[X3:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [%[[R]], 1, 64] : tensor<?x64xbf16> into tensor<?x1x64xbf16>
// CHECK: %[[Y3:.*]] = sc.batch_matmul %[[X3]], %arg1 : tensor<?x1x64xbf16>, tensor<64x32xbf16> -> tensor<?x1x32xf32>
// CHECK: %[[Y:.*]] = tensor.collapse_shape %[[Y3]] {{\[}}[0, 1], [2]] : tensor<?x1x32xf32> into tensor<?x32xf32>
// CHECK: return %[[Y]]
func.func @rows(%x: tensor<?x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %x, %c0 : tensor<?x64xbf16>
  %e = tensor.empty(%r) : tensor<?x32xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  // expected-remark @below {{raised to sc.batch_matmul over one-row items}}
  %y = linalg.matmul ins(%x, %w : tensor<?x64xbf16>, tensor<64x32xbf16>) outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// A weight given transposed (ONNX Gemm's transB): read [N, K].
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: linalg.transpose
// CHECK: sc.batch_matmul %{{.*}}, %arg1 {transpose_rhs} : tensor<?x1x64xf16>, tensor<32x64xf16> -> tensor<?x1x32xf16>
func.func @transposed(%x: tensor<?x64xf16>, %wt: tensor<32x64xf16>) -> tensor<?x32xf16> {
  %t0 = tensor.empty() : tensor<64x32xf16>
  %w = linalg.transpose ins(%wt : tensor<32x64xf16>) outs(%t0 : tensor<64x32xf16>) permutation = [1, 0]
  %c0 = arith.constant 0 : index
  %r = tensor.dim %x, %c0 : tensor<?x64xf16>
  %e = tensor.empty(%r) : tensor<?x32xf16>
  %zero = arith.constant 0.0 : f16
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<?x32xf16>) -> tensor<?x32xf16>
  // expected-remark @below {{raised to sc.batch_matmul over one-row items, the weight read transposed}}
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf16>, tensor<64x32xf16>) outs(%z : tensor<?x32xf16>) -> tensor<?x32xf16>
  return %y : tensor<?x32xf16>
}

// -----

// CHECK-LABEL: func.func @batched
// CHECK: sc.batch_matmul %arg0, %arg1 : tensor<?x8x16xf16>, tensor<?x16x4xf16> -> tensor<?x8x4xf16>
func.func @batched(%x: tensor<?x8x16xf16>, %w: tensor<?x16x4xf16>) -> tensor<?x8x4xf16> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x8x16xf16>
  %e = tensor.empty(%b) : tensor<?x8x4xf16>
  %zero = arith.constant 0.0 : f16
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<?x8x4xf16>) -> tensor<?x8x4xf16>
  // expected-remark @below {{raised to sc.batch_matmul}}
  %y = linalg.batch_matmul ins(%x, %w : tensor<?x8x16xf16>, tensor<?x16x4xf16>) outs(%z : tensor<?x8x4xf16>) -> tensor<?x8x4xf16>
  return %y : tensor<?x8x4xf16>
}

// -----

// Left as they are, with the reason: an accumulator that is not zero, a
// dynamic K, integer operands.
// CHECK-LABEL: func.func @left
// CHECK-COUNT-3: linalg.matmul
func.func @left(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %acc: tensor<4x2xf32>, %xd: tensor<4x?xf32>, %wd: tensor<?x2xf32>, %xi: tensor<4x8xi32>, %wi: tensor<8x2xi32>, %acci: tensor<4x2xi32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xi32>) {
  // expected-remark @below {{not raised to sc.batch_matmul: an accumulator that is not zero}}
  %a = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%acc : tensor<4x2xf32>) -> tensor<4x2xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%acc : tensor<4x2xf32>) -> tensor<4x2xf32>
  // expected-remark @below {{not raised to sc.batch_matmul: a dynamic K or N}}
  %b = linalg.matmul ins(%xd, %wd : tensor<4x?xf32>, tensor<?x2xf32>) outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  %zi = arith.constant dense<0> : tensor<4x2xi32>
  // expected-remark @below {{not raised to sc.batch_matmul: operands other than f16, bf16 or f32 of one type}}
  %c = linalg.matmul ins(%xi, %wi : tensor<4x8xi32>, tensor<8x2xi32>) outs(%zi : tensor<4x2xi32>) -> tensor<4x2xi32>
  return %a, %b, %c : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xi32>
}

// -----

// tosa.matmul with zero zero-points: sc.batch_matmul of its two batched
// operands.
// CHECK-LABEL: func.func @tosa
// CHECK: sc.batch_matmul %arg0, %arg1 : tensor<?x8x16xbf16>, tensor<?x16x4xbf16> -> tensor<?x8x4xf32>
// CHECK-NOT: tosa.matmul
func.func @tosa(%a: tensor<?x8x16xbf16>, %b: tensor<?x16x4xbf16>) -> tensor<?x8x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  // expected-remark @below {{raised to sc.batch_matmul}}
  %y = tosa.matmul %a, %b, %zp, %zp : (tensor<?x8x16xbf16>, tensor<?x16x4xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<?x8x4xf32>
  return %y : tensor<?x8x4xf32>
}
