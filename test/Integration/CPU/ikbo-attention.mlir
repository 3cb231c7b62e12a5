// RUN: sparcast-equiv %s --ref=broadcast --pass-pipeline='builtin.module(sc-ikbo-attention)' --users=3 --candidates=7 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=broadcast --pass-pipeline='builtin.module(sc-ikbo-attention)' --users=5 --candidates=11 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-opt %s -sc-ikbo-attention -canonicalize | FileCheck %s --check-prefix=IR

// sc-ikbo-attention preserves meaning; afterwards no broadcast is left.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// IR-NOT: sc.gather_rows
// IR: sc.attention {{.*}} index

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
