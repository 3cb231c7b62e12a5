#w = #sc.hybrid_tiles<tile = [128, 128], grid = [2, 2], kinds = "">
func.func @prefill(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x128x128xf16>, %sp: tensor<?x128x64xf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x300x256xf16>) -> tensor<?x300x256xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<256x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x300x256xf16>, tensor<256x256xf16, #w> -> tensor<?x300x256xf16>
  return %y : tensor<?x300x256xf16>
}
