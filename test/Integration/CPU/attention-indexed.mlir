// RUN: sparcast-equiv %s --ref=broadcast --test=indexed --users=3 --candidates=7 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=broadcast --test=indexed --users=4 --candidates=9 --shuffle-index --rtol=2e-3 | FileCheck %s

// Target attention reading each user's K/V through the index (IKBO type
// II) against the model's way: broadcast K/V to candidates, then attend.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @indexed(%q: tensor<?x2x4x32xf16> {sc.lineage = #sc.lineage<candidate>},
                   %k: tensor<?x2x20x32xf16> {sc.lineage = #sc.lineage<request>},
                   %v: tensor<?x2x20x32xf16> {sc.lineage = #sc.lineage<request>},
                   %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x4x32xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x4x32xf16>, tensor<?x2x20x32xf16>, tensor<?x2x20x32xf16>, tensor<?xi32> -> tensor<?x2x4x32xf16>
  return %o : tensor<?x2x4x32xf16>
}

func.func @broadcast(%q: tensor<?x2x4x32xf16> {sc.lineage = #sc.lineage<candidate>},
                     %k: tensor<?x2x20x32xf16> {sc.lineage = #sc.lineage<request>},
                     %v: tensor<?x2x20x32xf16> {sc.lineage = #sc.lineage<request>},
                     %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x4x32xf16> {
  %kb = sc.gather_rows %k[%idx] : tensor<?x2x20x32xf16>, tensor<?xi32> -> tensor<?x2x20x32xf16>
  %vb = sc.gather_rows %v[%idx] : tensor<?x2x20x32xf16>, tensor<?xi32> -> tensor<?x2x20x32xf16>
  %o = sc.attention %q, %kb, %vb
      : tensor<?x2x4x32xf16>, tensor<?x2x20x32xf16>, tensor<?x2x20x32xf16> -> tensor<?x2x4x32xf16>
  return %o : tensor<?x2x4x32xf16>
}
