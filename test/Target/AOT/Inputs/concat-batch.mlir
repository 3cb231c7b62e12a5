func.func @rows(%a: tensor<?x4x16xf16>, %b: tensor<?x4x16xf16>) -> tensor<?x4x16xf16> {
  %c = tensor.concat dim(0) %a, %b : (tensor<?x4x16xf16>, tensor<?x4x16xf16>) -> tensor<?x4x16xf16>
  return %c : tensor<?x4x16xf16>
}
