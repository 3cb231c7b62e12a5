// RUN: sparcast-translate --import-onnx %S/Inputs/constant.onnxtxt | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/constant.onnxtxt --onnx-lineage=x=candidate -o %t.mlir
// RUN: sparcast-equiv %s --link=%t.mlir --ref=constants_ref --test=constants --candidates=3 | FileCheck %s --check-prefix=EQUIV

// Constant nodes, as torch.onnx.export writes scalars and shapes
// (Inputs/constant.onnxtxt): value_ints as a Reshape's target, value_float
// as a scalar operand, value as a tensor; each an arith.constant, and the
// model executed on the CPU against the same written by hand.
// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<[0, 6, -1]> : tensor<3xi64>
// CHECK: tensor.reshape {{.*}} -> tensor<?x6x4xf32>
// CHECK: arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf32>
// EQUIV: EQUIVALENT

#x = affine_map<(b, r, c) -> (b, r, c)>
#col = affine_map<(b, r, c) -> (c)>
func.func @constants_ref(%x: tensor<?x4x6xf32> {sc.lineage = #sc.lineage<candidate>})
    -> (tensor<?x6x4xf32>, tensor<?x4x6xf32>, tensor<?x4x6xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x6xf32>
  %f = tensor.collapse_shape %x [[0], [1, 2]] : tensor<?x4x6xf32> into tensor<?x24xf32>
  %r = tensor.expand_shape %f [[0], [1, 2]] output_shape [%n, 6, 4] : tensor<?x24xf32> into tensor<?x6x4xf32>
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %e = tensor.empty(%n) : tensor<?x4x6xf32>
  %m = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x4x6xf32>) outs(%e : tensor<?x4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %v = arith.mulf %in, %half : f32
    linalg.yield %v : f32
  } -> tensor<?x4x6xf32>
  %a = linalg.generic {indexing_maps = [#x, #col, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %w : tensor<?x4x6xf32>, tensor<6xf32>) outs(%e : tensor<?x4x6xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %v = arith.addf %in, %c : f32
    linalg.yield %v : f32
  } -> tensor<?x4x6xf32>
  return %r, %m, %a : tensor<?x6x4xf32>, tensor<?x4x6xf32>, tensor<?x4x6xf32>
}
