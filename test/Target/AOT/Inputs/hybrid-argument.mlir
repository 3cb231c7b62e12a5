// A hybrid-tiled weight passed as it is: its buffers are unknown.
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @packed_arg(%w: tensor<128x256xf16, #w>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf16> {
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf16>
  return %y : tensor<?x5x128xf16>
}
