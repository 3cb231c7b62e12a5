// RUN: sparcast-opt %s -split-input-file -sc-pad-k | FileCheck %s

// f16: K = 13 becomes 16 on both operands; the epilogue is kept.
// CHECK-LABEL: func.func @f16_rhs_batched
// CHECK: %[[W:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 3]
// CHECK: tensor.yield %{{.*}} : f16
// CHECK: } : tensor<4x13xf16> to tensor<4x16xf16>
// CHECK: %[[E:.*]] = tensor.pad %{{.*}} low[0, 0, 0] high[0, 3, 0]
// CHECK: } : tensor<?x13x6xf16> to tensor<?x16x6xf16>
// CHECK: sc.batch_matmul %[[W]], %[[E]] : tensor<4x16xf16>, tensor<?x16x6xf16> -> tensor<?x4x6xf16> {
// CHECK: arith.truncf
func.func @f16_rhs_batched(%w: tensor<4x13xf16>, %e: tensor<?x13x6xf16>) -> tensor<?x4x6xf16> {
  %o = sc.batch_matmul %w, %e : tensor<4x13xf16>, tensor<?x13x6xf16> -> tensor<?x4x6xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    %h = arith.truncf %acc : f32 to f16
    sc.yield %h : f16
  }
  return %o : tensor<?x4x6xf16>
}

// -----

// A transposed rhs [N, K] is padded along its last dim.
// CHECK-LABEL: func.func @transposed
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 6]
// CHECK: } : tensor<?x3x10xbf16> to tensor<?x3x16xbf16>
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 6]
// CHECK: } : tensor<5x10xbf16> to tensor<5x16xbf16>
// CHECK: sc.batch_matmul {{.*}} {transpose_rhs} : tensor<?x3x16xbf16>, tensor<5x16xbf16>
func.func @transposed(%e: tensor<?x3x10xbf16>, %w: tensor<5x10xbf16>) -> tensor<?x3x5xf32> {
  %o = sc.batch_matmul %e, %w {transpose_rhs} : tensor<?x3x10xbf16>, tensor<5x10xbf16> -> tensor<?x3x5xf32>
  return %o : tensor<?x3x5xf32>
}

// -----

// f32: 16 bytes are 4 elements.
// CHECK-LABEL: func.func @f32
// CHECK: tensor<2x5xf32> to tensor<2x8xf32>
func.func @f32(%w: tensor<2x5xf32>, %e: tensor<?x5x3xf32>) -> tensor<?x2x3xf32> {
  %o = sc.batch_matmul %w, %e : tensor<2x5xf32>, tensor<?x5x3xf32> -> tensor<?x2x3xf32>
  return %o : tensor<?x2x3xf32>
}

// -----

// Already aligned, or dynamic: no change.
// CHECK-LABEL: func.func @aligned
// CHECK-NOT: tensor.pad
func.func @aligned(%w: tensor<4x16xf16>, %e: tensor<?x16x6xf16>, %a: tensor<?x4x?xf16>, %b: tensor<?x?x6xf16>) -> (tensor<?x4x6xf32>, tensor<?x4x6xf32>) {
  %o = sc.batch_matmul %w, %e : tensor<4x16xf16>, tensor<?x16x6xf16> -> tensor<?x4x6xf32>
  %p = sc.batch_matmul %a, %b : tensor<?x4x?xf16>, tensor<?x?x6xf16> -> tensor<?x4x6xf32>
  return %o, %p : tensor<?x4x6xf32>, tensor<?x4x6xf32>
}

// A GEMM whose rows are summed keeps sum_rows (K's padding adds zeros to
// every element before the sum).
// CHECK-LABEL: func.func @summed_rows
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} {sum_rows} : tensor<4x16xf16>, tensor<?x16x6xf16> -> tensor<?x1x6xf32>
func.func @summed_rows(%w: tensor<4x13xf16>, %e: tensor<?x13x6xf16>) -> tensor<?x1x6xf32> {
  %o = sc.batch_matmul %w, %e {sum_rows} : tensor<4x13xf16>, tensor<?x13x6xf16> -> tensor<?x1x6xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    %h = arith.truncf %acc : f32 to f16
    sc.yield %h : f16
  }
  return %o : tensor<?x1x6xf32>
}
