// RUN: sparcast-equiv %s --ref=f16 --pass-pipeline='builtin.module(sc-pad-k)' --candidates=5 | FileCheck %s
// RUN: sparcast-equiv %s --ref=transposed_bf16 --pass-pipeline='builtin.module(sc-pad-k)' --candidates=3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=f32 --pass-pipeline='builtin.module(sc-pad-k)' --candidates=4 | FileCheck %s
// RUN: sparcast-opt %s -sc-pad-k | FileCheck %s --check-prefix=PADDED

// Zero padding of K leaves the product unchanged (exactly: the extra terms
// are zeros), for both layouts of the rhs and for f32.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// PADDED-COUNT-6: tensor.pad

func.func @f16(%w: tensor<4x13xf16>, %e: tensor<?x13x6xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x4x6xf16> {
  %o = sc.batch_matmul %w, %e : tensor<4x13xf16>, tensor<?x13x6xf16> -> tensor<?x4x6xf16>
  return %o : tensor<?x4x6xf16>
}

func.func @transposed_bf16(%e: tensor<?x3x10xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<5x10xbf16>) -> tensor<?x3x5xf32> {
  %o = sc.batch_matmul %e, %w {transpose_rhs} : tensor<?x3x10xbf16>, tensor<5x10xbf16> -> tensor<?x3x5xf32>
  return %o : tensor<?x3x5xf32>
}

func.func @f32(%w: tensor<2x5xf32>, %e: tensor<?x5x3xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x3xf32> {
  %o = sc.batch_matmul %w, %e : tensor<2x5xf32>, tensor<?x5x3xf32> -> tensor<?x2x3xf32>
  return %o : tensor<?x2x3xf32>
}
