// RUN: sparcast-equiv %s --ref=upstream --test=sc --candidates=4 --rtol=1e-2 | FileCheck %s

// bf16 candidate batch times a transposed shared weight (E @ W^T), bf16
// result; against extf + linalg.transpose + linalg.batch_matmul + truncf.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @sc(%e: tensor<?x6x10xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<3x10xbf16>) -> tensor<?x6x3xbf16> {
  %c = sc.batch_matmul %e, %w {transpose_rhs} : tensor<?x6x10xbf16>, tensor<3x10xbf16> -> tensor<?x6x3xbf16>
  return %c : tensor<?x6x3xbf16>
}

func.func @upstream(%e: tensor<?x6x10xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<3x10xbf16>) -> tensor<?x6x3xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %e, %c0 : tensor<?x6x10xbf16>
  %e32i = tensor.empty(%n) : tensor<?x6x10xf32>
  %e32 = linalg.generic {indexing_maps = [affine_map<(b, m, k) -> (b, m, k)>, affine_map<(b, m, k) -> (b, m, k)>],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e : tensor<?x6x10xbf16>) outs(%e32i : tensor<?x6x10xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<?x6x10xf32>
  %wt0 = tensor.empty() : tensor<10x3xbf16>
  %wt = linalg.transpose ins(%w : tensor<3x10xbf16>) outs(%wt0 : tensor<10x3xbf16>) permutation = [1, 0]
  %wb0 = tensor.empty(%n) : tensor<?x10x3xf32>
  %wb = linalg.generic {indexing_maps = [affine_map<(b, k, n) -> (k, n)>, affine_map<(b, k, n) -> (b, k, n)>],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wt : tensor<10x3xbf16>) outs(%wb0 : tensor<?x10x3xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<?x10x3xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%n) : tensor<?x6x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x6x3xf32>) -> tensor<?x6x3xf32>
  %r = linalg.batch_matmul ins(%e32, %wb : tensor<?x6x10xf32>, tensor<?x10x3xf32>) outs(%acc : tensor<?x6x3xf32>) -> tensor<?x6x3xf32>
  %outi = tensor.empty(%n) : tensor<?x6x3xbf16>
  %out = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<?x6x3xf32>) outs(%outi : tensor<?x6x3xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %y = arith.truncf %x : f32 to bf16
    linalg.yield %y : bf16
  } -> tensor<?x6x3xbf16>
  return %out : tensor<?x6x3xbf16>
}
