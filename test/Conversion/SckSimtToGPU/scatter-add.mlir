// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.scatter_add is an atomic add when (row, column) is inside the result,
// nothing otherwise.
// CHECK-LABEL: func.func @add
// CHECK: %[[R:.*]] = memref.dim %arg1, %c0
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %arg2, %[[R]]
// CHECK: %[[C:.*]] = memref.dim %arg1, %c1
// CHECK: %[[CIN:.*]] = arith.cmpi ult, %arg3, %[[C]]
// CHECK: %[[IN:.*]] = arith.andi %[[RIN]], %[[CIN]]
// CHECK: scf.if %[[IN]] {
// CHECK:   memref.atomic_rmw addf %arg0, %arg1[%arg2, %arg3]
func.func @add(%x: f32, %out: memref<?x?xf32>, %r: index, %c: index) {
  sck.scatter_add %x, %out[%r, %c] : memref<?x?xf32>
  return
}

// With scaled_by, the value is scaled by the function at (1.0, row, column,
// ins...), called only inside the result.
// CHECK-LABEL: gpu.func @scaled
// CHECK: scf.if %{{.*}} {
// CHECK:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[S:.*]] = func.call @cosine(%[[ONE]], %arg2, %arg3, %arg4, %arg5)
// CHECK:   %[[V:.*]] = arith.mulf %arg0, %[[S]]
// CHECK:   memref.atomic_rmw addf %[[V]], %arg1[%arg2, %arg3]
gpu.module @m {
  func.func private @cosine(%x: f32, %m: index, %n: index,
                            %a: memref<?xf32>, %b: memref<?xf32>) -> f32 {
    %p = memref.load %a[%m] : memref<?xf32>
    %q = memref.load %b[%n] : memref<?xf32>
    %pq = arith.mulf %p, %q : f32
    %c = arith.divf %x, %pq : f32
    return %c : f32
  }
  gpu.func @scaled(%x: f32, %out: memref<?x?xf32>, %r: index, %c: index,
                   %a: memref<?xf32>, %b: memref<?xf32>) kernel {
    sck.scatter_add %x, %out[%r, %c] scaled_by @cosine ins(%a, %b : memref<?xf32>, memref<?xf32>) : memref<?x?xf32>
    gpu.return
  }
}
