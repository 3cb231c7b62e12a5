// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.store_tile: per row of the thread's 8 and group of 4 columns, one
// vector read of the addend and one vector store when the four are inside
// (rows a multiple of four long), else element by element inside the
// result (the addend 0 outside it); every element through the epilogue.
// CHECK-LABEL: gpu.func @store
// CHECK: %[[ROWS:.*]] = memref.dim %arg1, %c0
// CHECK: %[[COLS:.*]] = memref.dim %arg1, %c1
// CHECK: arith.remui %[[COLS]], %c4
// CHECK: scf.if
// CHECK:   vector.load %arg3[{{.*}}] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK-COUNT-4: func.call @epi
// CHECK:   vector.store {{.*}} : memref<?x?xf16>, vector<4xf16>
// CHECK: } else {
// CHECK-COUNT-4: memref.store {{.*}} : memref<?x?xf16>
// CHECK: vector.load %arg3
// CHECK-COUNT-120: func.call @epi
// CHECK-NOT: func.call
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
