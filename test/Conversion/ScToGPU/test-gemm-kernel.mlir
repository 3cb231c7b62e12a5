// RUN: sparcast-opt %s -split-input-file -sc-test-gemm-kernel -verify-diagnostics | FileCheck %s

// The GEMM kernels without a kernel-level IR: the portable kernel (the
// warp-specialized ones come from sc-lower-to-sck's IR: see
// test/Conversion/SckToNVGPU).

// What the Hopper path does not take goes to the portable kernel, with a
// remark saying why.
// CHECK-LABEL: func.func @unaligned_k
// CHECK: gpu.func @unaligned_k_gemm0
// CHECK-NOT: nvgpu.
func.func @unaligned_k(%a: tensor<16x13xf16>, %b: tensor<?x13x24xf16>) -> tensor<?x16x24xf16> {
  // expected-remark @+1 {{using the portable GEMM path: TMA needs 16-byte aligned rows: K (13) must be a multiple of 8 (pad K with sc-pad-k)}}
  %c = sc.batch_matmul %a, %b : tensor<16x13xf16>, tensor<?x13x24xf16> -> tensor<?x16x24xf16>
  return %c : tensor<?x16x24xf16>
}

// -----

// N even but no multiple of 8 stays on the Hopper path (its rows copied
// and stored by threads); odd N does not.
// CHECK-LABEL: func.func @odd_n
// CHECK: gpu.func @odd_n_gemm0
// CHECK-NOT: nvgpu.
func.func @odd_n(%a: tensor<16x16xf16>, %b: tensor<?x16x25xf16>) -> tensor<?x16x25xf16> {
  // expected-remark @+1 {{using the portable GEMM path: N (25) must be even (pad N with sc-pad-n)}}
  %c = sc.batch_matmul %a, %b : tensor<16x16xf16>, tensor<?x16x25xf16> -> tensor<?x16x25xf16>
  return %c : tensor<?x16x25xf16>
}

// -----

// CHECK-LABEL: func.func @f32_operands
// CHECK: gpu.func @f32_operands_gemm0
func.func @f32_operands(%a: tensor<16x8xf32>, %b: tensor<?x8x24xf32>) -> tensor<?x16x24xf32> {
  // expected-remark @+1 {{using the portable GEMM path: wgmma takes f16/bf16 operands here, got f32}}
  %c = sc.batch_matmul %a, %b : tensor<16x8xf32>, tensor<?x8x24xf32> -> tensor<?x16x24xf32>
  return %c : tensor<?x16x24xf32>
}

// -----

func.func @dynamic_rows(%a: tensor<?x8xf16>, %b: tensor<?x8x24xf16>) -> tensor<?x?x24xf16> {
  // expected-error @+1 {{the GEMM lowering needs static M, N, K}}
  %c = sc.batch_matmul %a, %b : tensor<?x8xf16>, tensor<?x8x24xf16> -> tensor<?x?x24xf16>
  return %c : tensor<?x?x24xf16>
}

// -----

// The portable kernel's epilogue runs the region's scalar ops only.
func.func @epilogue_with_region(%a: tensor<16x13xf16>, %b: tensor<?x13x24xf16>, %t: tensor<24xf32>) -> tensor<?x16x24xf32> {
  // expected-remark @+1 {{using the portable GEMM path}}
  %c = sc.batch_matmul %a, %b epilogue_ins(%t : tensor<24xf32>) : tensor<16x13xf16>, tensor<?x13x24xf16> -> tensor<?x16x24xf32> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %x: tensor<24xf32>):
    // expected-error @+1 {{'tensor.empty' is not supported in a GPU epilogue}}
    %e = tensor.empty() : tensor<2xf32>
    sc.yield %acc : f32
  }
  return %c : tensor<?x16x24xf32>
}
