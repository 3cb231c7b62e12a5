// RUN: sparcast-translate --mlir-to-manifest %sparcast_src_root/examples/gemm.mlir | FileCheck %s
// RUN: sparcast-translate --mlir-to-manifest --sm=sm_80 %sparcast_src_root/examples/gemm.mlir | FileCheck %s --check-prefix=SM80
// RUN: not sparcast-translate --mlir-to-manifest %S/Inputs/scalar-argument.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// The manifest sparcast-aot writes, on stdout.
// CHECK: "chip": "sm_90a",
// CHECK: "kernel": "gemm_gather_add_gemm0",
// CHECK: "kind": "tma",
// CHECK: "format": "sparcast-artifact-2",
// SM80: "chip": "sm_80",
// SM80-NOT: "kind": "tma"
// SM80: "kind": "memref",
// BAD: error: entry argument #1 must be a ranked f32/f16/bf16/i32/i8 tensor, got 'f32'
