// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.store_tile: each of the thread's 64 elements, inside the result,
// through the epilogue function, stored.
// CHECK-LABEL: gpu.func @store
// CHECK-COUNT-64: func.call @epi(%{{.*}}, %{{.*}}, %{{.*}}, %arg2) : (f32, index, index, memref<?xf32>) -> f16
// CHECK-NOT: func.call
gpu.module @m {
  func.func private @epi(%x: f32, %m: index, %n: index, %s: memref<?xf32>) -> f16 {
    %y = memref.load %s[%n] : memref<?xf32>
    %z = arith.mulf %x, %y : f32
    %h = arith.truncf %z : f32 to f16
    return %h : f16
  }
  gpu.func @store(%t: vector<64xf32>, %out: memref<?x?xf16>, %s: memref<?xf32>, %r: index, %c: index) kernel {
    sck.store_tile %t, %out[%r, %c] epilogue @epi ins(%s : memref<?xf32>) : vector<64xf32>, memref<?x?xf16>
    gpu.return
  }
}
