// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.row_dot: inside both rows, a fused multiply-add a column from 0 over
// the columns both have (sck.fma_tile's order); when the depth is a multiple
// of four and both rows start on 16 bytes (a contiguous row), the columns
// are read four at a time, sixteen a step (every read of the step before its
// first multiply-add) when the depth is a multiple of 16; else one at a
// time; 0 outside.
// CHECK-LABEL: func.func @dot
// CHECK: %[[KA:.*]] = memref.dim %arg0, %c1
// CHECK: %[[KB:.*]] = memref.dim %arg2, %c1
// CHECK: %[[K:.*]] = arith.minui %[[KA]], %[[KB]]
// CHECK: %[[MA:.*]] = memref.dim %arg0, %c0
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %arg1, %[[MA]]
// CHECK: %[[MB:.*]] = memref.dim %arg2, %c0
// CHECK: %[[IN2:.*]] = arith.cmpi ult, %arg3, %[[MB]]
// CHECK: %[[IN:.*]] = arith.andi %[[IN1]], %[[IN2]]
// CHECK: %[[R:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK:   arith.remui %[[K]], %c4
// CHECK:   memref.extract_strided_metadata %arg0
// CHECK:   memref.extract_aligned_pointer_as_index %arg0
// CHECK:   arith.remui %{{.*}}, %c16
// CHECK:   memref.extract_strided_metadata %arg2
// CHECK:   memref.extract_aligned_pointer_as_index %arg2
// CHECK:   arith.remui %{{.*}}, %c16
// CHECK:   %[[Q:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK:     %[[R16:.*]] = arith.remui %[[K]], %c16
// CHECK:     %[[BY16:.*]] = arith.cmpi eq, %[[R16]], %c0
// CHECK:     scf.if %[[BY16]] -> (f32) {
// CHECK:       %[[ZERO16:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       scf.for %[[k:.*]] = %c0{{.*}} to %[[K]] step %c16{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO16]])
// CHECK-NEXT:    %[[VA0:.*]] = vector.load %arg0[%arg1, %[[k]]] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK-NEXT:    %[[VB0:.*]] = vector.load %arg2[%arg3, %[[k]]] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK-COUNT-6: vector.load
// CHECK-NOT:     vector.load
// CHECK:         %[[A0:.*]] = vector.extract %[[VA0]][0]
// CHECK:         %[[B0:.*]] = vector.extract %[[VB0]][0]
// CHECK:         math.fma %[[A0]], %[[B0]], %[[ACC]] : f32
// CHECK-COUNT-15: math.fma
// CHECK:     } else {
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       scf.for %[[k:.*]] = %c0{{.*}} to %[[K]] step %c4{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK:         %[[VA:.*]] = vector.load %arg0[%arg1, %[[k]]] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK:         %[[VB:.*]] = vector.load %arg2[%arg3, %[[k]]] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK:         %[[A0:.*]] = vector.extract %[[VA]][0]
// CHECK:         %[[B0:.*]] = vector.extract %[[VB]][0]
// CHECK:         math.fma %[[A0]], %[[B0]], %[[ACC]] : f32
// CHECK-COUNT-3: math.fma
// CHECK:   } else {
// CHECK:     scf.for %[[k:.*]] = %c0{{.*}} to %[[K]] step %c1{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK:       %[[X:.*]] = memref.load %arg0[%arg1, %[[k]]]
// CHECK:       %[[Y:.*]] = memref.load %arg2[%arg3, %[[k]]]
// CHECK:       math.fma %[[X]], %[[Y]], %[[ACC]] : f32
// CHECK: } else {
// CHECK:   scf.yield %{{.*}} : f32
// CHECK: return %[[R]]
func.func @dot(%a: memref<?x?xf32>, %m: index, %b: memref<?x?xf32>, %n: index) -> f32 {
  %d = sck.row_dot %a[%m], %b[%n] : memref<?x?xf32>, memref<?x?xf32>
  return %d : f32
}
