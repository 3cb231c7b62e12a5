// RUN: rm -rf %t && sparcast-aot %s -o %t --report 2>&1 | FileCheck %s

// A tosa graph compiles: the matmul raised to sc.batch_matmul, the bias
// add (a [1, 1, N] broadcast) and the clamp lowered to linalg and fused
// into the GEMM's epilogue; one wgmma kernel, no generated kernel left.
// CHECK: raised to sc.batch_matmul
// CHECK: fused an element-wise consumer into the epilogue (0 gathered input(s) read through the index, 1 other input(s))
// CHECK: fused an element-wise consumer into the epilogue
// CHECK: kernel f_gemm0: 16x64x32 f16, warp-specialized
// CHECK-NOT: generic
// CHECK: wrote

func.func @f(%a: tensor<?x16x32xf16>, %w: tensor<?x32x64xf16>, %b: tensor<1x1x64xf16>) -> tensor<?x16x64xf16> {
  %za = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %m = tosa.matmul %a, %w, %za, %za : (tensor<?x16x32xf16>, tensor<?x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<?x16x64xf16>
  %s = tosa.add %m, %b : (tensor<?x16x64xf16>, tensor<1x1x64xf16>) -> tensor<?x16x64xf16>
  %r = tosa.clamp %s {min_val = 0.0 : f16, max_val = 65504.0 : f16} : (tensor<?x16x64xf16>) -> tensor<?x16x64xf16>
  return %r : tensor<?x16x64xf16>
}
