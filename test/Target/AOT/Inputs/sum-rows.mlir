func.func @sr(%w: tensor<64x64xf16>, %e: tensor<?x64x64xf16>) -> tensor<?x1x64xf32> {
  %0 = sc.batch_matmul %w, %e {sum_rows} : tensor<64x64xf16>, tensor<?x64x64xf16> -> tensor<?x1x64xf32> {
  ^bb0(%acc: f32, %i: index, %j: index, %k: index):
    %h = arith.truncf %acc : f32 to f16
    sc.yield %h : f16
  }
  return %0 : tensor<?x1x64xf32>
}
