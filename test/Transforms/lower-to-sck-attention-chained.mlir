// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck=attention=1 | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck=attention=1 -sc-warp-specialize=report=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=WS

// A target attention of one consumer a candidate (at most 1024 static
// keys, 64 query rows) over two heads chains them
// (a chained walk, sc.attention_config): its tile loop's schedule is `chained`
// (resident CTAs each walking its share of the candidates head by head),
// whose roles keep one CTA per tile's register split (24 / 232 at two CTAs
// an SM).
// CHECK-LABEL: func.func private @chained_attention0_kernel(
// CHECK: sck.tile_loop {{.*}} attributes {schedule = #sck.tile_schedule<chained>}
// WS: lower-to-sck-attention-chained.mlir:{{[0-9]+}}:8: remark: warp-specialized: producer ({{.*}}24 registers) + 1 consumer(s) (232 registers)
func.func @chained(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x1024x128xf16>,
                   %v: tensor<?x2x1024x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

// -----

// A grid walk pinned on the op (what --attention-chain-heads=false picks), one head, or
// keys past 1024 (two candidates a CTA): one CTA per tile.
// CHECK-LABEL: func.func private @unchained_attention2_kernel(
// CHECK: sck.tile_loop {{.*}} attributes {schedule = #sck.tile_schedule<grid>}
// CHECK-LABEL: func.func private @unchained_attention1_kernel(
// CHECK: sck.tile_loop {{.*}} attributes {schedule = #sck.tile_schedule<grid>}
// CHECK-LABEL: func.func private @unchained_attention0_kernel(
// CHECK: sck.tile_loop {{.*}} attributes {schedule = #sck.tile_schedule<grid>}
func.func @unchained(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x1024x128xf16>,
                     %v: tensor<?x2x1024x128xf16>, %idx: tensor<?xi32>,
                     %q1: tensor<?x1x64x128xf16>, %k1: tensor<?x1x1024x128xf16>,
                     %v1: tensor<?x1x1024x128xf16>,
                     %kl: tensor<?x2x2000x128xf16>, %vl: tensor<?x2x2000x128xf16>)
    -> (tensor<?x2x64x128xf16>, tensor<?x1x64x128xf16>, tensor<?x2x64x128xf16>) {
  %o = sc.attention %q, %k, %v index %idx {sc.attention_config = #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = false>} : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  %o1 = sc.attention %q1, %k1, %v1 index %idx : tensor<?x1x64x128xf16>, tensor<?x1x1024x128xf16>, tensor<?x1x1024x128xf16>, tensor<?xi32> -> tensor<?x1x64x128xf16>
  %ol = sc.attention %q, %kl, %vl index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2000x128xf16>, tensor<?x2x2000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o, %o1, %ol : tensor<?x2x64x128xf16>, tensor<?x1x64x128xf16>, tensor<?x2x64x128xf16>
}

// -----

// Candidates in request order (group_candidates): the tile loop walks
// positions of the grouping kernel's order, an argument marked
// sck.candidate_order; a tile's candidate is order[position], whose Q it
// loads, whose request's K/V it reads and whose O it stores. The pairs
// walk's table is then by position, its partners candidates.
// CHECK-LABEL: func.func private @grouped_attention1_kernel(
// CHECK-SAME: %{{.*}}: index, %[[IDX:.*]]: tensor<?xi32>, %[[PAIRS:.*]]: tensor<?xi32> {sck.candidate_pairs}, %[[ORDER:.*]]: tensor<?xi32> {sck.candidate_order})
// CHECK: ^bb0(%[[P:.*]]: index, %{{.*}}: index, %[[H:.*]]: index):
// CHECK: %[[C32:.*]] = tensor.extract %[[ORDER]][%[[P]]]
// CHECK: %[[C:.*]] = arith.index_cast %[[C32]] : i32 to index
// CHECK: tensor.extract %[[PAIRS]][%[[P]]]
// CHECK: %[[PARTNER:.*]] = arith.select %{{.*}}, %{{.*}}, %[[C]] : index
// CHECK: tensor.extract %[[IDX]][%[[C]]]
// CHECK: sck.load "Q"[%{{.*}}, %{{.*}}, %[[H]], %[[C]]]
// CHECK: sck.load "Q"[%{{.*}}, %{{.*}}, %[[H]], %[[PARTNER]]]
// CHECK: sck.epilogue "O"[%{{.*}}, %{{.*}}, %[[H]], %[[C]]]
// CHECK-LABEL: func.func private @grouped_attention0_kernel(
// CHECK-SAME: %{{.*}}: index, %[[IDX:.*]]: tensor<?xi32>, %[[ORDER:.*]]: tensor<?xi32> {sck.candidate_order})
// CHECK: sck.tile_loop {{.*}} attributes {schedule = #sck.tile_schedule<chained>}
// CHECK: ^bb0(%[[P:.*]]: index, %{{.*}}: index, %[[H:.*]]: index):
// CHECK: %[[C32:.*]] = tensor.extract %[[ORDER]][%[[P]]]
// CHECK: %[[C:.*]] = arith.index_cast %[[C32]] : i32 to index
// CHECK: tensor.extract %[[IDX]][%[[C]]]
// CHECK: sck.load "Q"[%{{.*}}, %{{.*}}, %[[H]], %[[C]]]
// CHECK: sck.epilogue "O"[%{{.*}}, %{{.*}}, %[[H]], %[[C]]]
func.func @grouped(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x1024x128xf16>,
                   %v: tensor<?x2x1024x128xf16>, %idx: tensor<?xi32>,
                   %k2: tensor<?x2x2048x128xf16>, %v2: tensor<?x2x2048x128xf16>)
    -> (tensor<?x2x64x128xf16>, tensor<?x2x64x128xf16>) {
  %o = sc.attention %q, %k, %v index %idx {sc.attention_config = #sc.attention_config<walk = chained, consumers = 1, key_block = 64, group_candidates = true, p_in_f16 = false>} : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  %o2 = sc.attention %q, %k2, %v2 index %idx {sc.attention_config = #sc.attention_config<walk = pairs, consumers = 2, key_block = 128, group_candidates = true, p_in_f16 = false>} : tensor<?x2x64x128xf16>, tensor<?x2x2048x128xf16>, tensor<?x2x2048x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o, %o2 : tensor<?x2x64x128xf16>, tensor<?x2x64x128xf16>
}
