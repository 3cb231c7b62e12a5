// Target attention with dynamic query and key lengths.
func.func @dyn(%q: tensor<?x2x?x128xf16> {sc.lineage = #sc.lineage<candidate>},
               %k: tensor<?x2x?x128xf16> {sc.lineage = #sc.lineage<request>},
               %v: tensor<?x2x?x128xf16> {sc.lineage = #sc.lineage<request>},
               %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x?x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?xi32> -> tensor<?x2x?x128xf16>
  return %o : tensor<?x2x?x128xf16>
}
