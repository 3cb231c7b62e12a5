func.func @static_batch(%a: tensor<3x64x40xf16>, %b: tensor<3x40x72xf16>) -> tensor<3x64x72xf32> {
  %c = sc.batch_matmul %a, %b : tensor<3x64x40xf16>, tensor<3x40x72xf16> -> tensor<3x64x72xf32>
  return %c : tensor<3x64x72xf32>
}
func.func @two_results(%w: tensor<16x8xf16>, %e: tensor<?x8x16xf16>, %w2: tensor<16x16xf16>) -> (tensor<?x16x16xf16>, tensor<?x16x16xf32>) {
  %c = sc.batch_matmul %w, %e : tensor<16x8xf16>, tensor<?x8x16xf16> -> tensor<?x16x16xf16>
  %d = sc.batch_matmul %w2, %c : tensor<16x16xf16>, tensor<?x16x16xf16> -> tensor<?x16x16xf32>
  return %c, %d : tensor<?x16x16xf16>, tensor<?x16x16xf32>
}
