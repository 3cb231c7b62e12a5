// RUN: sparcast-opt %s | sparcast-opt | FileCheck %s

// The sparse similarity ops round-trip: sparse rows from CSR buffers
// (#sc.block_csr column words), their product with a cosine epilogue, the
// top k of each row and the pairs above a threshold.

#csr = #sc.block_csr<block_size = 1024>
// CHECK-LABEL: func.func @cosine_top_k
// CHECK: sc.assemble_csr %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x1200000xf32, #sc.block_csr<block_size = 1024>>
// CHECK: sc.sparse_matmul %{{.*}}, %{{.*}} epilogue_ins(%{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?xf32>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: tensor<?xf32>, %{{.*}}: tensor<?xf32>):
// CHECK: sc.yield %{{.*}} : f32
// CHECK: sc.top_k %{{.*}} {k = 100 : i64} : tensor<?x?xf32> -> tensor<?x100xf32>, tensor<?x100xi32>
func.func @cosine_top_k(%qp: tensor<?xi32>, %qi: tensor<?xi32>, %qv: tensor<?xf32>, %qn: tensor<?xf32>,
                        %ip: tensor<?xi32>, %ii: tensor<?xi32>, %iv: tensor<?xf32>, %in: tensor<?xf32>)
    -> (tensor<?x100xf32>, tensor<?x100xi32>) {
  %q = sc.assemble_csr %qp, %qi, %qv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x1200000xf32, #csr>
  %i = sc.assemble_csr %ip, %ii, %iv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x1200000xf32, #csr>
  %cos = sc.sparse_matmul %q, %i epilogue_ins(%qn, %in : tensor<?xf32>, tensor<?xf32>)
      : tensor<?x1200000xf32, #csr>, tensor<?x1200000xf32, #csr> -> tensor<?x?xf32> {
  ^bb0(%dot: f32, %m: index, %n: index, %a: tensor<?xf32>, %b: tensor<?xf32>):
    %x = tensor.extract %a[%m] : tensor<?xf32>
    %y = tensor.extract %b[%n] : tensor<?xf32>
    %p = arith.mulf %x, %y : f32
    %c = arith.divf %dot, %p : f32
    sc.yield %c : f32
  }
  %v, %ix = sc.top_k %cos {k = 100 : i64} : tensor<?x?xf32> -> tensor<?x100xf32>, tensor<?x100xi32>
  return %v, %ix : tensor<?x100xf32>, tensor<?x100xi32>
}

// Without an epilogue the dot products are the result.
// CHECK-LABEL: func.func @dots
// CHECK: sc.sparse_matmul %{{.*}}, %{{.*}} : {{.*}} -> tensor<7x9xf32>
// CHECK-NOT: ^bb0
#small = #sc.block_csr<block_size = 64, id_bits = 20, offset_bits = 12>
func.func @dots(%q: tensor<7x300xbf16, #small>, %i: tensor<9x300xbf16, #small>) -> tensor<7x9xf32> {
  %d = sc.sparse_matmul %q, %i : tensor<7x300xbf16, #small>, tensor<9x300xbf16, #small> -> tensor<7x9xf32>
  return %d : tensor<7x9xf32>
}

// The pairs above a threshold, as COO.
// CHECK-LABEL: func.func @pairs
// CHECK: sc.select_above %arg0 {threshold = 8.000000e-01 : f32} : tensor<?x?xf32> -> tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
func.func @pairs(%cos: tensor<?x?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %r, %c, %v = sc.select_above %cos {threshold = 0.8 : f32} : tensor<?x?xf32> -> tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
  return %r, %c, %v : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}

// The split form the GPU runs: dense heads (the dims carrying most pair
// products) and the tails, the items' tail by dimension (transpose_rhs,
// D x N rows; its columns, the items, may be dynamic).
// CHECK-LABEL: func.func @split
// CHECK: sc.sparse_matmul %{{.*}}, %{{.*}} head(%{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32>) epilogue_ins(%{{.*}} : tensor<?xf32>) {transpose_rhs} : tensor<?x?xf32, #sc.block_csr<block_size = 1024>>, tensor<?x?xf32, #sc.block_csr<block_size = 1024>> -> tensor<?x?xf32>
func.func @split(%q: tensor<?x?xf32, #csr>, %byDim: tensor<?x?xf32, #csr>, %qh: tensor<?x?xf32>,
                 %ih: tensor<?x?xf32>, %in: tensor<?xf32>) -> tensor<?x?xf32> {
  %d = sc.sparse_matmul %q, %byDim head(%qh, %ih : tensor<?x?xf32>, tensor<?x?xf32>)
      epilogue_ins(%in : tensor<?xf32>) {transpose_rhs}
      : tensor<?x?xf32, #csr>, tensor<?x?xf32, #csr> -> tensor<?x?xf32> {
  ^bb0(%dot: f32, %m: index, %n: index, %b: tensor<?xf32>):
    %y = tensor.extract %b[%n] : tensor<?xf32>
    %c = arith.mulf %dot, %y : f32
    sc.yield %c : f32
  }
  return %d : tensor<?x?xf32>
}

// Each row's elements above its threshold, up to a capacity.
// CHECK-LABEL: func.func @candidates
// CHECK: sc.select_rows_above %arg0, %arg1 {capacity = 64 : i64} : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xi32>, tensor<?x64xf32>, tensor<?x64xi32>
func.func @candidates(%cos: tensor<?x?xf32>, %theta: tensor<?xf32>) -> (tensor<?xi32>, tensor<?x64xf32>, tensor<?x64xi32>) {
  %n, %v, %c = sc.select_rows_above %cos, %theta {capacity = 64 : i64} : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xi32>, tensor<?x64xf32>, tensor<?x64xi32>
  return %n, %v, %c : tensor<?xi32>, tensor<?x64xf32>, tensor<?x64xi32>
}
