// Two GEMMs of one model; the second pins its schedule.
func.func @pinned(%w: tensor<64x872xf16>, %e: tensor<?x872x256xf16>) -> (tensor<?x64x256xf16>, tensor<?x64x256xf16>) {
  %a = sc.batch_matmul %w, %e : tensor<64x872xf16>, tensor<?x872x256xf16> -> tensor<?x64x256xf16>
  %b = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : tensor<64x872xf16>, tensor<?x872x256xf16> -> tensor<?x64x256xf16>
  return %a, %b : tensor<?x64x256xf16>, tensor<?x64x256xf16>
}
