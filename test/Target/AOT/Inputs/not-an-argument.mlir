func.func @twice(%a: tensor<16x8xf16>, %b: tensor<?x8x16xf16>, %a2: tensor<16x16xf16>) -> tensor<?x16x16xf16> {
  %c = sc.batch_matmul %a, %b : tensor<16x8xf16>, tensor<?x8x16xf16> -> tensor<?x16x16xf16>
  %d = sc.batch_matmul %a2, %c : tensor<16x16xf16>, tensor<?x16x16xf16> -> tensor<?x16x16xf16>
  return %d : tensor<?x16x16xf16>
}
