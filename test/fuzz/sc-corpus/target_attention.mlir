// Recsys target attention as models write it: each candidate's n_seed = 64
// query rows attend to its user's history of S = 1024 keys/values, which
// the model broadcasts to candidates first. H = 2, d = 128.
func.func @target_attention(
    %q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
    %k: tensor<?x2x1024x128xf16> {sc.lineage = #sc.lineage<request>},
    %v: tensor<?x2x1024x128xf16> {sc.lineage = #sc.lineage<request>},
    %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x2x64x128xf16> {
  %kb = sc.gather_rows %k[%idx]
      : tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x1024x128xf16>
  %vb = sc.gather_rows %v[%idx]
      : tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x1024x128xf16>
  %o = sc.attention %q, %kb, %vb
      : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>,
        tensor<?x2x1024x128xf16> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}
