// RUN: sparcast-opt %s -split-input-file -sc-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @gather_rows
// CHECK-SAME: (%[[SRC:.*]]: tensor<?x8xf32>, %[[IDX:.*]]: tensor<?xi32>)
// CHECK: %[[N:.*]] = tensor.dim %[[IDX]], %{{.*}} : tensor<?xi32>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%[[INIT]] : tensor<?x8xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[ROW:.*]] = tensor.extract %[[IDX]][%[[B]]] : tensor<?xi32>
// CHECK: %[[ROWI:.*]] = arith.index_cast %[[ROW]] : i32 to index
// CHECK: %[[V:.*]] = tensor.extract %[[SRC]][%[[ROWI]], %[[J]]] : tensor<?x8xf32>
// CHECK: linalg.yield %[[V]] : f32
// CHECK-NOT: sc.
func.func @gather_rows(%user: tensor<?x8xf32>, %idx: tensor<?xi32>) -> tensor<?x8xf32> {
  %e = sc.gather_rows %user[%idx] : tensor<?x8xf32>, tensor<?xi32> -> tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}

// -----

// A static result type more precise than what the lowering infers gets a cast.
// CHECK-LABEL: func.func @gather_rows_static_result
// CHECK: linalg.generic
// CHECK: tensor.cast %{{.*}} : tensor<?x4xf16> to tensor<6x4xf16>
func.func @gather_rows_static_result(%user: tensor<?x4xf16>, %idx: tensor<?xi32>) -> tensor<6x4xf16> {
  %e = sc.gather_rows %user[%idx] : tensor<?x4xf16>, tensor<?xi32> -> tensor<6x4xf16>
  return %e : tensor<6x4xf16>
}
