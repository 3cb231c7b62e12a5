// RUN: sparcast-equiv %s --ref=gather_add_bias_relu --pass-pipeline='builtin.module(sc-fuse-epilogue)' --users=3 --candidates=10 --trials=3 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=gather_add_bias_relu --pass-pipeline='builtin.module(sc-fuse-epilogue)' --users=4 --candidates=7 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-opt %s -sc-fuse-epilogue | FileCheck %s --check-prefix=FUSED

// Folding the gather-add, a bias broadcast along N, a relu and the cast
// into the GEMM epilogue preserves meaning; and the fusion did happen.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// FUSED: sc.batch_matmul {{.*}} epilogue_ins(
// FUSED-NOT: linalg.generic
// FUSED-NOT: sc.gather_rows

func.func @gather_add_bias_relu(%w: tensor<5x8xf16>,
                                %c: tensor<?x8x6xf16> {sc.lineage = #sc.lineage<candidate>},
                                %user: tensor<?x5x6xf32> {sc.lineage = #sc.lineage<request>},
                                %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>},
                                %bias: tensor<6xf32>) -> tensor<?x5x6xf16> {
  %cand = sc.batch_matmul %w, %c : tensor<5x8xf16>, tensor<?x8x6xf16> -> tensor<?x5x6xf32>
  %g = sc.gather_rows %user[%i] : tensor<?x5x6xf32>, tensor<?xi32> -> tensor<?x5x6xf32>
  %c0 = arith.constant 0 : index
  %b = tensor.dim %cand, %c0 : tensor<?x5x6xf32>
  %init = tensor.empty(%b) : tensor<?x5x6xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>,
                                        affine_map<(b, m, n) -> (n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cand, %g, %bias : tensor<?x5x6xf32>, tensor<?x5x6xf32>, tensor<6xf32>) outs(%init : tensor<?x5x6xf16>) {
  ^bb0(%a: f32, %u: f32, %x: f32, %out: f16):
    %s = arith.addf %a, %u : f32
    %t = arith.addf %s, %x : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %t, %zero : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x5x6xf16>
  return %o : tensor<?x5x6xf16>
}
