// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.store_tile, when the result is not empty: first every element of the
// thread's tile plus the addend (one vector read a row and group of four
// columns when inside, else element by element, 0 outside it) through the
// epilogue, at the nearest place inside for an element outside (no branch
// around the calls, no store among them); then per row and group one
// vector store when all four are inside, else element by element.
// CHECK-LABEL: gpu.func @store
// CHECK: %[[ROWS:.*]] = memref.dim %arg1, %c0
// CHECK: %[[COLS:.*]] = memref.dim %arg1, %c1
// CHECK: scf.if
// CHECK: arith.minui
// CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK:   vector.load %arg3[{{.*}}] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-64: func.call @epi
// CHECK-NOT: func.call
// CHECK-NOT: memref.store
// CHECK: arith.remui %[[COLS]], %c4
// CHECK: scf.if
// CHECK:   vector.store {{.*}} : memref<?x?xf16>, vector<4xf16>
// CHECK: } else {
// CHECK-COUNT-4: memref.store {{.*}} : memref<?x?xf16>
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
