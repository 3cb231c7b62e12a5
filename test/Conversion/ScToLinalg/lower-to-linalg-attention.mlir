// RUN: sparcast-opt %s -split-input-file -sc-lower-to-linalg | FileCheck %s

// With an index, the golden model gathers K and V, then runs plain softmax
// attention in fp32.
// CHECK-LABEL: func.func @indexed
// CHECK-COUNT-2: tensor.extract %{{.*}}[%{{.*}}] : tensor<?xi32>
// CHECK: arith.constant 0.0883883461 : f32
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: sc.attention
func.func @indexed(%q: tensor<?x2x4x128xf16>, %k: tensor<?x2x8x128xf16>,
                   %v: tensor<?x2x8x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x4x128xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x4x128xf16>, tensor<?x2x8x128xf16>, tensor<?x2x8x128xf16>, tensor<?xi32> -> tensor<?x2x4x128xf16>
  return %o : tensor<?x2x4x128xf16>
}

// -----

// A log-linear mask is evaluated per element from its definition: block
// distance, power-of-two test, anchors, causality.
// CHECK-LABEL: func.func @log_linear
// CHECK: arith.maxsi
// CHECK: arith.cmpi sle
// CHECK: arith.andi
// CHECK: arith.cmpi eq
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @log_linear(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x?x16xf32>,
                      %v: tensor<1x1x?x16xf32>) -> tensor<1x1x?x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 16, causal = true>)
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>
  return %o : tensor<1x1x?x16xf32>
}

// -----

// An explicit mask becomes a constant [query blocks, key blocks] table.
// CHECK-LABEL: func.func @block_sparse
// CHECK: arith.constant dense<{{\[}}[true, false], [true, true]]> : tensor<2x2xi1>
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x2xi1>
// CHECK: arith.select
func.func @block_sparse(%q: tensor<1x1x32x16xf32>, %k: tensor<1x1x32x16xf32>,
                        %v: tensor<1x1x32x16xf32>) -> tensor<1x1x32x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.block_sparse<block_size = 16, key_blocks = 2, offsets = [0, 1, 3], indices = [0, 0, 1]>)
      : tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32> -> tensor<1x1x32x16xf32>
  return %o : tensor<1x1x32x16xf32>
}
