// RUN: sparcast-equiv %s --ref=gather_add_bias_relu --pass-pipeline='builtin.module(sc-fuse-epilogue)' --users=3 --candidates=10 --trials=3 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=gather_add_bias_relu --pass-pipeline='builtin.module(sc-fuse-epilogue)' --users=4 --candidates=7 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=bf16_product_bias --pass-pipeline='builtin.module(sc-fuse-epilogue)' --candidates=5 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=tosa_bias_clamp --pass-pipeline='builtin.module(sc-ikbo-pipeline)' --candidates=3 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-opt %s -sc-fuse-epilogue | FileCheck %s --check-prefix=FUSED
// RUN: sparcast-opt %s -sc-ikbo-pipeline | FileCheck %s --check-prefix=TOSA

// Folding the gather-add, a bias broadcast along N, a relu and the cast
// into the GEMM epilogue preserves meaning; and the fusion did happen.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// FUSED: sc.batch_matmul {{.*}} epilogue_ins(
// FUSED-NOT: linalg.generic
// FUSED-NOT: sc.gather_rows
// A product of a 16-bit result: the consumer read it rounded, so the fused
// epilogue rounds the fp32 accumulator first.
// A tosa graph (matmul, a [1, 1, N] bias broadcast, a clamp): the matmul
// raised, the rest lowered to linalg and fused into its epilogue.
// TOSA-LABEL: func.func @tosa_bias_clamp
// TOSA: sc.batch_matmul {{.*}} epilogue_ins(%{{.*}} : tensor<1x1x6xf16>)
// TOSA-NOT: linalg.generic
// TOSA-NOT: tosa.
// TOSA: return
// FUSED-LABEL: func.func @bf16_product_bias
// FUSED: ^bb0(%[[ACC:.*]]: f32,
// FUSED: %[[R:.*]] = arith.truncf %[[ACC]] : f32 to bf16
// FUSED: arith.addf %[[R]], %{{.*}} : bf16

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

#bx = affine_map<(b, m, n) -> (b, m, n)>
#bn = affine_map<(b, m, n) -> (n)>
func.func @bf16_product_bias(%w: tensor<5x8xbf16>,
                             %c: tensor<?x8x6xbf16> {sc.lineage = #sc.lineage<candidate>},
                             %bias: tensor<6xbf16>) -> tensor<?x5x6xbf16> {
  %p = sc.batch_matmul %w, %c : tensor<5x8xbf16>, tensor<?x8x6xbf16> -> tensor<?x5x6xbf16>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %c, %c0 : tensor<?x8x6xbf16>
  %e = tensor.empty(%n) : tensor<?x5x6xbf16>
  %y = linalg.generic {indexing_maps = [#bx, #bn, #bx], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %bias : tensor<?x5x6xbf16>, tensor<6xbf16>) outs(%e : tensor<?x5x6xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %s = arith.addf %a, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<?x5x6xbf16>
  return %y : tensor<?x5x6xbf16>
}

func.func @tosa_bias_clamp(%a: tensor<?x5x8xf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<?x8x6xf16> {sc.lineage = #sc.lineage<candidate>}, %bias: tensor<1x1x6xf16>) -> tensor<?x5x6xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %m = tosa.matmul %a, %w, %zp, %zp : (tensor<?x5x8xf16>, tensor<?x8x6xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<?x5x6xf16>
  %s = tosa.add %m, %bias : (tensor<?x5x6xf16>, tensor<1x1x6xf16>) -> tensor<?x5x6xf16>
  %r = tosa.clamp %s {min_val = 0.0 : f16, max_val = 65504.0 : f16} : (tensor<?x5x6xf16>) -> tensor<?x5x6xf16>
  return %r : tensor<?x5x6xf16>
}
