// RUN: sparcast-equiv %s --ref=upstream --test=sc --candidates=3 --rtol=1e-5 | FileCheck %s

// Unmasked sc.attention against softmax(Q K^T / sqrt(d)) V written with
// upstream named ops: collapse_shape, transpose, batch_matmul, reduce.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @sc(%q: tensor<?x2x5x8xf32> {sc.lineage = #sc.lineage<candidate>},
              %k: tensor<?x2x9x8xf32> {sc.lineage = #sc.lineage<candidate>},
              %v: tensor<?x2x9x4xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x5x4xf32> {
  %o = sc.attention %q, %k, %v
      : tensor<?x2x5x8xf32>, tensor<?x2x9x8xf32>, tensor<?x2x9x4xf32> -> tensor<?x2x5x4xf32>
  return %o : tensor<?x2x5x4xf32>
}

func.func @upstream(%q: tensor<?x2x5x8xf32> {sc.lineage = #sc.lineage<candidate>},
                    %k: tensor<?x2x9x8xf32> {sc.lineage = #sc.lineage<candidate>},
                    %v: tensor<?x2x9x4xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x5x4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.353553385 : f32
  %b = tensor.dim %q, %c0 : tensor<?x2x5x8xf32>
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<?x2x5x8xf32> into tensor<?x5x8xf32>
  %k3 = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<?x2x9x8xf32> into tensor<?x9x8xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<?x2x9x4xf32> into tensor<?x9x4xf32>
  %bh = tensor.dim %q3, %c0 : tensor<?x5x8xf32>
  %kt0 = tensor.empty(%bh) : tensor<?x8x9xf32>
  %kt = linalg.transpose ins(%k3 : tensor<?x9x8xf32>) outs(%kt0 : tensor<?x8x9xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty(%bh) : tensor<?x5x9xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<?x5x9xf32>) -> tensor<?x5x9xf32>
  %s = linalg.batch_matmul ins(%q3, %kt : tensor<?x5x8xf32>, tensor<?x8x9xf32>) outs(%s1 : tensor<?x5x9xf32>) -> tensor<?x5x9xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>],
                            iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<?x5x9xf32>) outs(%s0 : tensor<?x5x9xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<?x5x9xf32>
  %m0 = tensor.empty(%bh) : tensor<?x5xf32>
  %m1 = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<?x5xf32>) -> tensor<?x5xf32>
  %max = linalg.reduce { arith.maximumf } ins(%scaled : tensor<?x5x9xf32>) outs(%m1 : tensor<?x5xf32>) dimensions = [2]
  %p = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>, affine_map<(a, b, c) -> (a, b, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scaled, %max : tensor<?x5x9xf32>, tensor<?x5xf32>) outs(%s0 : tensor<?x5x9xf32>) {
  ^bb0(%x: f32, %mx: f32, %o: f32):
    %d = arith.subf %x, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x5x9xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%m0 : tensor<?x5xf32>) -> tensor<?x5xf32>
  %sum = linalg.reduce { arith.addf } ins(%p : tensor<?x5x9xf32>) outs(%z1 : tensor<?x5xf32>) dimensions = [2]
  %o0 = tensor.empty(%bh) : tensor<?x5x4xf32>
  %o1 = linalg.fill ins(%zero : f32) outs(%o0 : tensor<?x5x4xf32>) -> tensor<?x5x4xf32>
  %pv = linalg.batch_matmul ins(%p, %v3 : tensor<?x5x9xf32>, tensor<?x9x4xf32>) outs(%o1 : tensor<?x5x4xf32>) -> tensor<?x5x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>, affine_map<(a, b, c) -> (a, b, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%pv, %sum : tensor<?x5x4xf32>, tensor<?x5xf32>) outs(%o0 : tensor<?x5x4xf32>) {
  ^bb0(%x: f32, %sm: f32, %out: f32):
    %y = arith.divf %x, %sm : f32
    linalg.yield %y : f32
  } -> tensor<?x5x4xf32>
  %r = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [%b, 2, 5, 4] : tensor<?x5x4xf32> into tensor<?x2x5x4xf32>
  return %r : tensor<?x2x5x4xf32>
}
