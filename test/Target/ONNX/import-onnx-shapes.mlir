// RUN: sparcast-translate --import-onnx %S/Inputs/shapes.onnxtxt | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/shapes.onnxtxt --onnx-lineage=x=candidate -o %t.mlir
// RUN: sparcast-equiv %s --link=%t.mlir --ref=shapes_ref --test=shapes --candidates=3 | FileCheck %s --check-prefix=EQUIV

// Shape ops and normalizations (Inputs/shapes.onnxtxt): Flatten, Reshape
// with a copied (0) and an inferred (-1) size, Unsqueeze then Squeeze,
// LayerNormalization over the last axis with scale and bias, Gelu (erf)
// and Gelu (tanh). Reshapes that merge or split dims in order are
// tensor.collapse_shape / expand_shape (views of the buffer at AOT), the
// others tensor.reshape to the sizes as values (dynamic ones from
// tensor.dim; an inferred one static where the copied dims cancel: B x 4 x
// 6 to (0, 6, -1) is B x 6 x 4); the layer norm's row statistics are f32
// reductions.
// CHECK-LABEL: func.func @shapes(%{{.*}}: tensor<?x4x6xf32>)
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<?x4x6xf32> into tensor<?x24xf32>
// CHECK: tensor.reshape {{.*}} -> tensor<?x6x4xf32>
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1, 2], [3]] output_shape [%{{.*}}, 1, 4, 6] : tensor<?x4x6xf32> into tensor<?x1x4x6xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<?x1x4x6xf32> into tensor<?x4x6xf32>
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: math.rsqrt
// CHECK: math.erf
// CHECK: math.tanh

// Executed on the CPU against the same written by hand.
// EQUIV: EQUIVALENT

#x = affine_map<(b, r, c) -> (b, r, c)>
#row = affine_map<(b, r, c) -> (b, r)>
#col = affine_map<(b, r, c) -> (c)>
func.func @shapes_ref(%x: tensor<?x4x6xf32> {sc.lineage = #sc.lineage<candidate>})
    -> (tensor<?x24xf32>, tensor<?x6x4xf32>, tensor<?x4x6xf32>, tensor<?x4x6xf32>, tensor<?x4x6xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x6xf32>
  %f = tensor.collapse_shape %x [[0], [1, 2]] : tensor<?x4x6xf32> into tensor<?x24xf32>
  %r = tensor.expand_shape %f [[0], [1, 2]] output_shape [%n, 6, 4] : tensor<?x24xf32> into tensor<?x6x4xf32>
  %s = arith.constant dense<[1.0, 2.0, 0.5, -1.0, 1.0, 3.0]> : tensor<6xf32>
  %bias = arith.constant dense<[0.0, 0.5, -0.5, 1.0, 0.0, 2.0]> : tensor<6xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty(%n) : tensor<?x4xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x4x6xf32>) outs(%z2 : tensor<?x4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<?x4xf32>
  %sq = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %sum : tensor<?x4x6xf32>, tensor<?x4xf32>) outs(%z2 : tensor<?x4xf32>) {
  ^bb0(%v: f32, %t: f32, %acc: f32):
    %six = arith.constant 6.0 : f32
    %m = arith.divf %t, %six : f32
    %d = arith.subf %v, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %a = arith.addf %acc, %d2 : f32
    linalg.yield %a : f32
  } -> tensor<?x4xf32>
  %e3 = tensor.empty(%n) : tensor<?x4x6xf32>
  %norm = linalg.generic {indexing_maps = [#x, #row, #row, #col, #col, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %sum, %sq, %s, %bias : tensor<?x4x6xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<6xf32>, tensor<6xf32>) outs(%e3 : tensor<?x4x6xf32>) {
  ^bb0(%v: f32, %t: f32, %q: f32, %sc: f32, %bi: f32, %o: f32):
    %six = arith.constant 6.0 : f32
    %eps = arith.constant 0.001 : f32
    %m = arith.divf %t, %six : f32
    %var = arith.divf %q, %six : f32
    %ve = arith.addf %var, %eps : f32
    %sd = math.sqrt %ve : f32
    %d = arith.subf %v, %m : f32
    %y0 = arith.divf %d, %sd : f32
    %y1 = arith.mulf %y0, %sc : f32
    %y = arith.addf %y1, %bi : f32
    linalg.yield %y : f32
  } -> tensor<?x4x6xf32>
  %g = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x4x6xf32>) outs(%e3 : tensor<?x4x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %r2 = math.sqrt %two : f32
    %a = arith.divf %v, %r2 : f32
    %e = math.erf %a : f32
    %p = arith.addf %one, %e : f32
    %h = arith.mulf %half, %v : f32
    %y = arith.mulf %h, %p : f32
    linalg.yield %y : f32
  } -> tensor<?x4x6xf32>
  %gt = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x4x6xf32>) outs(%e3 : tensor<?x4x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %k = arith.constant 0.7978845608028654 : f32
    %c = arith.constant 0.044715 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %cv3 = arith.mulf %c, %v3 : f32
    %in = arith.addf %v, %cv3 : f32
    %kin = arith.mulf %k, %in : f32
    %t = math.tanh %kin : f32
    %p = arith.addf %one, %t : f32
    %h = arith.mulf %half, %v : f32
    %y = arith.mulf %h, %p : f32
    linalg.yield %y : f32
  } -> tensor<?x4x6xf32>
  return %f, %r, %norm, %g, %gt : tensor<?x24xf32>, tensor<?x6x4xf32>, tensor<?x4x6xf32>, tensor<?x4x6xf32>, tensor<?x4x6xf32>
}
