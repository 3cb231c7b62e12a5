// RUN: sparcast-opt %s -split-input-file -sc-split-concat-k=report=1 -verify-diagnostics | FileCheck %s

// Rows concatenated along K (a raised matmul's rows: an expand_shape of a
// concat of 2-D features), times a weight read transposed, with a bias +
// ReLU epilogue: two GEMMs, the first writing its f32 sum, the second
// adding it before the op's epilogue; the concatenation is gone.
// CHECK-LABEL: func.func @tower
// CHECK-SAME: (%[[A:.*]]: tensor<?x2048xbf16>, %[[B:.*]]: tensor<?x8192xbf16>, %[[W:.*]]: tensor<1024x10240xbf16>, %[[BIAS:.*]]: tensor<1024xf32>)
// CHECK-NOT: tensor.concat
// CHECK: %[[A3:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 1, 2048] : tensor<?x2048xbf16> into tensor<?x1x2048xbf16>
// CHECK: %[[B3:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 1, 8192] : tensor<?x8192xbf16> into tensor<?x1x8192xbf16>
// CHECK: %[[W0:.*]] = tensor.extract_slice %[[W]][0, 0] [1024, 2048] [1, 1]
// CHECK: %[[W1:.*]] = tensor.extract_slice %[[W]][0, 2048] [1024, 8192] [1, 1]
// CHECK: %[[P:.*]] = sc.batch_matmul %[[A3]], %[[W0]] {transpose_rhs} : tensor<?x1x2048xbf16>, tensor<1024x2048xbf16> -> tensor<?x1x1024xf32>
// CHECK: sc.batch_matmul %[[B3]], %[[W1]] epilogue_ins(%[[BIAS]], %[[P]] : tensor<1024xf32>, tensor<?x1x1024xf32>) {transpose_rhs}
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[I:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index, %[[BT:.*]]: tensor<1024xf32>, %[[PT:.*]]: tensor<?x1x1024xf32>):
// CHECK: %[[PV:.*]] = tensor.extract %[[PT]][%[[I]], %[[M]], %[[N]]] : tensor<?x1x1024xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[PV]] : f32
// CHECK-NEXT: %[[BV:.*]] = tensor.extract %[[BT]][%[[N]]] : tensor<1024xf32>
// CHECK-NEXT: arith.addf %[[S]], %[[BV]] : f32
func.func @tower(%a: tensor<?x2048xbf16>, %b: tensor<?x8192xbf16>, %w: tensor<1024x10240xbf16>, %bias: tensor<1024xf32>) -> tensor<?x1x1024xbf16> {
  %c0 = arith.constant 0 : index
  %x = tensor.concat dim(1) %a, %b : (tensor<?x2048xbf16>, tensor<?x8192xbf16>) -> tensor<?x10240xbf16>
  %d = tensor.dim %x, %c0 : tensor<?x10240xbf16>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [%d, 1, 10240] : tensor<?x10240xbf16> into tensor<?x1x10240xbf16>
  // expected-remark @below {{split at the concatenation along K (2048 + 8192): the second GEMM's epilogue adds the first's f32 result, no copy of the rows}}
  %h = sc.batch_matmul %x3, %w epilogue_ins(%bias : tensor<1024xf32>) {transpose_rhs} : tensor<?x1x10240xbf16>, tensor<1024x10240xbf16> -> tensor<?x1x1024xbf16> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bt: tensor<1024xf32>):
    %bv = tensor.extract %bt[%n] : tensor<1024xf32>
    %s = arith.addf %acc, %bv : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    sc.yield %t : bf16
  }
  return %h : tensor<?x1x1024xbf16>
}

// -----

// Three parts along K of a batched lhs [B, M, K] (no expand_shape), a
// constant weight [K, N] and no epilogue: the last part splits off, then
// again the last of the others (a chain of f32 partial sums), the weight's
// rows sliced as constants, the sum converted to the result's type.
// CHECK-LABEL: func.func @three_parts
// CHECK-NOT: tensor.concat
// CHECK-DAG: %[[W0:.*]] = arith.constant dense<1.000000e+00> : tensor<8x8xf16>
// CHECK-DAG: %[[W1:.*]] = arith.constant dense<1.000000e+00> : tensor<16x8xf16>
// CHECK-DAG: %[[W2:.*]] = arith.constant dense<2.000000e+00> : tensor<32x8xf16>
// CHECK: %[[P0:.*]] = sc.batch_matmul %{{.*}}, %[[W0]] : tensor<?x4x8xf16>, tensor<8x8xf16> -> tensor<?x4x8xf32>
// CHECK: %[[P1:.*]] = sc.batch_matmul %{{.*}}, %[[W1]] epilogue_ins(%[[P0]] : tensor<?x4x8xf32>) : tensor<?x4x16xf16>, tensor<16x8xf16> -> tensor<?x4x8xf32>
// CHECK: sc.batch_matmul %{{.*}}, %[[W2]] epilogue_ins(%[[P1]] : tensor<?x4x8xf32>) : tensor<?x4x32xf16>, tensor<32x8xf16> -> tensor<?x4x8xf16>
// CHECK: arith.addf
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
func.func @three_parts(%a: tensor<?x4x8xf16>, %b: tensor<?x4x16xf16>, %c: tensor<?x4x32xf16>) -> tensor<?x4x8xf16> {
  %x = tensor.concat dim(2) %a, %b, %c : (tensor<?x4x8xf16>, tensor<?x4x16xf16>, tensor<?x4x32xf16>) -> tensor<?x4x56xf16>
  %w = arith.constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]> : tensor<56x8xf16>
  // expected-remark @below {{split at the concatenation along K (24 + 32)}}
  // expected-remark @below {{split at the concatenation along K (8 + 16)}}
  %h = sc.batch_matmul %x, %w : tensor<?x4x56xf16>, tensor<56x8xf16> -> tensor<?x4x8xf16>
  return %h : tensor<?x4x8xf16>
}

// -----

// Where the f32 partial sum would move more than the copy (K <= 2 N), or
// a part's rows are not 16 bytes, the GEMM stays as it is.
// CHECK-LABEL: func.func @not_worth_it
// CHECK: tensor.concat
// CHECK: sc.batch_matmul
// CHECK-NOT: sc.batch_matmul
func.func @not_worth_it(%a: tensor<?x4x64xf16>, %b: tensor<?x4x64xf16>, %w: tensor<128x256xf16>) -> tensor<?x4x256xf16> {
  %x = tensor.concat dim(2) %a, %b : (tensor<?x4x64xf16>, tensor<?x4x64xf16>) -> tensor<?x4x128xf16>
  %h = sc.batch_matmul %x, %w : tensor<?x4x128xf16>, tensor<128x256xf16> -> tensor<?x4x256xf16>
  return %h : tensor<?x4x256xf16>
}
