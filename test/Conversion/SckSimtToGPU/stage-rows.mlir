// RUN: sparcast-opt %s -sc-lower-sck-simt | FileCheck %s

// sck.stage_rows: a barrier, each thread every 256th element of the 128 x
// 16 block (8 of them), loaded when inside the source (else zero) and
// stored transposed, then a barrier.
// CHECK-LABEL: gpu.func @stage
// CHECK: gpu.thread_id x
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<16x132xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NOT: memref.store
gpu.module @m {
  gpu.func @stage(%src: memref<?x?xf32>, %stage: memref<16x132xf32, #gpu.address_space<workgroup>>, %r: index, %k: index) kernel {
    sck.stage_rows %src[%r, %k] into %stage {rows = 128 : i64} : memref<?x?xf32>, memref<16x132xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
