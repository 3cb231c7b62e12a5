func.func @target(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x2000x128xf16>,
                  %v: tensor<?x2x2000x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2000x128xf16>, tensor<?x2x2000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}
func.func @short(%q: tensor<2x1x40x64xf16>, %k: tensor<2x1x100x64xf16>, %v: tensor<2x1x100x64xf16>) -> tensor<2x1x40x64xf16> {
  %o = sc.attention %q, %k, %v {scale = 0.5 : f32} : tensor<2x1x40x64xf16>, tensor<2x1x100x64xf16>, tensor<2x1x100x64xf16> -> tensor<2x1x40x64xf16>
  return %o : tensor<2x1x40x64xf16>
}
