// REQUIRES: ptxas
// RUN: sparcast-translate --mlir-to-ptx %s > %t.sm90a.ptx
// RUN: %ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.sm90a.cubin 2>&1 | FileCheck %s
// RUN: sparcast-translate --mlir-to-ptx --sm=sm_80 %s > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 -v %t.sm80.ptx -o %t.sm80.cubin 2>&1 | FileCheck %s

// ptxas assembles what we emit, for both targets, without spills.
// CHECK: Compiling entry function 'axpy'
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK: Used {{[0-9]+}} registers

gpu.module @kernels {
  gpu.func @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %n: index) kernel {
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %tid = gpu.thread_id x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %xv = memref.load %x[%i] : memref<?xf32>
      %yv = memref.load %y[%i] : memref<?xf32>
      %p = arith.mulf %a, %xv : f32
      %s = arith.addf %p, %yv : f32
      memref.store %s, %y[%i] : memref<?xf32>
    }
    gpu.return
  }
}
