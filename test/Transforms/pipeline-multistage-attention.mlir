// RUN: sparcast-opt %s -sc-select-kernel-config=chip=sm_80 -sc-lower-to-sck=attention=1 -sc-pipeline-multistage | FileCheck %s
// RUN: sparcast-opt %s -sc-select-kernel-config="chip=sm_86 report=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFIG

// sm_80 / sm_86 / sm_89's attention: one CTA of four warps a 64-row query
// tile and head, key blocks of 64 (sc-select-kernel-config), and
// sc-pipeline-multistage puts its loads through rings: Q through a ring
// of its own, put and got at the key loop and read into registers once
// (sck.load_frag: the A operand of every Q K^T); K and V of key block i
// at position i of a ring of 3 slots, blocks 0 and 1 put before the loop
// (when the tile has blocks), iteration i getting block i and putting
// block i + 2 (the last block again past the end: every iteration puts
// once, its coordinates inside the tensors) before its MMAs.
// CONFIG: remark: attention kernel #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = false> (sm_86: cp.async ring, mma.sync)
// CHECK-LABEL: func.func private @target_attention0_kernel(
// CHECK: %[[QRING:.*]] = sck.ring {stages = 2 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
// CHECK: %[[KV:.*]] = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.box<64x128xf16>>
// CHECK: sck.tile_loop
// CHECK: %[[Q0:.*]] = sck.load "Q"
// CHECK: %[[Q1:.*]] = sck.load "Q"
// CHECK: sck.put %[[QRING]][%{{.*}}], %[[Q0]], %[[Q1]]
// CHECK: %[[QB:.*]]:2 = sck.get %[[QRING]]
// CHECK: %[[QF0:.*]] = sck.load_frag %[[QB]]#0 : !sck.box<64x64xf16> -> !sck.frag<64x64xf16>
// CHECK: %[[QF1:.*]] = sck.load_frag %[[QB]]#1
// CHECK: %[[ANY:.*]] = arith.cmpi ult, %[[LB:.*]], %[[UB:.*]] : index
// CHECK: scf.if %[[ANY]] {
// CHECK: sck.load "K"
// CHECK: sck.put %[[KV]][%{{.*}}]
// CHECK: sck.put %[[KV]][%{{.*}}]
// CHECK: }
// CHECK: scf.for %[[I:.*]] = %[[LB]] to %[[UB]]
// CHECK: %[[POS:.*]] = arith.subi %[[I]], %[[LB]] : index
// CHECK: %[[BOX:.*]]:3 = sck.get %[[KV]][%[[POS]]]
// CHECK: %[[AHEAD:.*]] = arith.addi %[[POS]], %c2
// CHECK: %[[BLOCK:.*]] = arith.addi %[[LB]], %[[AHEAD]]
// CHECK: arith.minui %[[BLOCK]]
// CHECK: sck.put %[[KV]][%[[AHEAD]]]
// CHECK: sck.mma %[[QF0]], %[[BOX]]#0
// CHECK: sck.mma %[[QF1]], %[[BOX]]#1
// CHECK: sck.softmax
// CHECK: sck.mma %{{.*}}, %[[BOX]]#2
func.func @target(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x300x128xf16>,
                  %v: tensor<?x2x300x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x64x128xf16>, tensor<?x2x300x128xf16>, tensor<?x2x300x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}
