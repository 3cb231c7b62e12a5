// Exact cosine similarity of sparse rows on the GPU (docs/sparse-similarity.md):
// the product split at a head by the inspector (scCsrChooseHead,
// scCsrSplitHead, scCsrTranspose; sparcast.similarity does it all).
//   qh [M, H], ih [N, H]: the head dims of queries and items, dense (H a
//     multiple of 16, zero-padded)
//   qp, qi, qv: the queries' tail (CSR, #sc.block_csr words)
//   dp, di, dv: the items' tail by dimension (row d: the items holding d)
//   qr [M], ir [N]: the full rows' inverse norms (1 / norm, 0 for an empty
//     row: csr::inverseNorm, sparcast.similarity_inputs)
// Result [M, N]: the cosines, the dot product times the product of both
// inverse norms (0 against an empty row): two multiplications instead of a
// division by the norms' product, fewer instructions in every element of
// the tile kernels (the error bound in docs/sparse-similarity.md).
#csr = #sc.block_csr<block_size = 1024>
func.func @cosine(%qh: tensor<?x?xf32>, %ih: tensor<?x?xf32>,
                  %qp: tensor<?xi32>, %qi: tensor<?xi32>, %qv: tensor<?xf32>,
                  %dp: tensor<?xi32>, %di: tensor<?xi32>, %dv: tensor<?xf32>,
                  %qr: tensor<?xf32>, %ir: tensor<?xf32>) -> tensor<?x?xf32> {
  %q = sc.assemble_csr %qp, %qi, %qv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x?xf32, #csr>
  %d = sc.assemble_csr %dp, %di, %dv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x?xf32, #csr>
  %cos = sc.sparse_matmul %q, %d head(%qh, %ih : tensor<?x?xf32>, tensor<?x?xf32>)
      epilogue_ins(%qr, %ir : tensor<?xf32>, tensor<?xf32>) {transpose_rhs}
      : tensor<?x?xf32, #csr>, tensor<?x?xf32, #csr> -> tensor<?x?xf32> {
  ^bb0(%dot: f32, %m: index, %n: index, %a: tensor<?xf32>, %b: tensor<?xf32>):
    %x = tensor.extract %a[%m] : tensor<?xf32>
    %y = tensor.extract %b[%n] : tensor<?xf32>
    %p = arith.mulf %x, %y : f32
    %r = arith.mulf %dot, %p : f32
    sc.yield %r : f32
  }
  return %cos : tensor<?x?xf32>
}

// The candidates of each query's top k: its cosines above theta[m] (the
// k-th largest over the items seen so far: with those k, the top k of the
// items seen and these), at most 4096 a query; counts[m] past 4096 means the
// query had more (sparcast.similarity recomputes those items densely). The
// cosines are never written.
func.func @cosine_candidates(%qh: tensor<?x?xf32>, %ih: tensor<?x?xf32>,
                             %qp: tensor<?xi32>, %qi: tensor<?xi32>, %qv: tensor<?xf32>,
                             %dp: tensor<?xi32>, %di: tensor<?xi32>, %dv: tensor<?xf32>,
                             %qr: tensor<?xf32>, %ir: tensor<?xf32>, %theta: tensor<?xf32>)
    -> (tensor<?xi32>, tensor<?x4096xf32>, tensor<?x4096xi32>) {
  %q = sc.assemble_csr %qp, %qi, %qv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x?xf32, #csr>
  %d = sc.assemble_csr %dp, %di, %dv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x?xf32, #csr>
  %cos = sc.sparse_matmul %q, %d head(%qh, %ih : tensor<?x?xf32>, tensor<?x?xf32>)
      epilogue_ins(%qr, %ir : tensor<?xf32>, tensor<?xf32>) {transpose_rhs}
      : tensor<?x?xf32, #csr>, tensor<?x?xf32, #csr> -> tensor<?x?xf32> {
  ^bb0(%dot: f32, %m: index, %n: index, %a: tensor<?xf32>, %b: tensor<?xf32>):
    %x = tensor.extract %a[%m] : tensor<?xf32>
    %y = tensor.extract %b[%n] : tensor<?xf32>
    %p = arith.mulf %x, %y : f32
    %r = arith.mulf %dot, %p : f32
    sc.yield %r : f32
  }
  %n, %v, %c = sc.select_rows_above %cos, %theta {capacity = 4096 : i64}
      : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xi32>, tensor<?x4096xf32>, tensor<?x4096xi32>
  return %n, %v, %c : tensor<?xi32>, tensor<?x4096xf32>, tensor<?x4096xi32>
}
