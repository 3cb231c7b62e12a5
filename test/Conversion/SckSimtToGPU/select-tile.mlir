// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.select_tile, first phase (no store): nothing on an empty range (the
// rows every per-row buffer has); the slots both buffers have; each of the
// thread's 64 elements, at its row and column clamped to the last inside,
// through the epilogue and compared with its row's threshold (read once a
// row), the bit kept only inside the columns (i32 columns, saturated at
// 2^31 - 1), bit 8 r + c of the tile's mask.
// CHECK-LABEL: gpu.func @select
// CHECK: %[[ROWS:.*]] = arith.minui %arg8, %{{.*}} : index
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ne, %[[ROWS]], %c0
// CHECK: scf.if
// CHECK: %[[V1:.*]] = memref.dim %arg4, %c1
// CHECK: %[[C1:.*]] = memref.dim %arg5, %c1
// CHECK: %[[CAP:.*]] = arith.minui %[[V1]], %[[C1]]
// CHECK: %[[SAT:.*]] = arith.minui %arg9, %c2147483647
// CHECK: %[[COLS:.*]] = arith.index_castui %[[SAT]] : index to i32
// CHECK: %[[LASTCOL:.*]] = arith.subi %[[COLS]], %c1_i32
// CHECK: %[[CLAMPED:.*]] = arith.minui %{{.*}}, %[[LASTCOL]] : i32
// CHECK: %[[COL:.*]] = arith.index_castui %[[CLAMPED]] : i32 to index
// CHECK: %[[THETA:.*]] = memref.load %arg2[
// CHECK: %[[V:.*]] = arith.addf
// CHECK: %[[E:.*]] = func.call @epi(%[[V]], %{{.*}}, %[[COL]])
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[E]], %[[THETA]] : f32
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %[[COLS]] : i32
// CHECK: arith.andi %[[ABOVE]],
// CHECK: arith.shli
// CHECK: arith.ori
// CHECK-COUNT-63: func.call @epi
// CHECK-NOT: memref.store
// CHECK-NOT: memref.atomic_rmw
// Second phase, when some bit is set: a row with bits, its 8 elements
// through the epilogue again, those with their bit and above the
// threshold (read again) counted; their slots taken by one atomic add,
// each written with its column in the next of them when inside the
// capacity.
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %{{.*}}, %c0_i64{{.*}} : i64
// CHECK: scf.if %[[ANY]] {
// CHECK:   %[[HASBITS:.*]] = arith.cmpi ne, %{{.*}}, %c0_i32
// CHECK:   scf.if %[[HASBITS]] {
// CHECK:     %[[THETA2:.*]] = memref.load %arg2[
// CHECK-COUNT-8: func.call @epi
// CHECK:     %[[BIT:.*]] = arith.cmpi ne
// CHECK:     %[[ABOVE2:.*]] = arith.cmpf ogt, %{{.*}}, %[[THETA2]] : f32
// CHECK:     %[[KEEP:.*]] = arith.andi %[[BIT]], %[[ABOVE2]]
// CHECK:     scf.if
// CHECK:       %[[SLOT:.*]] = memref.atomic_rmw addi %{{.*}}, %arg3[{{.*}}] : (i32, memref<?xi32>) -> i32
// CHECK:       scf.if %[[KEEP]] {
// CHECK:         %[[AT:.*]] = arith.index_castui %[[SLOT]] : i32 to index
// CHECK:         %[[ROOM:.*]] = arith.cmpi ult, %[[AT]], %[[CAP]]
// CHECK:         scf.if %[[ROOM]] {
// CHECK:           memref.store %{{.*}}, %arg4[%{{.*}}, %[[AT]]] : memref<?x4096xf32>
// CHECK:           memref.store %{{.*}}, %arg5[%{{.*}}, %[[AT]]] : memref<?x4096xi32>
// CHECK:       %[[NEXT:.*]] = arith.addi %[[SLOT]], %{{.*}} : i32
// CHECK:       scf.if
// CHECK:         arith.index_castui %[[NEXT]] : i32 to index
// CHECK-COUNT-7: memref.atomic_rmw
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.return
gpu.module @m {
  func.func private @epi(%x: f32, %m: index, %n: index) -> f32 {
    return %x : f32
  }
  func.func private @screen(%x: f32, %m: index, %n: index, %t: f32) -> i1 {
    %b = arith.cmpf oge, %x, %t : f32
    return %b : i1
  }
  gpu.func @select(%t: vector<64xf32>, %add: memref<?x?xf32>, %th: memref<?xf32>, %cnt: memref<?xi32>, %v: memref<?x4096xf32>, %c: memref<?x4096xi32>, %r: index, %col: index, %rows: index, %cols: index) kernel {
    sck.select_tile %t[%r, %col] within [%rows, %cols] plus %add : memref<?x?xf32> epilogue @epi above %th into %cnt, %v, %c : vector<64xf32>, memref<?xf32>, memref<?xi32>, memref<?x4096xf32>, memref<?x4096xi32>
    gpu.return
  }

  // With a screen, the first phase calls it (with the row's threshold)
  // instead of the epilogue; the second phase is the same.
  // CHECK-LABEL: gpu.func @screened
  // CHECK: %[[THETA:.*]] = memref.load %arg1[
  // CHECK: %[[KEEP:.*]] = func.call @screen(%{{.*}}, %{{.*}}, %{{.*}}, %[[THETA]]) : (f32, index, index, f32) -> i1
  // CHECK: arith.andi %[[KEEP]],
  // CHECK-COUNT-63: func.call @screen
  // CHECK-NOT: func.call @screen
  // CHECK: scf.if
  // CHECK-COUNT-64: func.call @epi
  // CHECK: gpu.return
  gpu.func @screened(%t: vector<64xf32>, %th: memref<?xf32>, %cnt: memref<?xi32>, %v: memref<?x4096xf32>, %c: memref<?x4096xi32>, %r: index, %col: index, %rows: index, %cols: index) kernel {
    sck.select_tile %t[%r, %col] within [%rows, %cols] epilogue @epi above %th into %cnt, %v, %c screened_by @screen : vector<64xf32>, memref<?xf32>, memref<?xi32>, memref<?x4096xf32>, memref<?x4096xi32>
    gpu.return
  }
}
