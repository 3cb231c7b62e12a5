#csr = #sc.block_csr<block_size = 1024>
func.func @dots(%qp: tensor<?xi32>, %qi: tensor<?xi32>, %qv: tensor<?xf32>, %ip: tensor<?xi32>, %ii: tensor<?xi32>, %iv: tensor<?xf32>) -> tensor<?x?xf32> {
  %q = sc.assemble_csr %qp, %qi, %qv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x4096xf32, #csr>
  %i = sc.assemble_csr %ip, %ii, %iv : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x4096xf32, #csr>
  %d = sc.sparse_matmul %q, %i : tensor<?x4096xf32, #csr>, tensor<?x4096xf32, #csr> -> tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}
