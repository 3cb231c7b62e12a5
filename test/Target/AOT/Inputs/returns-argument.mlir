func.func @passthrough(%a: tensor<16x8xf16>, %b: tensor<?x8x16xf16>) -> (tensor<?x16x16xf16>, tensor<16x8xf16>) {
  %c = sc.batch_matmul %a, %b : tensor<16x8xf16>, tensor<?x8x16xf16> -> tensor<?x16x16xf16>
  return %c, %a : tensor<?x16x16xf16>, tensor<16x8xf16>
}
