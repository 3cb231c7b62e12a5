func.func @scalar(%a: tensor<16x8xf16>, %s: f32) -> tensor<16x8xf16> {
  return %a : tensor<16x8xf16>
}
