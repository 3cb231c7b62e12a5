// RUN: sparcast-equiv %s --ref=epilogue_bias --pass-pipeline='builtin.module(sc-pad-n)' --candidates=5 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=transposed_rhs --pass-pipeline='builtin.module(sc-pad-n)' --candidates=4 --trials=2 | FileCheck %s

// Zero columns appended to the rhs and sliced off the result leave the
// product as it was, an epilogue reading a bias of N columns included (its
// reads clamped to column N - 1, so the padding reads nothing past it).
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @epilogue_bias(%w: tensor<5x16xf16>, %e: tensor<?x16x13xf16> {sc.lineage = #sc.lineage<candidate>}, %bias: tensor<13xf32>) -> tensor<?x5x13xf16> {
  %y = sc.batch_matmul %w, %e epilogue_ins(%bias : tensor<13xf32>) : tensor<5x16xf16>, tensor<?x16x13xf16> -> tensor<?x5x13xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<13xf32>):
    %v = tensor.extract %bs[%n] : tensor<13xf32>
    %s = arith.addf %acc, %v : f32
    %o = arith.truncf %s : f32 to f16
    sc.yield %o : f16
  }
  return %y : tensor<?x5x13xf16>
}

func.func @transposed_rhs(%x: tensor<?x4x16xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<13x16xbf16>) -> tensor<?x4x13xf32> {
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x4x16xbf16>, tensor<13x16xbf16> -> tensor<?x4x13xf32>
  return %y : tensor<?x4x13xf32>
}
