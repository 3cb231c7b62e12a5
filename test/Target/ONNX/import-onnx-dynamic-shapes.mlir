// RUN: sparcast-translate --import-onnx %S/Inputs/dynamic-flatten.onnxtxt | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/dynamic-flatten.onnxtxt --onnx-lineage=x=candidate -o %t.mlir
// RUN: sparcast-equiv %s --link=%t.mlir --ref=dynflat_ref --test=dynflat --candidates=3 | FileCheck %s --check-prefix=EQUIV
// RUN: rm -rf %t.art && sparcast-aot %S/Inputs/dynamic-flatten.onnxtxt --onnx-lineage=x=candidate -o %t.art && FileCheck %s --check-prefix=MANIFEST < %t.art/manifest.json
// RUN: not sparcast-translate --import-onnx %S/Inputs/bad-shape-slice.onnxtxt 2>&1 | FileCheck %s --check-prefix=SLICE
// RUN: sparcast-translate --import-onnx %S/Inputs/dynamic-reshape.onnxtxt | FileCheck %s --check-prefix=GATHER

// A reshape whose target is computed in the graph, as torch exports
// x.flatten(2) with a dynamic batch (Inputs/dynamic-flatten.onnxtxt):
// Shape, Slice of it, Concat with -1, Reshape (then a Mul by 2). The
// target is known (the
// batch copied in place, 2, the rest inferred): a collapse_shape, and the
// function's result takes the sizes the model's output leaves unnamed
// from it. Slice of anything but a shape is refused.
// CHECK: func.func @dynflat(%arg0: tensor<?x2x4x5xf32>) -> tensor<?x2x20xf32>
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<?x2x4x5xf32> into tensor<?x2x20xf32>
// EQUIV: EQUIVALENT
// MANIFEST: "name": "result0",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 20
// SLICE: error: node 'Slice#0': Slice is imported on shapes only
// x.reshape(x.shape[0], -1) as torch exports it: Shape, Gather of element
// 0, Unsqueeze, Concat with -1.
// GATHER: func.func @dynreshape(%arg0: tensor<?x2x4xf32>) -> tensor<?x8xf32>
// GATHER: tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<?x2x4xf32> into tensor<?x8xf32>

#id = affine_map<(b, i, j) -> (b, i, j)>
func.func @dynflat_ref(%x: tensor<?x2x4x5xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x20xf32> {
  %r = tensor.collapse_shape %x [[0], [1], [2, 3]] : tensor<?x2x4x5xf32> into tensor<?x2x20xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x2x4x5xf32>
  %e = tensor.empty(%n) : tensor<?x2x20xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r : tensor<?x2x20xf32>) outs(%e : tensor<?x2x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %v = arith.mulf %in, %two : f32
    linalg.yield %v : f32
  } -> tensor<?x2x20xf32>
  return %y : tensor<?x2x20xf32>
}
