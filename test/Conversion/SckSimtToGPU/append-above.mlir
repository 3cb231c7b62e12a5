// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.append_above: inside every per-row buffer, the row's threshold read;
// above it (ogt, NaN never), the row's next slot by an atomic add, written
// with the column when the slot is inside both slot buffers.
// CHECK-LABEL: func.func @append
// CHECK: %[[T:.*]] = memref.dim %arg3, %c0
// CHECK: %[[N:.*]] = memref.dim %arg4, %c0
// CHECK: arith.minui %[[T]], %[[N]]
// CHECK: %[[V:.*]] = memref.dim %arg5, %c0
// CHECK: %[[C:.*]] = memref.dim %arg6, %c0
// CHECK: arith.minui %[[V]], %[[C]]
// CHECK: %[[ROWS:.*]] = arith.minui
// CHECK: %[[IN:.*]] = arith.cmpi ult, %arg1, %[[ROWS]]
// CHECK: scf.if %[[IN]] {
// CHECK:   %[[THETA:.*]] = memref.load %arg3[%arg1]
// CHECK:   %[[ABOVE:.*]] = arith.cmpf ogt, %arg0, %[[THETA]] : f32
// CHECK:   scf.if %[[ABOVE]] {
// CHECK:     %[[V1:.*]] = memref.dim %arg5, %c1
// CHECK:     %[[C1:.*]] = memref.dim %arg6, %c1
// CHECK:     %[[CAP:.*]] = arith.minui %[[V1]], %[[C1]]
// CHECK:     %[[SLOT:.*]] = memref.atomic_rmw addi %{{.*}}, %arg4[%arg1] : (i32, memref<?xi32>) -> i32
// CHECK:     %[[AT:.*]] = arith.index_castui %[[SLOT]] : i32 to index
// CHECK:     %[[ROOM:.*]] = arith.cmpi ult, %[[AT]], %[[CAP]]
// CHECK:     scf.if %[[ROOM]] {
// CHECK:       memref.store %arg0, %arg5[%arg1, %[[AT]]] : memref<?x4096xf32>
// CHECK:       %[[COL:.*]] = arith.index_castui %arg2 : index to i32
// CHECK:       memref.store %[[COL]], %arg6[%arg1, %[[AT]]] : memref<?x4096xi32>
func.func @append(%score: f32, %row: index, %col: index, %th: memref<?xf32>, %cnt: memref<?xi32>, %v: memref<?x4096xf32>, %c: memref<?x4096xi32>) {
  sck.append_above %score[%row, %col] above %th into %cnt, %v, %c : memref<?xf32>, memref<?xi32>, memref<?x4096xf32>, memref<?x4096xi32>
  return
}
