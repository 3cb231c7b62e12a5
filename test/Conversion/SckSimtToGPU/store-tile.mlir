// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.store_tile: nothing on an empty result. Else every element of the
// thread's 8 x 8 first goes through the epilogue (the addend's four columns
// read as one vector when inside, 0 outside it; rows and columns past the
// result clamped to its last, their values unused), so no store comes
// between the epilogue's loads; then per row and group of 4 columns one
// vector store when the four are inside (rows a multiple of four long),
// else element by element inside the result.
// CHECK-LABEL: gpu.func @store
// CHECK: %[[ROWS:.*]] = memref.dim %arg1, %c0
// CHECK: %[[COLS:.*]] = memref.dim %arg1, %c1
// CHECK: scf.if
// CHECK: %[[LASTROW:.*]] = arith.subi %[[ROWS]], %c1
// CHECK: %[[LASTCOL:.*]] = arith.subi %[[COLS]], %c1
// CHECK: %[[ROW:.*]] = arith.minui %{{.*}}, %[[LASTROW]]
// CHECK: vector.load %arg3[{{.*}}] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK: %[[COL:.*]] = arith.minui %{{.*}}, %[[LASTCOL]]
// CHECK: func.call @epi(%{{.*}}, %[[ROW]], %[[COL]], %arg2)
// CHECK-COUNT-63: func.call @epi
// CHECK-NOT: func.call
// CHECK: arith.remui %[[COLS]], %c4
// CHECK: scf.if
// CHECK:   vector.from_elements
// CHECK:   vector.store {{.*}} : memref<?x?xf16>, vector<4xf16>
// CHECK: } else {
// CHECK-COUNT-4: memref.store {{.*}} : memref<?x?xf16>
// CHECK-COUNT-15: vector.store
gpu.module @m {
  func.func private @epi(%x: f32, %m: index, %n: index, %s: memref<?xf32>) -> f16 {
    %y = memref.load %s[%n] : memref<?xf32>
    %z = arith.mulf %x, %y : f32
    %h = arith.truncf %z : f32 to f16
    return %h : f16
  }
  gpu.func @store(%t: vector<64xf32>, %out: memref<?x?xf16>, %s: memref<?xf32>, %add: memref<?x?xf32>, %r: index, %c: index) kernel {
    sck.store_tile %t, %out[%r, %c] plus %add : memref<?x?xf32> epilogue @epi ins(%s : memref<?xf32>) : vector<64xf32>, memref<?x?xf16>
    gpu.return
  }
}
