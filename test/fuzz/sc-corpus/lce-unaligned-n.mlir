func.func @lce250(%w: tensor<128x1777xf16> {sc.lineage = #sc.lineage<shared>},
                  %e_user: tensor<?x1000x250xf16> {sc.lineage = #sc.lineage<request>},
                  %e_cand: tensor<?x777x250xf16> {sc.lineage = #sc.lineage<candidate>},
                  %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x128x250xf16> {
  %user_b = sc.gather_rows %e_user[%idx]
      : tensor<?x1000x250xf16>, tensor<?xi32> -> tensor<?x1000x250xf16>
  %e = tensor.concat dim(1) %user_b, %e_cand
      : (tensor<?x1000x250xf16>, tensor<?x777x250xf16>) -> tensor<?x1777x250xf16>
  %out = sc.batch_matmul %w, %e
      : tensor<128x1777xf16>, tensor<?x1777x250xf16> -> tensor<?x128x250xf16>
  return %out : tensor<?x128x250xf16>
}
