// RUN: sparcast-equiv %s --ref=rows_f32 --pass-pipeline='builtin.module(sc-raise-linalg)' --candidates=7 | FileCheck %s
// RUN: sparcast-equiv %s --ref=rows_transposed_weight --pass-pipeline='builtin.module(sc-raise-linalg)' --candidates=5 | FileCheck %s
// RUN: sparcast-equiv %s --ref=rows_f16 --pass-pipeline='builtin.module(sc-raise-linalg)' --candidates=9 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=batched --pass-pipeline='builtin.module(sc-raise-linalg)' --candidates=3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=rows_bias_relu --pass-pipeline='builtin.module(sc-raise-linalg,sc-fuse-epilogue)' --candidates=6 | FileCheck %s
// RUN: sparcast-equiv %s --ref=tosa_batched --pass-pipeline='builtin.module(sc-raise-linalg)' --candidates=4 --rtol=1e-3 | FileCheck %s
// RUN: sparcast-opt %s -sc-raise-linalg | FileCheck %s --check-prefix=RAISED
// RUN: sparcast-opt %s -sc-raise-linalg -sc-fuse-epilogue | FileCheck %s --check-prefix=FUSED

// Raised matmuls compute what linalg's did, on random rows: a weight
// [K, N], a transposed constant weight read [N, K], f16 (linalg
// accumulates in f16, sc.batch_matmul in f32: within 2e-3), a batched
// product and TOSA's; element-wise consumers moved above the rows' collapse and into
// the product's epilogue (a bias and a ReLU, fused with each other first).
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// RAISED-NOT: linalg.matmul
// RAISED-NOT: linalg.batch_matmul
// RAISED-NOT: tosa.matmul
// FUSED-LABEL: func.func @rows_bias_relu
// FUSED: sc.batch_matmul {{.*}} epilogue_ins(%{{.*}} : tensor<10xf32>)
// FUSED: arith.addf
// FUSED: arith.maximumf
// FUSED: sc.yield
// FUSED-NOT: linalg.generic
// FUSED: return

func.func @rows_f32(%x: tensor<?x24xf32> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<24x10xf32> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %x, %c0 : tensor<?x24xf32>
  %e = tensor.empty(%r) : tensor<?x10xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x10xf32>) -> tensor<?x10xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x24xf32>, tensor<24x10xf32>) outs(%z : tensor<?x10xf32>) -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}

func.func @rows_transposed_weight(%x: tensor<?x16xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x8xf32> {
  %wt = arith.constant dense<[[1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5],
                              [0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0],
                              [-1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5],
                              [2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0],
                              [0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0],
                              [0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0],
                              [1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25],
                              [-0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0, -0.5, 1.0, 0.5, -1.0, 2.0, 0.0, 0.25, 1.0]]> : tensor<8x16xf32>
  %t0 = tensor.empty() : tensor<16x8xf32>
  %w = linalg.transpose ins(%wt : tensor<8x16xf32>) outs(%t0 : tensor<16x8xf32>) permutation = [1, 0]
  %c0 = arith.constant 0 : index
  %r = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%r) : tensor<?x8xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

func.func @rows_f16(%x: tensor<?x32xf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<32x16xf16> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %x, %c0 : tensor<?x32xf16>
  %e = tensor.empty(%r) : tensor<?x16xf16>
  %zero = arith.constant 0.0 : f16
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<?x16xf16>) -> tensor<?x16xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x32xf16>, tensor<32x16xf16>) outs(%z : tensor<?x16xf16>) -> tensor<?x16xf16>
  return %y : tensor<?x16xf16>
}

func.func @batched(%x: tensor<?x5x12xf32> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<?x12x7xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x5x7xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x5x12xf32>
  %e = tensor.empty(%b) : tensor<?x5x7xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %y = linalg.batch_matmul ins(%x, %w : tensor<?x5x12xf32>, tensor<?x12x7xf32>) outs(%z : tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  return %y : tensor<?x5x7xf32>
}

#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @rows_bias_relu(%x: tensor<?x24xf32> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<24x10xf32> {sc.lineage = #sc.lineage<shared>}, %bias: tensor<10xf32> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %x, %c0 : tensor<?x24xf32>
  %e = tensor.empty(%r) : tensor<?x10xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x10xf32>) -> tensor<?x10xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x24xf32>, tensor<24x10xf32>) outs(%z : tensor<?x10xf32>) -> tensor<?x10xf32>
  %b = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]} ins(%y, %bias : tensor<?x10xf32>, tensor<10xf32>) outs(%e : tensor<?x10xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x10xf32>
  %relu = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<?x10xf32>) outs(%e : tensor<?x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x10xf32>
  return %relu : tensor<?x10xf32>
}

// tosa.matmul (TOSA graphs) with zero zero-points.
func.func @tosa_batched(%a: tensor<?x5x16xf16> {sc.lineage = #sc.lineage<candidate>}, %b: tensor<?x16x8xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x5x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %y = tosa.matmul %a, %b, %zp, %zp : (tensor<?x5x16xf16>, tensor<?x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<?x5x8xf32>
  return %y : tensor<?x5x8xf32>
}
