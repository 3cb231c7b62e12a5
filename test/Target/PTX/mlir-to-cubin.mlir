// REQUIRES: ptxas
// RUN: sparcast-translate --mlir-to-cubin %s -o %t.cubin
// RUN: od -A n -c -N 4 %t.cubin | FileCheck %s

// The cubin is an ELF file.
// CHECK: 177   E   L   F

gpu.module @kernels {
  gpu.func @noop() kernel {
    gpu.return
  }
}
