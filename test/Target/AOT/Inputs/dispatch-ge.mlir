// A dispatch written in the model: B >= 2 x 8 runs the cooperative kernel,
// else the ping-pong one.
func.func @ge(%w: tensor<64x64xf16>, %e: tensor<?x64x64xf16>) -> tensor<?x64x64xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %b = tensor.dim %e, %c0 : tensor<?x64x64xf16>
  %least = arith.muli %c8, %c2 : index
  %many = arith.cmpi sge, %b, %least : index
  %r = scf.if %many -> (tensor<?x64x64xf16>) {
    %x = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : tensor<64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
    scf.yield %x : tensor<?x64x64xf16>
  } else {
    %y = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
    scf.yield %y : tensor<?x64x64xf16>
  }
  return %r : tensor<?x64x64xf16>
}
