// RUN: not sparcast-equiv %s --ref=matmul --test=off_by_one --candidates=3 | FileCheck %s
// RUN: not sparcast-equiv %s --ref=zeros --test=zeros --candidates=3 | FileCheck %s --check-prefix=ZERO
// RUN: not sparcast-equiv %s --ref=two_results --test=second_wrong --candidates=3 | FileCheck %s --check-prefix=TWO
// RUN: not sparcast-equiv %s --ref=matmul --pass-pipeline='builtin.module(sc-materialize-block-mask)' --candidates=3 2>&1 | FileCheck %s --check-prefix=VACUOUS
// RUN: sparcast-equiv %s --ref=off_by_one --pass-pipeline='builtin.module(sc-pad-k)' --candidates=3 | FileCheck %s --check-prefix=APPLIED

// The checker itself: a wrong rewrite (a dropped row of the contraction)
// must be reported, and so must a comparison of all-zero results, which
// would prove nothing.
// CHECK: MISMATCH
// CHECK: NOT EQUIVALENT
// ZERO: ref_norm 0.000e+00
// ZERO: NOT EQUIVALENT
// With several results each is compared: the second one is wrong here, and
// an argument returned as a result is not freed.
// TWO: trial 0 {{.*}} result 0: {{.*}} ok
// TWO: trial 0 {{.*}} result 1: {{.*}} MISMATCH
// TWO: NOT EQUIVALENT
// A pipeline that changes nothing proves nothing: refused. The mlir-opt
// spelling builtin.module(...) runs the passes on the module itself (it
// used to nest them on modules inside it, so they ran on nothing); K = 3
// of f32 is padded to 4 here.
// VACUOUS: --pass-pipeline changed nothing
// APPLIED: EQUIVALENT

func.func @matmul(%w: tensor<3x4xf32>, %e: tensor<?x4x2xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x3x2xf32> {
  %c = sc.batch_matmul %w, %e : tensor<3x4xf32>, tensor<?x4x2xf32> -> tensor<?x3x2xf32>
  return %c : tensor<?x3x2xf32>
}

func.func @off_by_one(%w: tensor<3x4xf32>, %e: tensor<?x4x2xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x3x2xf32> {
  %w3 = tensor.extract_slice %w[0, 0] [3, 3] [1, 1] : tensor<3x4xf32> to tensor<3x3xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %e, %c0 : tensor<?x4x2xf32>
  %e3 = tensor.extract_slice %e[0, 0, 0] [%n, 3, 2] [1, 1, 1] : tensor<?x4x2xf32> to tensor<?x3x2xf32>
  %c = sc.batch_matmul %w3, %e3 : tensor<3x3xf32>, tensor<?x3x2xf32> -> tensor<?x3x2xf32>
  return %c : tensor<?x3x2xf32>
}

func.func @zeros(%e: tensor<?x4x2xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x4x2xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %e, %c0 : tensor<?x4x2xf32>
  %init = tensor.empty(%n) : tensor<?x4x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%init : tensor<?x4x2xf32>) -> tensor<?x4x2xf32>
  return %z : tensor<?x4x2xf32>
}

func.func @two_results(%w: tensor<3x4xf32>, %e: tensor<?x4x2xf32> {sc.lineage = #sc.lineage<candidate>}) -> (tensor<3x4xf32>, tensor<?x3x2xf32>) {
  %c = sc.batch_matmul %w, %e : tensor<3x4xf32>, tensor<?x4x2xf32> -> tensor<?x3x2xf32>
  return %w, %c : tensor<3x4xf32>, tensor<?x3x2xf32>
}

func.func @second_wrong(%w: tensor<3x4xf32>, %e: tensor<?x4x2xf32> {sc.lineage = #sc.lineage<candidate>}) -> (tensor<3x4xf32>, tensor<?x3x2xf32>) {
  %d = func.call @off_by_one(%w, %e) : (tensor<3x4xf32>, tensor<?x4x2xf32>) -> tensor<?x3x2xf32>
  return %w, %d : tensor<3x4xf32>, tensor<?x3x2xf32>
}
