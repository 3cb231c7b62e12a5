// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.table_add: the key's probe sequence (the top 10 bits of key *
// 2654435761 for 1024 slots, then the next slot modulo 1024, at most 1024
// probes); a slot holding the key is the key's, an empty one (-1) is
// claimed by a relaxed compare-and-swap (no fence); on the key's slot the
// value is added atomically.
// CHECK-LABEL: func.func @add
// CHECK: %[[K32:.*]] = arith.index_castui %arg3 : index to i32
// CHECK: %[[MIX:.*]] = arith.muli %[[K32]], %c-1640531535_i32 : i32
// CHECK: %[[TOP:.*]] = arith.shrui %[[MIX]], %c22_i32 : i32
// CHECK: %[[H:.*]] = arith.index_castui %[[TOP]] : i32 to index
// CHECK: %[[R:.*]]:3 = scf.while (%[[S:.*]] = %[[H]], %[[I:.*]] = %c0)
// CHECK:   %[[HELD:.*]] = memref.load %arg1[%[[S]]]
// CHECK:   %[[EMPTY:.*]] = arith.cmpi eq, %[[HELD]], %c-1_i32
// CHECK:   %[[OLD:.*]] = scf.if %[[EMPTY]] -> (i32) {
// CHECK:     %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK:     %[[PTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK:     %[[AT:.*]] = llvm.getelementptr %[[PTR]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32
// CHECK:     %[[CAS:.*]] = llvm.cmpxchg %[[AT]], %{{.*}}, %[[K32]] monotonic monotonic : !llvm.ptr<3>, i32
// CHECK:     %[[WAS:.*]] = llvm.extractvalue %[[CAS]][0]
// CHECK:     scf.yield %[[WAS]]
// CHECK:   } else {
// CHECK:     scf.yield %[[HELD]]
// CHECK:   %[[SAME:.*]] = arith.cmpi eq, %[[OLD]], %[[K32]]
// CHECK:   %[[FREE:.*]] = arith.cmpi eq, %[[OLD]], %c-1_i32
// CHECK:   %[[OURS:.*]] = arith.ori %[[SAME]], %[[FREE]]
// CHECK:   %[[P:.*]] = arith.addi %[[I]], %c1
// CHECK:   %[[MORE:.*]] = arith.cmpi ult, %[[P]], %c1024
// CHECK:   %[[NOT:.*]] = arith.xori %[[OURS]], %true
// CHECK:   %[[GO:.*]] = arith.andi %[[MORE]], %[[NOT]]
// CHECK:   scf.condition(%[[GO]]) %[[S]], %[[I]], %[[OURS]]
// CHECK: do {
// CHECK:   %[[NEXT:.*]] = arith.addi %{{.*}}, %c1
// CHECK:   arith.andi %[[NEXT]], %c1023
// CHECK: scf.if %[[R]]#2 {
// CHECK:   memref.atomic_rmw addf %arg0, %arg2[%[[R]]#0]
// CHECK: return %[[R]]#2
func.func @add(%x: f32, %keys: memref<1024xi32, #gpu.address_space<workgroup>>, %sums: memref<1024xf32, #gpu.address_space<workgroup>>, %key: index) -> i1 {
  %added = sck.table_add %x to %keys, %sums[%key] : memref<1024xi32, #gpu.address_space<workgroup>>, memref<1024xf32, #gpu.address_space<workgroup>>
  return %added : i1
}

// sck.table_find: the same probe sequence, stopping at the key (found) or
// at an empty slot.
// CHECK-LABEL: func.func @find
// CHECK: %[[K32:.*]] = arith.index_castui %arg1 : index to i32
// CHECK: %[[R:.*]]:3 = scf.while
// CHECK:   %[[HELD:.*]] = memref.load %arg0[
// CHECK:   %[[HIT:.*]] = arith.cmpi eq, %[[HELD]], %[[K32]]
// CHECK:   %[[EMPTY:.*]] = arith.cmpi eq, %[[HELD]], %c-1_i32
// CHECK:   %[[DONE:.*]] = arith.ori %[[HIT]], %[[EMPTY]]
// CHECK:   scf.condition(%{{.*}}) %{{.*}}, %{{.*}}, %[[HIT]]
// CHECK-NOT: llvm.cmpxchg
// CHECK: return %[[R]]#2
func.func @find(%keys: memref<1024xi32, #gpu.address_space<workgroup>>, %key: index) -> i1 {
  %found = sck.table_find %keys[%key] : memref<1024xi32, #gpu.address_space<workgroup>>
  return %found : i1
}
