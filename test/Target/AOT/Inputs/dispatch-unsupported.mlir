// A dispatch sparcast-aot cannot put in a manifest: a dim compared for
// equality (launches run under >= or < only).
func.func @eq(%w: tensor<64x64xf16>, %e: tensor<?x64x64xf16>) -> tensor<?x64x64xf16> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %b = tensor.dim %e, %c0 : tensor<?x64x64xf16>
  %is8 = arith.cmpi eq, %b, %c8 : index
  %r = scf.if %is8 -> (tensor<?x64x64xf16>) {
    %x = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : tensor<64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
    scf.yield %x : tensor<?x64x64xf16>
  } else {
    %y = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
    scf.yield %y : tensor<?x64x64xf16>
  }
  return %r : tensor<?x64x64xf16>
}
