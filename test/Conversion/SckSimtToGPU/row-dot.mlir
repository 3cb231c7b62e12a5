// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.row_dot: inside both rows, a fused multiply-add a column from 0 over
// the columns both have (sck.fma_tile's order); 0 outside.
// CHECK-LABEL: func.func @dot
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[KA:.*]] = memref.dim %arg0, %c1
// CHECK: %[[KB:.*]] = memref.dim %arg2, %c1
// CHECK: %[[K:.*]] = arith.minui %[[KA]], %[[KB]]
// CHECK: %[[MA:.*]] = memref.dim %arg0, %c0
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %arg1, %[[MA]]
// CHECK: %[[MB:.*]] = memref.dim %arg2, %c0
// CHECK: %[[IN2:.*]] = arith.cmpi ult, %arg3, %[[MB]]
// CHECK: %[[IN:.*]] = arith.andi %[[IN1]], %[[IN2]]
// CHECK: %[[R:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK:   %[[S:.*]] = scf.for %[[k:.*]] = %c0{{.*}} to %[[K]] step %c1{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK:     %[[X:.*]] = memref.load %arg0[%arg1, %[[k]]]
// CHECK:     %[[Y:.*]] = memref.load %arg2[%arg3, %[[k]]]
// CHECK:     %[[F:.*]] = math.fma %[[X]], %[[Y]], %[[ACC]] : f32
// CHECK:     scf.yield %[[F]]
// CHECK:   scf.yield %[[S]]
// CHECK: } else {
// CHECK:   scf.yield %[[ZERO]]
// CHECK: return %[[R]]
func.func @dot(%a: memref<?x?xf32>, %m: index, %b: memref<?x?xf32>, %n: index) -> f32 {
  %d = sck.row_dot %a[%m], %b[%n] : memref<?x?xf32>, memref<?x?xf32>
  return %d : f32
}
