// Long-context attention with the deterministic log-linear block mask:
// B = 4, H = 16, N = 16384, d = 128, blocks of 128 tokens; each query block
// keeps its neighbours, key blocks at power-of-two distances and the first,
// middle and last blocks (about 12% of the block pairs).
func.func @loglinear_attention(%q: tensor<4x16x16384x128xbf16>,
                               %k: tensor<4x16x16384x128xbf16>,
                               %v: tensor<4x16x16384x128xbf16>)
    -> tensor<4x16x16384x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>)
      : tensor<4x16x16384x128xbf16>, tensor<4x16x16384x128xbf16>,
        tensor<4x16x16384x128xbf16> -> tensor<4x16x16384x128xbf16>
  return %o : tensor<4x16x16384x128xbf16>
}
