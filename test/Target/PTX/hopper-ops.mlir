// REQUIRES: ptxas
// RUN: sparcast-translate --mlir-to-ptx %s > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Hopper-only NVVM ops reach PTX for sm_90a: mbarrier init/arrive/wait,
// a proxy fence and a register-count hint, which the GEMM kernels build on.
// CHECK: .target sm_90a
// CHECK: mbarrier.init.shared
// CHECK: fence.proxy.async.shared::cta
// CHECK: setmaxnreg.inc.sync.aligned.u32 240

gpu.module @kernels {
  memref.global "private" @bar : memref<1xi64, 3>
  gpu.func @barriers() kernel attributes {nvvm.maxntid = array<i32: 384, 1, 1>} {
    %m = memref.get_global @bar : memref<1xi64, 3>
    %base = memref.extract_aligned_pointer_as_index %m : memref<1xi64, 3> -> index
    %i64 = arith.index_cast %base : index to i64
    %p = llvm.inttoptr %i64 : i64 to !llvm.ptr<3>
    %count = arith.constant 128 : i32
    nvvm.mbarrier.init %p, %count : !llvm.ptr<3>, i32
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.setmaxregister increase 240
    gpu.return
  }
}
