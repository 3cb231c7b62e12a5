// RUN: sparcast-equiv %s --ref=non_causal --pass-pipeline='builtin.module(sc-materialize-block-mask)' --candidates=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=causal --pass-pipeline='builtin.module(sc-materialize-block-mask)' --candidates=2 | FileCheck %s
// RUN: sparcast-opt %s -sc-materialize-block-mask | FileCheck %s --check-prefix=TABLES

// The materialized tables (from the enumerating implementation) against the
// mask evaluated per element from its definition (the reference lowering of
// the log-linear attribute): same attention on the CPU.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// TABLES-COUNT-2: mask(#sc.block_sparse<block_size = 16, key_blocks = 13,

func.func @non_causal(%q: tensor<?x2x200x16xf32> {sc.lineage = #sc.lineage<candidate>},
                      %k: tensor<?x2x200x16xf32> {sc.lineage = #sc.lineage<candidate>},
                      %v: tensor<?x2x200x16xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x200x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 16, local_width = 1, anchors = [first, last]>)
      : tensor<?x2x200x16xf32>, tensor<?x2x200x16xf32>, tensor<?x2x200x16xf32> -> tensor<?x2x200x16xf32>
  return %o : tensor<?x2x200x16xf32>
}

func.func @causal(%q: tensor<?x2x200x16xf32> {sc.lineage = #sc.lineage<candidate>},
                  %k: tensor<?x2x200x16xf32> {sc.lineage = #sc.lineage<candidate>},
                  %v: tensor<?x2x200x16xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x2x200x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 16, local_width = 2, causal = true>)
      : tensor<?x2x200x16xf32>, tensor<?x2x200x16xf32>, tensor<?x2x200x16xf32> -> tensor<?x2x200x16xf32>
  return %o : tensor<?x2x200x16xf32>
}
