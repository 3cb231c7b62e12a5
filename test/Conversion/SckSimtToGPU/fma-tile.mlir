// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.fma_tile: per k, the thread's 8 values of each stage (two 16-byte
// reads each, 64 floats apart) and 64 fused multiply-adds in k order.
// CHECK-LABEL: gpu.func @tile
// CHECK-COUNT-4: vector.load %{{.*}} : memref<2x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-COUNT-64: math.fma
// CHECK-COUNT-4: vector.load
// CHECK-COUNT-64: math.fma
// CHECK-NOT: math.fma
gpu.module @m {
  gpu.func @tile(%a: memref<2x132xf32, #gpu.address_space<workgroup>>, %b: memref<2x132xf32, #gpu.address_space<workgroup>>, %acc: vector<64xf32>, %out: memref<64xf32>) kernel {
    %r = sck.fma_tile %a, %b, %acc : memref<2x132xf32, #gpu.address_space<workgroup>>, memref<2x132xf32, #gpu.address_space<workgroup>>, vector<64xf32>
    %c0 = arith.constant 0 : index
    vector.store %r, %out[%c0] : memref<64xf32>, vector<64xf32>
    gpu.return
  }
}
