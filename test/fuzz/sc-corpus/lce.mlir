// IKBO Linear Compression (LCE), written the plain way a model does it:
// broadcast the request (user) features to every candidate by gathering
// them with the candidate->user index, concatenate with the candidate
// features along K (user first), and run one batched matmul against the
// shared weight. Reference shapes: M=433, N=256, K_user=1178, K_cand=866,
// B (candidates) and B_user (users) dynamic.
func.func @lce(%w: tensor<433x2044xf16> {sc.lineage = #sc.lineage<shared>},
               %e_user: tensor<?x1178x256xf16> {sc.lineage = #sc.lineage<request>},
               %e_cand: tensor<?x866x256xf16> {sc.lineage = #sc.lineage<candidate>},
               %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x433x256xf16> {
  %user_b = sc.gather_rows %e_user[%idx]
      : tensor<?x1178x256xf16>, tensor<?xi32> -> tensor<?x1178x256xf16>
  %e = tensor.concat dim(1) %user_b, %e_cand
      : (tensor<?x1178x256xf16>, tensor<?x866x256xf16>) -> tensor<?x2044x256xf16>
  %out = sc.batch_matmul %w, %e
      : tensor<433x2044xf16>, tensor<?x2044x256xf16> -> tensor<?x433x256xf16>
  return %out : tensor<?x433x256xf16>
}
