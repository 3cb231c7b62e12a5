// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/test/Target/ONNX/Inputs/pool.onnxtxt -o %t --report 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=PTX < %t/pool_kernels.ptx

// Pooling as an imported model has it (ReduceMean of f16 rows, ReduceMax
// of f32): a reduction's kernel starts from its fill's constant (no fill
// kernel) and applies its element-wise consumer before the store (the
// mean's division and the rounding to f16): one kernel a reduction.
// REPORT: kernel pool_generic0: linalg.generic (3 loops, 1 reduced) as one thread per output element of result0, its element-wise consumer applied before the store
// REPORT-NEXT: kernel pool_generic1: linalg.generic (3 loops, 1 reduced) as one thread per output element of result1 [
// REPORT-NOT: kernel pool_

// The f16 rows summed in f32, divided by the 4 rows (LLVM multiplies by
// the exact 0.25), rounded once.
// PTX-LABEL: .entry pool_generic0(
// PTX: cvt.f32.f16
// PTX: add.rn.f32
// PTX: mul.rn.f32 %{{.*}}, 0f3E800000;
// PTX-NEXT: cvt.rn.f16.f32
// PTX: st.global.b16
// PTX-LABEL: .entry pool_generic1(
// PTX: max.NaN.f32
// PTX-NOT: .entry
