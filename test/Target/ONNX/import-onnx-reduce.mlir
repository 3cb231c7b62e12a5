// RUN: sparcast-translate --import-onnx %S/Inputs/reduce.onnxtxt | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/reduce.onnxtxt -o %t.mlir
// RUN: sparcast-equiv %s --link=%t.mlir --ref=reduce_ref --test=reduce --candidates=5 | FileCheck %s --check-prefix=EQUIV

// ReduceMean (axes as an attribute, keepdims 0; a negative axis),
// ReduceSum (axes as an input, keepdims 1; no axes: every dim, the dynamic
// one included), ReduceMax and ReduceMin (from -inf / +inf, NaN kept).
// Reductions run in f32 whatever the input's type; a mean divides the sum
// by the reduced dims' element count, then rounds once.
// CHECK-LABEL: func.func @reduce(%{{.*}}: tensor<?x4x8xf32>, %{{.*}}: tensor<?x3x8xf16>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME: outs(%{{.*}} : tensor<?x8xf32>)
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: tensor.expand_shape {{.*}} into tensor<?x4x1xf32>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: iterator_types = ["reduction", "reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<f32>)
// CHECK: arith.maximumf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.minimumf

// Executed on the CPU against the same sums written by hand.
// EQUIV: EQUIVALENT

#x3 = affine_map<(b, i, j) -> (b, i, j)>
#bj = affine_map<(b, i, j) -> (b, j)>
#bi = affine_map<(b, i, j) -> (b, i)>
#none = affine_map<(b, i, j) -> ()>
#b2 = affine_map<(b, j) -> (b, j)>
func.func @reduce_ref(%x: tensor<?x4x8xf32>, %h: tensor<?x3x8xf16>)
    -> (tensor<?x8xf32>, tensor<?x4x1xf32>, tensor<?x8xf16>, tensor<1x1x1xf32>,
        tensor<?x8xf16>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x8xf32>
  %zero = arith.constant 0.0 : f32
  // m = mean over i
  %e8 = tensor.empty(%n) : tensor<?x8xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %s8 = linalg.generic {indexing_maps = [#x3, #bj], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<?x4x8xf32>) outs(%z8 : tensor<?x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  %four = arith.constant 4.0 : f32
  %m = linalg.map ins(%s8 : tensor<?x8xf32>) outs(%e8 : tensor<?x8xf32>) (%v: f32, %o: f32) {
    %q = arith.divf %v, %four : f32
    linalg.yield %q : f32
  }
  // s = sum over j, kept as a dim of 1
  %e4 = tensor.empty(%n) : tensor<?x4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %s4 = linalg.generic {indexing_maps = [#x3, #bi], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x4x8xf32>) outs(%z4 : tensor<?x4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  %s = tensor.expand_shape %s4 [[0], [1, 2]] output_shape [%n, 4, 1] : tensor<?x4xf32> into tensor<?x4x1xf32>
  // hm = f16(mean over i of f32(h))
  %sh = linalg.generic {indexing_maps = [#x3, #bj], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%h : tensor<?x3x8xf16>) outs(%z8 : tensor<?x8xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %w = arith.extf %v : f16 to f32
    %s2 = arith.addf %acc, %w : f32
    linalg.yield %s2 : f32
  } -> tensor<?x8xf32>
  %three = arith.constant 3.0 : f32
  %e16 = tensor.empty(%n) : tensor<?x8xf16>
  %hm = linalg.map ins(%sh : tensor<?x8xf32>) outs(%e16 : tensor<?x8xf16>) (%v: f32, %o: f16) {
    %q = arith.divf %v, %three : f32
    %t = arith.truncf %q : f32 to f16
    linalg.yield %t : f16
  }
  // all = sum of every element
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s0 = linalg.generic {indexing_maps = [#x3, #none], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%x : tensor<?x4x8xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s3 = arith.addf %acc, %v : f32
    linalg.yield %s3 : f32
  } -> tensor<f32>
  %all = tensor.expand_shape %s0 [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
  // hmax = max over i of h (exact in f16); xmin = min over j of x
  %ninf = arith.constant 0xFC00 : f16
  %e16b = tensor.empty(%n) : tensor<?x8xf16>
  %lo = linalg.fill ins(%ninf : f16) outs(%e16b : tensor<?x8xf16>) -> tensor<?x8xf16>
  %hmax = linalg.generic {indexing_maps = [#x3, #bj], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%h : tensor<?x3x8xf16>) outs(%lo : tensor<?x8xf16>) {
  ^bb0(%v: f16, %acc: f16):
    %mx = arith.maximumf %acc, %v : f16
    linalg.yield %mx : f16
  } -> tensor<?x8xf16>
  %pinf = arith.constant 0x7F800000 : f32
  %hi = linalg.fill ins(%pinf : f32) outs(%e4 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %xmin = linalg.generic {indexing_maps = [#x3, #bi], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x4x8xf32>) outs(%hi : tensor<?x4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %mn = arith.minimumf %acc, %v : f32
    linalg.yield %mn : f32
  } -> tensor<?x4xf32>
  return %m, %s, %hm, %all, %hmax, %xmin : tensor<?x8xf32>, tensor<?x4x1xf32>, tensor<?x8xf16>,
      tensor<1x1x1xf32>, tensor<?x8xf16>, tensor<?x4xf32>
}
