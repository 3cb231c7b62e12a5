// A bf16 target attention written the plain way (K/V broadcast by gather),
// for aot-attention-f16-p.mlir.
func.func @ta_bf16(
    %q: tensor<?x2x64x128xbf16> {sc.lineage = #sc.lineage<candidate>},
    %k: tensor<?x2x1024x128xbf16> {sc.lineage = #sc.lineage<request>},
    %v: tensor<?x2x1024x128xbf16> {sc.lineage = #sc.lineage<request>},
    %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x2x64x128xbf16> {
  %kb = sc.gather_rows %k[%idx]
      : tensor<?x2x1024x128xbf16>, tensor<?xi32> -> tensor<?x2x1024x128xbf16>
  %vb = sc.gather_rows %v[%idx]
      : tensor<?x2x1024x128xbf16>, tensor<?xi32> -> tensor<?x2x1024x128xbf16>
  %o = sc.attention %q, %kb, %vb
      : tensor<?x2x64x128xbf16>, tensor<?x2x1024x128xbf16>,
        tensor<?x2x1024x128xbf16> -> tensor<?x2x64x128xbf16>
  return %o : tensor<?x2x64x128xbf16>
}
