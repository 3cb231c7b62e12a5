// LCE with odd K on both sides (K_user = 11, K_cand = 13) and N = 136 (a ping-pong tile of 256 columns: the candidate GEMM is dispatched).
func.func @lce(%w: tensor<7x24xf16> {sc.lineage = #sc.lineage<shared>},
               %e_user: tensor<?x11x136xf16> {sc.lineage = #sc.lineage<request>},
               %e_cand: tensor<?x13x136xf16> {sc.lineage = #sc.lineage<candidate>},
               %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x7x136xf16> {
  %user_b = sc.gather_rows %e_user[%idx] : tensor<?x11x136xf16>, tensor<?xi32> -> tensor<?x11x136xf16>
  %e = tensor.concat dim(1) %user_b, %e_cand : (tensor<?x11x136xf16>, tensor<?x13x136xf16>) -> tensor<?x24x136xf16>
  %out = sc.batch_matmul %w, %e : tensor<7x24xf16>, tensor<?x24x136xf16> -> tensor<?x7x136xf16>
  return %out : tensor<?x7x136xf16>
}
