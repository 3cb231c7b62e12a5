// RUN: sparcast-opt %s --sc-lower-to-linalg | FileCheck %s

// The reference lowering of the sparse similarity ops (a dense form, for
// small sizes): sc.assemble_csr scatters each row's values at the columns
// its words name (block * block_size + offset; a column past D skipped),
// sc.sparse_matmul is the fp32 contraction over D then the epilogue
// element-wise, sc.top_k ranks each element within its row. The CPU proof
// against an fp64 brute force: test/unit/SimilarityCpuTest.cpp.

#csr = #sc.block_csr<block_size = 64, id_bits = 20, offset_bits = 12>
// CHECK-LABEL: func.func @cosine_top_k
// CHECK: linalg.fill {{.*}} -> tensor<?x300xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[WORD:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[BLOCK:.*]] = arith.shrui %[[WORD]], %c12
// CHECK: %[[OFFSET:.*]] = arith.andi %[[WORD]], %c4095
// CHECK: %[[BASE:.*]] = arith.muli %[[BLOCK]], %c64
// CHECK: %[[COL:.*]] = arith.addi %[[BASE]], %[[OFFSET]]
// CHECK: arith.cmpi ult, %[[COL]], %c300
// CHECK: tensor.insert
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?x300xf32>, tensor<?x300xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.divf
// CHECK: linalg.fill {{.*}} -> tensor<?x3xf32>
// CHECK: linalg.fill {{.*}} -> tensor<?x3xi32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK-NOT: sc.
func.func @cosine_top_k(%qp: tensor<?xi32>, %qi: tensor<?xi32>, %qv: tensor<?xf32>, %qn: tensor<?xf32>,
                        %ip: tensor<?xi32>, %ii: tensor<?xi32>, %iv: tensor<?xf32>, %in: tensor<?xf32>)
    -> (tensor<?x3xf32>, tensor<?x3xi32>) {
  %q = sc.assemble_csr %qp, %qi, %qv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x300xf32, #csr>
  %i = sc.assemble_csr %ip, %ii, %iv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x300xf32, #csr>
  %cos = sc.sparse_matmul %q, %i epilogue_ins(%qn, %in : tensor<?xf32>, tensor<?xf32>)
      : tensor<?x300xf32, #csr>, tensor<?x300xf32, #csr> -> tensor<?x?xf32> {
  ^bb0(%dot: f32, %m: index, %n: index, %a: tensor<?xf32>, %b: tensor<?xf32>):
    %x = tensor.extract %a[%m] : tensor<?xf32>
    %y = tensor.extract %b[%n] : tensor<?xf32>
    %p = arith.mulf %x, %y : f32
    %c = arith.divf %dot, %p : f32
    sc.yield %c : f32
  }
  %v, %ix = sc.top_k %cos {k = 3 : i64} : tensor<?x?xf32> -> tensor<?x3xf32>, tensor<?x3xi32>
  return %v, %ix : tensor<?x3xf32>, tensor<?x3xi32>
}

// The pairs above a threshold: a pass counting them (the results' size),
// then a pass writing each at the next position.
// CHECK-LABEL: func.func @pairs
// CHECK: %[[COUNT:.*]] = scf.for
// CHECK: scf.for
// CHECK: arith.cmpf ogt
// CHECK: %[[ROWS:.*]] = tensor.empty(%[[COUNT]]) : tensor<?xi32>
// CHECK: tensor.empty(%[[COUNT]]) : tensor<?xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.if
// CHECK-COUNT-3: tensor.insert
// CHECK-NOT: sc.select_above
func.func @pairs(%cos: tensor<?x?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %r, %c, %v = sc.select_above %cos {threshold = 0.8 : f32} : tensor<?x?xf32> -> tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
  return %r, %c, %v : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}
