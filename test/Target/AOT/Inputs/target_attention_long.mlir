// examples/target_attention.mlir with a history of S = 2048 keys: long
// enough that two candidates of one user share a CTA (the pairs kernel).
func.func @target_attention(
    %q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
    %k: tensor<?x2x2048x128xf16> {sc.lineage = #sc.lineage<request>},
    %v: tensor<?x2x2048x128xf16> {sc.lineage = #sc.lineage<request>},
    %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x2x64x128xf16> {
  %kb = sc.gather_rows %k[%idx]
      : tensor<?x2x2048x128xf16>, tensor<?xi32> -> tensor<?x2x2048x128xf16>
  %vb = sc.gather_rows %v[%idx]
      : tensor<?x2x2048x128xf16>, tensor<?xi32> -> tensor<?x2x2048x128xf16>
  %o = sc.attention %q, %kb, %vb
      : tensor<?x2x64x128xf16>, tensor<?x2x2048x128xf16>,
        tensor<?x2x2048x128xf16> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}
