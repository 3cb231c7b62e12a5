// The LCE graph with odd K on both sides (K_user = 1177, K_cand = 865).
func.func @lce_odd(%w: tensor<433x2042xf16> {sc.lineage = #sc.lineage<shared>},
                   %e_user: tensor<?x1177x256xf16> {sc.lineage = #sc.lineage<request>},
                   %e_cand: tensor<?x865x256xf16> {sc.lineage = #sc.lineage<candidate>},
                   %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x433x256xf16> {
  %user_b = sc.gather_rows %e_user[%idx]
      : tensor<?x1177x256xf16>, tensor<?xi32> -> tensor<?x1177x256xf16>
  %e = tensor.concat dim(1) %user_b, %e_cand
      : (tensor<?x1177x256xf16>, tensor<?x865x256xf16>) -> tensor<?x2042x256xf16>
  %out = sc.batch_matmul %w, %e
      : tensor<433x2042xf16>, tensor<?x2042x256xf16> -> tensor<?x433x256xf16>
  return %out : tensor<?x433x256xf16>
}
