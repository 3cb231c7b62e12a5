// A user's history attends to itself (self-attention, per request) and each
// candidate's seeds attend to its user's history (target attention), over
// the same keys and values, written the plain way: the model broadcasts the
// history to candidates before the target attention. sparcast-aot reads the
// history through the index instead and computes both in one launch.
func.func @self_target_attention(
    %hq: tensor<?x2x1024x128xf16> {sc.lineage = #sc.lineage<request>},
    %k: tensor<?x2x1024x128xf16> {sc.lineage = #sc.lineage<request>},
    %v: tensor<?x2x1024x128xf16> {sc.lineage = #sc.lineage<request>},
    %q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
    %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> (tensor<?x2x1024x128xf16>, tensor<?x2x64x128xf16>) {
  %self = sc.attention %hq, %k, %v
      : tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>,
        tensor<?x2x1024x128xf16> -> tensor<?x2x1024x128xf16>
  %kb = sc.gather_rows %k[%idx]
      : tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x1024x128xf16>
  %vb = sc.gather_rows %v[%idx]
      : tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x1024x128xf16>
  %target = sc.attention %q, %kb, %vb
      : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>,
        tensor<?x2x1024x128xf16> -> tensor<?x2x64x128xf16>
  return %self, %target : tensor<?x2x1024x128xf16>, tensor<?x2x64x128xf16>
}
