// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: sparcast-aot %sparcast_src_root/examples/loglinear_attention.mlir -o %t/plain --persistent-attention --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/plain/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/plain/loglinear_attention_kernels.ptx
// RUN: FileCheck %s --check-prefix=NOSTAGE < %t/plain/loglinear_attention_kernels.ptx
// RUN: sparcast-aot %sparcast_src_root/bench/attention_suite.mlir -o %t/suite --persistent-attention --report > %t/suite.txt
// RUN: FileCheck %s --check-prefix=SUITE < %t/suite.txt
// RUN: FileCheck %s --check-prefix=PAIRS < %t/suite.txt
// RUN: sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t/target --persistent-attention --report | FileCheck %s --check-prefix=TARGET
// RUN: sparcast-aot %sparcast_src_root/examples/self_target_attention.mlir -o %t/fused-flag --fuse-self-attention --persistent-attention --report | FileCheck %s --check-prefix=FUSED

// --persistent-attention (opt-in: on the H200 0.84-0.94x of one CTA per
// tile, session 9): block-masked attention over static shapes runs as many
// CTAs as are resident (grid SMS, or SMS*2 with one consumer), CTA c
// walking tiles c, c + CTAs, ... of the heaviest-first order; the ring
// runs on across tiles; a tile's Q loads as soon as every consumer warp
// has the last one's in registers (the warp meets, then lane 0 arrives on
// the qfree barrier), and O goes to global memory from registers (a
// memref parameter; its staging tile would be the next Q), rows past the
// query length skipped.
// With the flag a target attention does not chain (the persistent kernel
// takes it), so a fused self-attention goes with the pairs kernel.
// FUSED: kernel self_target_attention_pairs0: pairs
// FUSED: kernel self_target_attention_attention1: {{.*}}; fused with the self-attention 1024 x 1024 of the same keys/values (grid rows 1..8: its 128-row query tiles)
// CHECK: kernel loglinear_attention_attention0: {{.*}} O stored from registers, {{.*}}; persistent: 1 CTA(s) an SM, CTA c taking tiles c, c + CTAs, ... (heaviest first)
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// MANIFEST: "grid": [
// MANIFEST-NEXT: "SMS",
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1
// Tensor maps for Q, K and V only: O goes out from registers.
// MANIFEST-COUNT-3: "kind": "tma"
// MANIFEST-NOT: "kind": "tma"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "result0"
// NOSTAGE-NOT: cp.async.bulk.tensor.4d.global.shared::cta
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 56
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 224
// PTX-DAG: %nctaid.x
// PTX-DAG: bar.warp.sync -1;
// PTX-DAG: st.global.b32

// Through the kernel-level IR the op's tile loop is
// persistent (sc-lower-to-sck), and a persistent one-consumer kernel
// (blocks of 64; target attention over at most 1024 keys) keeps 40
// registers for its producer, which also walks the tiles, 216 for the
// consumer (at 32 / 224 the indexed ones spill, at 24 every one) (with two
// consumers 56 and 2 x 224: at 40 the producer spills; where the keys fill
// no block, as N = 1000 in the suite, the consumers then spill 8 bytes).
// SUITE: tile loop: persistent (an attention kernel whose op asked for it)
// SUITE: warp-specialized: producer (2 + 3 box(es) per pass through their blocks (one ring each), 40 registers) + 1 consumer(s) (216 registers)

// Target attention (an index, static lengths; the batch may vary: the
// kernel takes it as a parameter) is persistent too: over at most 1024
// keys one consumer a candidate, two CTAs an SM, no spills.
// TARGET: kernel target_attention_attention0: {{.*}}keys/values read through the index, one consumer warpgroup{{.*}}; persistent: 2 CTA(s) an SM, CTA c taking tiles c, c + CTAs, ...{{$}}
// TARGET: 0 bytes spill stores, 0 bytes spill loads
// TARGET-NOT: spill
// Pairs of candidates walk the candidate tiles, the non-leads skipped; in
// odd rounds a CTA takes its neighbour's tile, so that with an even CTA
// count (132 SMs) every CTA sees leads (pairs of neighbours lead at one
// parity; H200, session 9: 0.5x without it).
// PAIRS: kernel ta_s2048_attention1: {{.*}}two consumer warpgroups on two candidates of one request{{.*}}; persistent: 1 CTA(s) an SM, CTA c taking tiles c, c + CTAs, ..., odd rounds the neighbour's tile (leads alternate), non-leads skipped
// PAIRS: Function properties for ta_s2048_attention1
// PAIRS-NEXT: 0 bytes spill stores, 0 bytes spill loads
// The fused self + target kernel is not made persistent (its CTAs split
// between the history's query blocks and the candidates by grid row).
