// RUN: sparcast-equiv %s --ref=self_target --pass-pipeline='builtin.module(sc-ikbo-pipeline)' --users=3 --candidates=7 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=self_target --pass-pipeline='builtin.module(sc-ikbo-pipeline)' --users=4 --candidates=9 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-opt %s --sc-ikbo-pipeline | FileCheck %s --check-prefix=IR

// A history self-attention and a target attention over the same keys and
// values, returned together (one request-batched, one candidate-batched
// result): the IKBO pipeline preserves both results and leaves no
// broadcast.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// IR-NOT: sc.gather_rows
// IR: sc.attention %{{.*}}, %{{.*}}, %{{.*}} :
// IR: sc.attention {{.*}} index

func.func @self_target(%hq: tensor<?x2x12x32xf16> {sc.lineage = #sc.lineage<request>},
                       %k: tensor<?x2x12x32xf16> {sc.lineage = #sc.lineage<request>},
                       %v: tensor<?x2x12x32xf16> {sc.lineage = #sc.lineage<request>},
                       %q: tensor<?x2x4x32xf16> {sc.lineage = #sc.lineage<candidate>},
                       %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> (tensor<?x2x12x32xf16>, tensor<?x2x4x32xf16>) {
  %self = sc.attention %hq, %k, %v
      : tensor<?x2x12x32xf16>, tensor<?x2x12x32xf16>, tensor<?x2x12x32xf16> -> tensor<?x2x12x32xf16>
  %kb = sc.gather_rows %k[%idx] : tensor<?x2x12x32xf16>, tensor<?xi32> -> tensor<?x2x12x32xf16>
  %vb = sc.gather_rows %v[%idx] : tensor<?x2x12x32xf16>, tensor<?xi32> -> tensor<?x2x12x32xf16>
  %target = sc.attention %q, %kb, %vb
      : tensor<?x2x4x32xf16>, tensor<?x2x12x32xf16>, tensor<?x2x12x32xf16> -> tensor<?x2x4x32xf16>
  return %self, %target : tensor<?x2x12x32xf16>, tensor<?x2x4x32xf16>
}
