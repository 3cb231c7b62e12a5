// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.csr_entry decodes the #sc.block_csr word: (word >> offset_bits) *
// block_size + (word & (2^offset_bits - 1)).
// CHECK-LABEL: func.func @entry
// CHECK: %[[W:.*]] = memref.load %arg0[%arg2]
// CHECK: %[[I:.*]] = arith.index_castui %[[W]] : i32 to index
// CHECK: %[[BLOCK:.*]] = arith.shrui %[[I]], %c10
// CHECK: %[[OFF:.*]] = arith.andi %[[I]], %c1023
// CHECK: %[[BASE:.*]] = arith.muli %[[BLOCK]], %c1024
// CHECK: %[[COL:.*]] = arith.addi %[[BASE]], %[[OFF]]
// CHECK: %[[V:.*]] = memref.load %arg1[%arg2]
// CHECK: return %[[COL]], %[[V]]
func.func @entry(%words: memref<?xi32>, %values: memref<?xf32>, %e: index) -> (index, f32) {
  %c, %v = sck.csr_entry %words, %values[%e] {block_size = 1024 : i64, offset_bits = 10 : i64} : memref<?xi32>, memref<?xf32>
  return %c, %v : index, f32
}
