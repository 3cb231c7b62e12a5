func.func @tower(%a: tensor<?x2048xbf16>, %b: tensor<?x8192xbf16>, %w: tensor<1024x10240xbf16>, %bias: tensor<1024xf32>) -> tensor<?x1x1024xbf16> {
  %c0 = arith.constant 0 : index
  %x = tensor.concat dim(1) %a, %b : (tensor<?x2048xbf16>, tensor<?x8192xbf16>) -> tensor<?x10240xbf16>
  %d = tensor.dim %x, %c0 : tensor<?x10240xbf16>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [%d, 1, 10240] : tensor<?x10240xbf16> into tensor<?x1x10240xbf16>
  // expected-remark @below {{split at the concatenation along K (2048 + 8192): the second GEMM's epilogue adds the first's f32 result, no copy of the rows}}
  %h = sc.batch_matmul %x3, %w epilogue_ins(%bias : tensor<1024xf32>) {transpose_rhs} : tensor<?x1x10240xbf16>, tensor<1024x10240xbf16> -> tensor<?x1x1024xbf16> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bt: tensor<1024xf32>):
    %bv = tensor.extract %bt[%n] : tensor<1024xf32>
    %s = arith.addf %acc, %bv : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    sc.yield %t : bf16
  }
  return %h : tensor<?x1x1024xbf16>
}
func.func @three_parts(%a: tensor<?x6x16xf16> {sc.lineage = #sc.lineage<candidate>}, %b: tensor<?x6x24xf16> {sc.lineage = #sc.lineage<candidate>}, %c: tensor<?x6x40xf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<80x16xf16>) -> tensor<?x6x16xf16> {
  %x = tensor.concat dim(2) %a, %b, %c : (tensor<?x6x16xf16>, tensor<?x6x24xf16>, tensor<?x6x40xf16>) -> tensor<?x6x80xf16>
  %h = sc.batch_matmul %x, %w : tensor<?x6x80xf16>, tensor<80x16xf16> -> tensor<?x6x16xf16>
  return %h : tensor<?x6x16xf16>
}
