#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @linear(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf16>
  return %y : tensor<?x5x128xf16>
}
