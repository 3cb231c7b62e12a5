// RUN: not sparcast-translate --mlir-to-ptx --sm=sm_70 %s 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not sparcast-translate --mlir-to-ptx %S/no-gpu-module.input 2>&1 | FileCheck %s --check-prefix=NOGPU
// RUN: not sparcast-translate --mlir-to-ptx %S/bad-ir.input 2>&1 | FileCheck %s --check-prefix=BADIR
// RUN: not sparcast-translate --mlir-to-cubin %S/two-modules.input 2>&1 | FileCheck %s --check-prefix=TWO

// Bad input gives a located error and a non-zero exit, never a crash.
// CHIP: error: unsupported chip 'sm_70', expected one of: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a
// NOGPU: no-gpu-module.input:{{[0-9]+}}:{{[0-9]+}}: error: no gpu.module to compile to PTX
// BADIR: bad-ir.input:{{[0-9]+}}:{{[0-9]+}}: error:
// TWO: error: --mlir-to-cubin takes one gpu.module, got 2

gpu.module @kernels {
  gpu.func @noop() kernel {
    gpu.return
  }
}
