// Tiles of 64 columns: a 2:4 tile's values are half a swizzled box.
#w = #sc.hybrid_tiles<tile = [64, 64], grid = [2, 4], kinds = "">
func.func @narrow(%k: tensor<2x4xi8>, %s: tensor<2x4xi32>, %d: tensor<?x64x64xf16>, %sp: tensor<?x64x32xf16>, %m: tensor<?x64x2xi32>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x4xi8>, tensor<2x4xi32>, tensor<?x64x64xf16>, tensor<?x64x32xf16>, tensor<?x64x2xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf16>
  return %y : tensor<?x5x128xf16>
}
