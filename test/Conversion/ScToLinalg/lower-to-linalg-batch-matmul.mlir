// RUN: sparcast-opt %s -split-input-file -sc-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @shared_lhs
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x16x32xf32>)
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[ZERO]] : tensor<?x16x32xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]] : tensor<?x16x32xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @shared_lhs(%w: tensor<16x64xf16>, %e: tensor<?x64x32xf16>) -> tensor<?x16x32xf16> {
  %c = sc.batch_matmul %w, %e : tensor<16x64xf16>, tensor<?x64x32xf16> -> tensor<?x16x32xf16>
  return %c : tensor<?x16x32xf16>
}

// -----

// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @transposed_shared_rhs
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #{{.*}}]
func.func @transposed_shared_rhs(%e: tensor<?x16x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x16x32xf32> {
  %c = sc.batch_matmul %e, %w {transpose_rhs} : tensor<?x16x64xf32>, tensor<32x64xf32> -> tensor<?x16x32xf32>
  return %c : tensor<?x16x32xf32>
}

// -----

// The epilogue body is inlined into the element-wise generic: the block
// arguments become the accumulator, linalg.index and the captured operands.
// CHECK-LABEL: func.func @gather_add_epilogue
// CHECK-SAME: %[[USER:[a-z0-9]+]]: tensor<?x16x32xf32>, %[[IDX:[a-z0-9]+]]: tensor<?xi32>
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: f16):
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[M:.*]] = linalg.index 1 : index
// CHECK: %[[N:.*]] = linalg.index 2 : index
// CHECK: %[[R:.*]] = tensor.extract %[[IDX]][%[[B]]] : tensor<?xi32>
// CHECK: %[[RI:.*]] = arith.index_cast %[[R]] : i32 to index
// CHECK: %[[X:.*]] = tensor.extract %[[USER]][%[[RI]], %[[M]], %[[N]]]
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK: %[[H:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK: linalg.yield %[[H]] : f16
// CHECK-NOT: sc.yield
func.func @gather_add_epilogue(%w: tensor<16x64xf16>, %e: tensor<?x64x32xf16>,
                               %user: tensor<?x16x32xf32>, %idx: tensor<?xi32>) -> tensor<?x16x32xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x16x32xf32>, tensor<?xi32>)
      : tensor<16x64xf16>, tensor<?x64x32xf16> -> tensor<?x16x32xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x16x32xf32>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x16x32xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x16x32xf16>
}
