// RUN: sparcast-translate --mlir-to-ptx %s | FileCheck %s --check-prefix=SM90A
// RUN: sparcast-translate --mlir-to-ptx --sm=sm_80 %s | FileCheck %s --check-prefix=SM80

// A small gpu.module kernel through the NVPTX backend; sm_90a by default.
// SM90A: // gpu.module @kernels
// SM90A: .version 8.2
// SM90A: .target sm_90a
// SM90A: .visible .entry scale_rows(
// SM90A: mov.u32 {{.*}}%ctaid.x
// SM90A: ld.global
// SM90A: mul.rn.f32
// SM90A: st.global
// SM80: .target sm_80
// SM80: .visible .entry scale_rows(

gpu.module @kernels {
  gpu.func @scale_rows(%x: memref<?x64xf32>, %s: f32) kernel {
    %row = gpu.block_id x
    %col = gpu.thread_id x
    %v = memref.load %x[%row, %col] : memref<?x64xf32>
    %r = arith.mulf %v, %s : f32
    memref.store %r, %x[%row, %col] : memref<?x64xf32>
    gpu.return
  }
}
