// RUN: sparcast-equiv %s --ref=explicit --test=log_linear --candidates=2 | FileCheck %s
// RUN: not sparcast-equiv %s --ref=explicit --test=unmasked --candidates=2 | FileCheck %s --check-prefix=MASK-MATTERS

// The log-linear mask, evaluated from its definition by the reference lowering,
// against an explicit block mask holding the same pattern (10 blocks of 16,
// the last one partial: 150 tokens). The table was enumerated from the
// definition by hand-written Python when this test was written.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// The mask changes the result (73 of the 100 block pairs are kept):
// MASK-MATTERS: NOT EQUIVALENT

func.func @log_linear(%q: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                   %k: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                   %v: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x150x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 16>)
      : tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32> -> tensor<?x2x150x16xf32>
  return %o : tensor<?x2x150x16xf32>
}

func.func @explicit(%q: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                 %k: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                 %v: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x150x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.block_sparse<block_size = 16, key_blocks = 10, offsets = [0, 7, 13, 21, 29, 37, 45, 53, 60, 67, 73], indices = [0, 1, 2, 4, 5, 8, 9, 0, 1, 2, 3, 5, 9, 0, 1, 2, 3, 4, 5, 6, 9, 0, 1, 2, 3, 4, 5, 7, 9, 0, 2, 3, 4, 5, 6, 8, 9, 0, 1, 3, 4, 5, 6, 7, 9, 0, 2, 4, 5, 6, 7, 8, 9, 0, 3, 5, 6, 7, 8, 9, 0, 4, 5, 6, 7, 8, 9, 0, 1, 5, 7, 8, 9]>)
      : tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32> -> tensor<?x2x150x16xf32>
  return %o : tensor<?x2x150x16xf32>
}

func.func @unmasked(%q: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                    %k: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>},
                    %v: tensor<?x2x150x16xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x150x16xf32> {
  %o = sc.attention %q, %k, %v
      : tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32>, tensor<?x2x150x16xf32> -> tensor<?x2x150x16xf32>
  return %o : tensor<?x2x150x16xf32>
}
