// RUN: sparcast-equiv %s --ref=explicit --test=log_linear --candidates=2 | FileCheck %s

// The log-linear mask, evaluated from its definition by the reference lowering,
// against an explicit block mask holding the same pattern (10 blocks of 16,
// the last one partial: 150 tokens). The table was enumerated from the
// definition by hand-written Python when this test was written.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @log_linear(%q: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                   %k: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                   %v: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x150x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 16, local_width = 0, anchors = [first], causal = true>)
      : tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32> -> tensor<?x2x150x16xf32>
  return %o : tensor<?x2x150x16xf32>
}

func.func @explicit(%q: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                 %k: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                 %v: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x150x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.block_sparse<block_size = 16, key_blocks = 10, offsets = [0, 1, 3, 5, 8, 11, 15, 19, 23, 27, 32], indices = [0, 0, 1, 0, 2, 0, 1, 3, 0, 2, 4, 0, 1, 3, 5, 0, 2, 4, 6, 0, 3, 5, 7, 0, 4, 6, 8, 0, 1, 5, 7, 9]>)
      : tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32> -> tensor<?x2x150x16xf32>
  return %o : tensor<?x2x150x16xf32>
}
