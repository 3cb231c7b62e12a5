// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.csr_row reads the row's two pointers only when both exist (a row with
// no pointer after it is empty) and clamps them to [0, entries], end >= begin.
// CHECK-LABEL: func.func @row
// CHECK: %[[NEXT:.*]] = arith.addi %arg1, %c1
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: %[[HAS:.*]] = arith.cmpi ult, %[[NEXT]], %[[N]]
// CHECK: scf.if %[[HAS]] -> (index, index)
// CHECK:   memref.load %arg0[%arg1]
// CHECK:   arith.maxsi
// CHECK:   arith.minsi {{.*}}, %arg2
// CHECK:   memref.load %arg0[%[[NEXT]]]
// CHECK: } else {
// CHECK:   scf.yield %c0{{.*}}, %c0
func.func @row(%ptr: memref<?xi32>, %r: index, %entries: index) -> (index, index) {
  %b, %e = sck.csr_row %ptr[%r] entries %entries : memref<?xi32>
  return %b, %e : index, index
}
