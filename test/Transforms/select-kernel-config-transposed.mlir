// RUN: sparcast-opt %s -sc-select-kernel-config="schedule=transposed report=true" -verify-diagnostics | FileCheck %s

// The transposed schedule asked of every GEMM: a shared lhs with an
// untransposed rhs and a 16-bit result takes it; the others keep their
// default and say why.
// CHECK-LABEL: func.func @mixed
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<transposed>}
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
func.func @mixed(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>, %x: tensor<?x433x872xf16>)
    -> (tensor<?x433x256xf16>, tensor<?x433x256xf16>, tensor<?x433x256xf32>) {
  // expected-remark @+1 {{GEMM schedule transposed (requested)}}
  %0 = sc.batch_matmul %w, %e : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  // expected-remark @+1 {{GEMM schedule pingpong (the transposed schedule cannot take it: its lhs is batched (the transposed tile shares it); default: K = 872 < 4096: the epilogue is a large share of each tile, ping-pong hides it)}}
  %1 = sc.batch_matmul %x, %e : tensor<?x433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  // expected-remark @+1 {{GEMM schedule pingpong (the transposed schedule cannot take it: its result is not f16 or bf16; default: K = 872 < 4096: the epilogue is a large share of each tile, ping-pong hides it)}}
  %2 = sc.batch_matmul %w, %e : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf32>
  return %0, %1, %2 : tensor<?x433x256xf16>, tensor<?x433x256xf16>, tensor<?x433x256xf32>
}
