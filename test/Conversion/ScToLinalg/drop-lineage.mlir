// RUN: sparcast-opt %s -split-input-file -sc-drop-lineage | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK-SAME: (%{{.*}}: memref<?x8xf32>, %{{.*}}: memref<?xi32> {other.attr})
// CHECK-NOT: sc.lineage
func.func @f(%x: memref<?x8xf32> {sc.lineage = #sc.lineage<request>},
             %i: memref<?xi32> {sc.lineage = #sc.lineage<index>, other.attr}) {
  return
}

// -----

// No lineage: nothing changes.
// CHECK-LABEL: func.func @none
// CHECK-SAME: (%{{.*}}: tensor<4xf32>)
func.func @none(%x: tensor<4xf32>) {
  return
}
