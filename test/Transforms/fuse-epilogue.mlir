// RUN: sparcast-opt %s -split-input-file -sc-fuse-epilogue | FileCheck %s

// The IKBO gather-add: the gathered user rows are read through the index,
// never materialized.
// CHECK-LABEL: func.func @gather_add
// CHECK-SAME: (%[[W:.*]]: tensor<4x3xf16>, %[[C:.*]]: tensor<?x3x6xf16>, %[[USER:.*]]: tensor<?x4x6xf32>, %[[I:.*]]: tensor<?xi32>)
// CHECK: %[[O:.*]] = sc.batch_matmul %[[W]], %[[C]] epilogue_ins(%[[USER]], %[[I]] : tensor<?x4x6xf32>, tensor<?xi32>) : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf16> {
// CHECK: ^bb0(%[[ACC:.*]]: f32, %[[B:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index, %[[EU:.*]]: tensor<?x4x6xf32>, %[[EI:.*]]: tensor<?xi32>):
// CHECK: %[[R:.*]] = tensor.extract %[[EI]][%[[B]]] : tensor<?xi32>
// CHECK: %[[RI:.*]] = arith.index_cast %[[R]] : i32 to index
// CHECK: %[[X:.*]] = tensor.extract %[[EU]][%[[RI]], %[[M]], %[[N]]] : tensor<?x4x6xf32>
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK: %[[H:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK: sc.yield %[[H]] : f16
// CHECK-NOT: sc.gather_rows
// CHECK-NOT: linalg.generic
// CHECK: return %[[O]]
func.func @gather_add(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %user: tensor<?x4x6xf32>, %i: tensor<?xi32>) -> tensor<?x4x6xf16> {
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
  %g = sc.gather_rows %user[%i] : tensor<?x4x6xf32>, tensor<?xi32> -> tensor<?x4x6xf32>
  %c0 = arith.constant 0 : index
  %b = tensor.dim %cand, %c0 : tensor<?x4x6xf32>
  %init = tensor.empty(%b) : tensor<?x4x6xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand, %g : tensor<?x4x6xf32>, tensor<?x4x6xf32>) outs(%init : tensor<?x4x6xf16>) {
  ^bb0(%a: f32, %u: f32, %out: f16):
    %s = arith.addf %a, %u : f32
    %h = arith.truncf %s : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x4x6xf16>
  return %o : tensor<?x4x6xf16>
}

// -----

// Bias broadcast along N and a relu, after an existing epilogue (a scale):
// the existing epilogue runs first, its operands stay first.
// CHECK-LABEL: func.func @bias_relu_after_scale
// CHECK: sc.batch_matmul {{.*}} epilogue_ins(%{{.*}}, %{{.*}} : tensor<f32>, tensor<6xf32>)
// CHECK: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %[[N:.*]]: index, %[[SC:.*]]: tensor<f32>, %[[BIAS:.*]]: tensor<6xf32>):
// CHECK: %[[K:.*]] = tensor.extract %[[SC]][] : tensor<f32>
// CHECK: %[[V:.*]] = arith.mulf %[[ACC]], %[[K]] : f32
// CHECK: %[[X:.*]] = tensor.extract %[[BIAS]][%[[N]]] : tensor<6xf32>
// CHECK: %[[S:.*]] = arith.addf %[[V]], %[[X]] : f32
// CHECK: arith.maximumf %[[S]]
func.func @bias_relu_after_scale(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %scale: tensor<f32>, %bias: tensor<6xf32>) -> tensor<?x4x6xf32> {
  %cand = sc.batch_matmul %w, %c epilogue_ins(%scale : tensor<f32>) : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %k: tensor<f32>):
    %kv = tensor.extract %k[] : tensor<f32>
    %v = arith.mulf %acc, %kv : f32
    sc.yield %v : f32
  }
  %c0 = arith.constant 0 : index
  %b = tensor.dim %c, %c0 : tensor<?x3x6xf16>
  %init = tensor.empty(%b) : tensor<?x4x6xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand, %bias : tensor<?x4x6xf32>, tensor<6xf32>) outs(%init : tensor<?x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %out: f32):
    %s = arith.addf %a, %x : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// A size-1 dim broadcast (tosa's and numpy's bias [1, 1, N], read at
// (0, 0, n)): the epilogue reads it at index 0 there.
// CHECK-LABEL: func.func @broadcast_bias
// CHECK: sc.batch_matmul {{.*}} epilogue_ins(%{{.*}} : tensor<1x1x6xf32>)
// CHECK: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %[[N:.*]]: index, %[[BIAS:.*]]: tensor<1x1x6xf32>):
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: tensor.extract %[[BIAS]][%[[Z]], %[[Z]], %[[N]]] : tensor<1x1x6xf32>
// CHECK-NOT: linalg.generic
func.func @broadcast_bias(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %bias: tensor<1x1x6xf32>) -> tensor<?x4x6xf32> {
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
  %c0 = arith.constant 0 : index
  %b = tensor.dim %c, %c0 : tensor<?x3x6xf16>
  %init = tensor.empty(%b) : tensor<?x4x6xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (0, 0, n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand, %bias : tensor<?x4x6xf32>, tensor<1x1x6xf32>) outs(%init : tensor<?x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %out: f32):
    %s = arith.addf %a, %x : f32
    linalg.yield %s : f32
  } -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// The matmul result is also returned: fusing would compute it twice.
// CHECK-LABEL: func.func @two_uses
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
// CHECK: linalg.generic
func.func @two_uses(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %init: tensor<?x4x6xf32>) -> (tensor<?x4x6xf32>, tensor<?x4x6xf32>) {
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
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

// A reduction is not element-wise: no change.
// CHECK-LABEL: func.func @reduction
// CHECK: linalg.generic
// CHECK-SAME: "reduction"
func.func @reduction(%w: tensor<4x3xf16>, %c: tensor<?x3x6xf16>, %init: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %cand = sc.batch_matmul %w, %c : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%cand : tensor<?x4x6xf32>) outs(%init : tensor<?x4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  return %o : tensor<?x4xf32>
}
