func.func @gemm(%a: tensor<?x200x72xf16>, %b: tensor<?x72x136xf16>, %bias: tensor<136xf32>) -> tensor<?x200x136xf32> {
  %c = sc.batch_matmul %a, %b epilogue_ins(%bias : tensor<136xf32>)
      : tensor<?x200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf32> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bs: tensor<136xf32>):
    %x = tensor.extract %bs[%n] : tensor<136xf32>
    %s = arith.addf %acc, %x : f32
    sc.yield %s : f32
  }
  return %c : tensor<?x200x136xf32>
}
func.func @linear(%x: tensor<?x300x128xbf16>, %w: tensor<512x128xbf16>) -> tensor<?x300x512xbf16> {
  %c = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x300x128xbf16>, tensor<512x128xbf16> -> tensor<?x300x512xbf16>
  return %c : tensor<?x300x512xbf16>
}
