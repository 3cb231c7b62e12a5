// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.scatter_add is an atomic add when (row, column) is inside the result,
// nothing otherwise.
// CHECK-LABEL: func.func @add
// CHECK: %[[R:.*]] = memref.dim %arg1, %c0
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %arg2, %[[R]]
// CHECK: %[[C:.*]] = memref.dim %arg1, %c1
// CHECK: %[[CIN:.*]] = arith.cmpi ult, %arg3, %[[C]]
// CHECK: %[[IN:.*]] = arith.andi %[[RIN]], %[[CIN]]
// CHECK: scf.if %[[IN]] {
// CHECK:   memref.atomic_rmw addf %arg0, %arg1[%arg2, %arg3]
func.func @add(%x: f32, %out: memref<?x?xf32>, %r: index, %c: index) {
  sck.scatter_add %x, %out[%r, %c] : memref<?x?xf32>
  return
}
