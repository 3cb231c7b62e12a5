// RUN: sparcast-equiv %s --ref=plain --test=decomposed --users=4 --candidates=13 --trials=3 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=plain --test=decomposed --users=5 --candidates=6 --shuffle-index --rtol=2e-3 | FileCheck %s

// The IKBO type I identity the decomposition pass will rely on, written by
// hand: W @ concat(gather(E_user), E_cand) equals the user GEMM at B_user,
// gathered and added in the candidate GEMM's epilogue. Odd K on both sides.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @plain(%w: tensor<4x8xf16> {sc.lineage = #sc.lineage<shared>},
                 %e_user: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                 %e_cand: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>},
                 %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf16> {
  %user_b = sc.gather_rows %e_user[%idx] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  %e = tensor.concat dim(1) %user_b, %e_cand : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  %out = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf16>
  return %out : tensor<?x4x6xf16>
}

func.func @decomposed(%w: tensor<4x8xf16> {sc.lineage = #sc.lineage<shared>},
                      %e_user: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                      %e_cand: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>},
                      %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf16> {
  %w_user = tensor.extract_slice %w[0, 0] [4, 5] [1, 1] : tensor<4x8xf16> to tensor<4x5xf16>
  %w_cand = tensor.extract_slice %w[0, 5] [4, 3] [1, 1] : tensor<4x8xf16> to tensor<4x3xf16>
  %user = sc.batch_matmul %w_user, %e_user : tensor<4x5xf16>, tensor<?x5x6xf16> -> tensor<?x4x6xf32>
  %out = sc.batch_matmul %w_cand, %e_cand epilogue_ins(%user, %idx : tensor<?x4x6xf32>, tensor<?xi32>)
      : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x4x6xf32>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x4x6xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %out : tensor<?x4x6xf16>
}
