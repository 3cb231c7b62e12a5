// RUN: sparcast-opt %s -split-input-file -sc-fuse-epilogue=report=1 -verify-diagnostics | FileCheck %s

// With report=1 every consumer of a GEMM's result says whether it became
// the GEMM's epilogue, and if not, why (the result is then written out
// and read again).

// CHECK-LABEL: func.func @fused
// CHECK-NOT: linalg.generic
func.func @fused(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %init: tensor<?x4x6xf32>) -> tensor<?x4x6xf32> {
  // expected-remark @below {{fused an element-wise consumer into the epilogue (0 gathered input(s) read through the index, 0 other input(s))}}
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand : tensor<?x4x6xf32>) outs(%init : tensor<?x4x6xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @two_uses
// CHECK: linalg.generic
func.func @two_uses(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %init: tensor<?x4x6xf32>) -> (tensor<?x4x6xf32>, tensor<?x4x6xf32>) {
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
  // expected-remark @below {{not fused into the GEMM's epilogue: the GEMM's result has other users (it is written out for them)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand : tensor<?x4x6xf32>) outs(%init : tensor<?x4x6xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<?x4x6xf32>
  return %o, %cand : tensor<?x4x6xf32>, tensor<?x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @reduction
func.func @reduction(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %init: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
  // expected-remark @below {{not fused into the GEMM's epilogue: it is not element-wise over a [B, M, N] result}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%cand : tensor<?x4x6xf32>) outs(%init : tensor<?x4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  return %o : tensor<?x4xf32>
}

// -----

// The result read at another element (rows and columns swapped).
// CHECK-LABEL: func.func @transposed_read
func.func @transposed_read(%w: tensor<4x3xf16>, %c: tensor<?x3x4xf16>, %init: tensor<?x4x4xf32>) -> tensor<?x4x4xf32> {
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x4xf16> -> tensor<?x4x4xf32>
  // expected-remark @below {{not fused into the GEMM's epilogue: it reads the GEMM's result other than element by element}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, n, m)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand : tensor<?x4x4xf32>) outs(%init : tensor<?x4x4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<?x4x4xf32>
  return %o : tensor<?x4x4xf32>
}

// -----

// A scalar computed outside the body (not a constant): the epilogue region
// is isolated and takes tensors only.
// CHECK-LABEL: func.func @captured_scalar
func.func @captured_scalar(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %init: tensor<?x4x6xf32>, %s: tensor<f32>) -> tensor<?x4x6xf32> {
  %k = tensor.extract %s[] : tensor<f32>
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
  // expected-remark @below {{not fused into the GEMM's epilogue: its body uses a value from above that is neither a tensor nor a constant}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand : tensor<?x4x6xf32>) outs(%init : tensor<?x4x6xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %k : f32
    linalg.yield %r : f32
  } -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// The GEMM's result comes first, then an input read through a map that is
// not a projected permutation (a diagonal): nothing is fused.
// CHECK-LABEL: func.func @diagonal_input
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} : tensor<4x3xf16>, tensor<?x3x4xf16> -> tensor<?x4x4xf32>
// CHECK: linalg.generic
func.func @diagonal_input(%w: tensor<4x3xf16>, %c: tensor<?x3x4xf16>, %d: tensor<?x4xf32>, %init: tensor<?x4x4xf32>) -> tensor<?x4x4xf32> {
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x4xf16> -> tensor<?x4x4xf32>
  // expected-remark @below {{not fused into the GEMM's epilogue: an input is read through a map that is not a projected permutation}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m + n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand, %d : tensor<?x4x4xf32>, tensor<?x4xf32>) outs(%init : tensor<?x4x4xf32>) {
  ^bb0(%a: f32, %x: f32, %out: f32):
    %r = arith.addf %a, %x : f32
    linalg.yield %r : f32
  } -> tensor<?x4x4xf32>
  return %o : tensor<?x4x4xf32>
}
