// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.select_tile: nothing on an empty tile range; the rows every per-row
// buffer has, the slots both buffers have. All 64 elements of the thread's
// tile through the epilogue first (rows and columns past the range clamped
// to its last, their values unused; no store between the calls), then a
// row at a time, when the row is inside, its threshold read once; the
// elements inside the columns and above the threshold counted, the row's
// slots for them taken by one atomic add, each written with its column in
// the next of them when inside.
// CHECK-LABEL: gpu.func @select
// CHECK: memref.dim %arg2, %c0
// CHECK: memref.dim %arg3, %c0
// CHECK: %[[V1:.*]] = memref.dim %arg4, %c1
// CHECK: %[[C1:.*]] = memref.dim %arg5, %c1
// CHECK: %[[CAP:.*]] = arith.minui %[[V1]], %[[C1]]
// CHECK: %[[LASTCOL:.*]] = arith.subi %arg9, %c1
// CHECK: %[[COL:.*]] = arith.minui %{{.*}}, %[[LASTCOL]]
// CHECK: func.call @epi(%{{.*}}, %{{.*}}, %[[COL]])
// CHECK-COUNT-63: func.call @epi
// CHECK-NOT: func.call
// CHECK-NOT: memref.atomic_rmw
// CHECK: scf.if
// CHECK:   %[[THETA:.*]] = memref.load %arg2[
// CHECK:   %[[INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %arg9
// CHECK:   %[[ABOVE:.*]] = arith.cmpf ogt, %{{.*}}, %[[THETA]] : f32
// CHECK:   %[[KEEP:.*]] = arith.andi %[[INSIDE]], %[[ABOVE]]
// CHECK:   arith.extui %[[KEEP]] : i1 to i32
// CHECK-COUNT-7: arith.cmpf ogt
// CHECK:   %[[ANY:.*]] = arith.cmpi ne, %{{.*}}, %c0_i32
// CHECK:   scf.if %[[ANY]] {
// CHECK:     %[[SLOT:.*]] = memref.atomic_rmw addi %{{.*}}, %arg3[{{.*}}] : (i32, memref<?xi32>) -> i32
// CHECK:     scf.if %[[KEEP]] {
// CHECK:       %[[AT:.*]] = arith.index_castui %[[SLOT]] : i32 to index
// CHECK:       %[[ROOM:.*]] = arith.cmpi ult, %[[AT]], %[[CAP]]
// CHECK:       scf.if %[[ROOM]] {
// CHECK:         memref.store %{{.*}}, %arg4[%{{.*}}, %[[AT]]] : memref<?x4096xf32>
// CHECK:         memref.store %{{.*}}, %arg5[%{{.*}}, %[[AT]]] : memref<?x4096xi32>
// CHECK:     %[[NEXT:.*]] = arith.addi %[[SLOT]], %{{.*}} : i32
// CHECK:     scf.if
// CHECK:       arith.index_castui %[[NEXT]] : i32 to index
// CHECK-COUNT-7: memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK-NOT: func.call
gpu.module @m {
  func.func private @epi(%x: f32, %m: index, %n: index) -> f32 {
    return %x : f32
  }
  gpu.func @select(%t: vector<64xf32>, %add: memref<?x?xf32>, %th: memref<?xf32>, %cnt: memref<?xi32>, %v: memref<?x4096xf32>, %c: memref<?x4096xi32>, %r: index, %col: index, %rows: index, %cols: index) kernel {
    sck.select_tile %t[%r, %col] within [%rows, %cols] plus %add : memref<?x?xf32> epilogue @epi above %th into %cnt, %v, %c : vector<64xf32>, memref<?xf32>, memref<?xi32>, memref<?x4096xf32>, memref<?x4096xi32>
    gpu.return
  }
}
