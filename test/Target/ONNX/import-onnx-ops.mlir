// RUN: sparcast-translate --import-onnx %S/Inputs/mlp.onnxtxt | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/mlp.onnxtxt --onnx-lineage=x=candidate,r=candidate -o %t.mlir
// RUN: sparcast-equiv %s --link=%t.mlir --ref=mlp_ref --test=mlp --candidates=5 | FileCheck %s --check-prefix=EQUIV

// An MLP tower and the element-wise ops (Inputs/mlp.onnxtxt): Gemm with a
// transposed weight and a broadcast bias, Relu, Sub, a rank-2 MatMul,
// Sigmoid, two Transposes, Softmax along the last axis, Tanh and a Cast to
// f16. Initializers become constants; the graph's dims named B stay
// dynamic; element-wise ops broadcast as numpy does (the bias's one dim
// against the rows).
// CHECK-LABEL: func.func @mlp(%{{.*}}: tensor<?x16xf32>, %{{.*}}: tensor<?x8xf32>) -> (tensor<?x1xf32>, tensor<?x8xf32>, tensor<?x8xf16>)
// CHECK-DAG: arith.constant dense<{{.*}}> : tensor<8x16xf32>
// CHECK-DAG: arith.constant dense<[5.000000e-01, {{.*}}]> : tensor<8xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<16x8xf32>) permutation = [1, 0]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x16xf32>, tensor<16x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#map, #map1, #map]
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x1xf32>)
// CHECK: math.exp
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: math.tanh
// CHECK: arith.truncf %{{.*}} : f32 to f16

// Executed on the CPU against the same computation written by hand
// (w1 is the identity on x's first 8 columns, w2 alternates +1 / -1).
// EQUIV: EQUIVALENT

#rows = affine_map<(b, i) -> (b, i)>
#cols = affine_map<(b, i) -> (i)>
#row = affine_map<(b, i) -> (b)>
func.func @mlp_ref(%x: tensor<?x16xf32> {sc.lineage = #sc.lineage<candidate>},
                   %r: tensor<?x8xf32> {sc.lineage = #sc.lineage<candidate>})
    -> (tensor<?x1xf32>, tensor<?x8xf32>, tensor<?x8xf16>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %b1 = arith.constant dense<[0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 0.25, -0.25]> : tensor<8xf32>
  %sign = arith.constant dense<[1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0]> : tensor<8xf32>
  %x8 = tensor.extract_slice %x[0, 0] [%n, 8] [1, 1] : tensor<?x16xf32> to tensor<?x8xf32>
  %e8 = tensor.empty(%n) : tensor<?x8xf32>
  // a = relu(x[:, :8] + b1)
  %a = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x8, %b1 : tensor<?x8xf32>, tensor<8xf32>) outs(%e8 : tensor<?x8xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<?x8xf32>
  // y = sigmoid(sum_i (a - r)[b, i] * sign[i])
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %dot = linalg.generic {indexing_maps = [#rows, #rows, #cols, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %r, %sign : tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>) outs(%acc0 : tensor<?xf32>) {
  ^bb0(%av: f32, %rv: f32, %sv: f32, %acc: f32):
    %d = arith.subf %av, %rv : f32
    %p = arith.mulf %d, %sv : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %ey = tensor.empty(%n) : tensor<?xf32>
  %sig = linalg.map ins(%dot : tensor<?xf32>) outs(%ey : tensor<?xf32>) (%v: f32, %o: f32) {
    %nv = arith.negf %v : f32
    %ex = math.exp %nv : f32
    %den = arith.addf %one, %ex : f32
    %q = arith.divf %one, %den : f32
    linalg.yield %q : f32
  }
  %y = tensor.expand_shape %sig [[0, 1]] output_shape [%n, 1] : tensor<?xf32> into tensor<?x1xf32>
  // p = softmax(a) along the row, spelled out
  %minf = arith.constant -1.0e30 : f32
  %mx0 = linalg.fill ins(%minf : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<?x8xf32>) outs(%mx0 : tensor<?xf32>) {
  ^bb0(%v: f32, %m: f32):
    %r2 = arith.maximumf %v, %m : f32
    linalg.yield %r2 : f32
  } -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %mx : tensor<?x8xf32>, tensor<?xf32>) outs(%acc0 : tensor<?xf32>) {
  ^bb0(%v: f32, %m: f32, %acc: f32):
    %d = arith.subf %v, %m : f32
    %ex = math.exp %d : f32
    %s = arith.addf %acc, %ex : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#rows, #row, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%a, %mx, %sum : tensor<?x8xf32>, tensor<?xf32>, tensor<?xf32>) outs(%e8 : tensor<?x8xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %ex = math.exp %d : f32
    %q = arith.divf %ex, %s : f32
    linalg.yield %q : f32
  } -> tensor<?x8xf32>
  // h16 = f16(tanh(a))
  %e16 = tensor.empty(%n) : tensor<?x8xf16>
  %h16 = linalg.map ins(%a : tensor<?x8xf32>) outs(%e16 : tensor<?x8xf16>) (%v: f32, %o: f16) {
    %t = math.tanh %v : f32
    %h = arith.truncf %t : f32 to f16
    linalg.yield %h : f16
  }
  return %y, %p, %h16 : tensor<?x1xf32>, tensor<?x8xf32>, tensor<?x8xf16>
}
