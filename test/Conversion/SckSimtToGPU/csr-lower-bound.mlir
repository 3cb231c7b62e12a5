// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.csr_lower_bound bisects [begin, end), end clamped to the words and
// begin to end: while lo < hi, the middle entry's decoded column below the
// target moves lo past it, else hi to it; the result is lo.
// CHECK-LABEL: func.func @lower_bound
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: %[[END:.*]] = arith.minui %arg2, %[[N]]
// CHECK: %[[BEGIN:.*]] = arith.minui %arg1, %[[END]]
// CHECK: %[[R:.*]]:2 = scf.while (%[[LO:.*]] = %[[BEGIN]], %[[HI:.*]] = %[[END]])
// CHECK:   %[[GO:.*]] = arith.cmpi ult, %[[LO]], %[[HI]]
// CHECK:   scf.condition(%[[GO]]) %[[LO]], %[[HI]]
// CHECK: do {
// CHECK: ^bb0(%[[L:.*]]: index, %[[H:.*]]: index):
// CHECK:   %[[SPAN:.*]] = arith.subi %[[H]], %[[L]]
// CHECK:   %[[HALF:.*]] = arith.divui %[[SPAN]], %c2
// CHECK:   %[[MID:.*]] = arith.addi %[[L]], %[[HALF]]
// CHECK:   memref.load %arg0[%[[MID]]]
// CHECK:   arith.shrui %{{.*}}, %c10
// CHECK:   arith.andi %{{.*}}, %c1023
// CHECK:   %[[COL:.*]] = arith.addi
// CHECK:   %[[BELOW:.*]] = arith.cmpi ult, %[[COL]], %arg3
// CHECK:   %[[NEXT:.*]] = arith.addi %[[MID]], %c1
// CHECK:   %[[NLO:.*]] = arith.select %[[BELOW]], %[[NEXT]], %[[L]]
// CHECK:   %[[NHI:.*]] = arith.select %[[BELOW]], %[[H]], %[[MID]]
// CHECK:   scf.yield %[[NLO]], %[[NHI]]
// CHECK: return %[[R]]#0
func.func @lower_bound(%words: memref<?xi32>, %begin: index, %end: index, %column: index) -> index {
  %e = sck.csr_lower_bound %words[%begin to %end] at_least %column {block_size = 1024 : i64, offset_bits = 10 : i64} : memref<?xi32>
  return %e : index
}
