// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %S/Inputs/target_attention_long.mlir -o %t --report | FileCheck %s --check-prefix=TARGET
// RUN: FileCheck %s --check-prefix=TMANIFEST < %t/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/target_attention_kernels.ptx
// RUN: FileCheck %s --check-prefix=PAIRPTX < %t/target_attention_kernels.ptx
// RUN: rm -rf %t && sparcast-aot %S/Inputs/target_attention_long.mlir -o %t --attention-group-candidates --report | FileCheck %s --check-prefix=GROUPEDPAIRS
// RUN: FileCheck %s --check-prefix=GROUPEDPAIRSMANIFEST < %t/manifest.json
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/loglinear_attention.mlir -o %t --report | FileCheck %s --check-prefix=LOGLINEAR
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t --report | FileCheck %s --check-prefix=SHORT
// RUN: FileCheck %s --check-prefix=SHORTPTX < %t/target_attention_kernels.ptx
// RUN: FileCheck %s --check-prefix=SHORTMANIFEST < %t/manifest.json
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t --attention-group-candidates --report | FileCheck %s --check-prefix=GROUPED
// RUN: FileCheck %s --check-prefix=GROUPEDPTX < %t/target_attention_kernels.ptx
// RUN: FileCheck %s --check-prefix=GROUPEDMANIFEST < %t/manifest.json
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t --attention-chain-heads=false --report | FileCheck %s --check-prefix=UNCHAINED
// RUN: FileCheck %s --check-prefix=UNCHAINEDMANIFEST < %t/manifest.json

// Target attention written the plain way (gather_rows then attention): the
// IKBO pipeline reads K/V through the index instead, and the entry is one
// attention kernel; ptxas takes it with no spills. Over a history of 2048
// keys (Inputs/target_attention_long.mlir) two candidates of one user share
// a CTA and every K/V block.
// TARGET: lineage: gathered
// Two candidates of one request per CTA: a pairing kernel first pairs
// them (in zeroed workspaces: one slot per request, one entry per
// candidate).
// TARGET: kernel target_attention_pairs0: pairs the candidates of each request (index arg3) into ws1, so that the attention's two consumers share one request's keys and values (scratch ws0)
// TARGET: kernel target_attention_attention1: attention 64 x 2048 keys, 2 heads, head dim 128, f16, keys/values read through the index, two consumer warpgroups on two candidates of one request (paired by the kernel before), sharing its K/V
// TARGET: 0 bytes spill stores, 0 bytes spill loads

// Q/K/V/O as 4-D tensor maps [batch, heads, rows, head dim], K/V at the
// request batch U, the index passed as a memref; grid (B, query tiles, H).
// TMANIFEST: "name": "arg1",
// TMANIFEST-NEXT: "shape": [
// TMANIFEST-NEXT: "U",
// TMANIFEST: "index_into": "U",
// TMANIFEST: "block": [
// TMANIFEST-NEXT: 256,
// TMANIFEST: "grid": [
// TMANIFEST-NEXT: "B/256",
// TMANIFEST: "kernel": "target_attention_pairs0",
// TMANIFEST: "tensor": "arg3"
// TMANIFEST: "tensor": "ws0"
// TMANIFEST: "tensor": "ws1"
// TMANIFEST: "block": [
// TMANIFEST-NEXT: 384,
// TMANIFEST: "grid": [
// TMANIFEST-NEXT: "B",
// TMANIFEST-NEXT: 1,
// TMANIFEST-NEXT: 2
// TMANIFEST: "kernel": "target_attention_attention1",
// TMANIFEST: "dims": [
// TMANIFEST-NEXT: 128,
// TMANIFEST-NEXT: 64,
// TMANIFEST-NEXT: 2,
// TMANIFEST-NEXT: "B"
// K: boxes of 128 keys (one block).
// TMANIFEST: "box": [
// TMANIFEST-NEXT: 64,
// TMANIFEST-NEXT: 128,
// TMANIFEST-NEXT: 1,
// TMANIFEST-NEXT: 1
// TMANIFEST: "dims": [
// TMANIFEST-NEXT: 128,
// TMANIFEST-NEXT: 2048,
// TMANIFEST-NEXT: 2,
// TMANIFEST-NEXT: "U"
// TMANIFEST: "kind": "memref",
// TMANIFEST-NEXT: "tensor": "arg3"
// TMANIFEST: "kind": "memref",
// TMANIFEST-NEXT: "tensor": "ws1"
// TMANIFEST: "workspace": [
// TMANIFEST: "name": "ws0",
// TMANIFEST-NEXT: "shape": [
// TMANIFEST-NEXT: "U"
// TMANIFEST-NEXT: ],
// TMANIFEST-NEXT: "zero_init": true
// TMANIFEST: "name": "ws1",
// TMANIFEST-NEXT: "shape": [
// TMANIFEST-NEXT: "B"
// TMANIFEST-NEXT: ],
// TMANIFEST-NEXT: "zero_init": true

// The pairing kernel: lanes of one request pair within the warp
// (match.any, ranks by popc; the leader writes partner + 1 and -1), each
// odd group's last lane through a relaxed device-scope compare-and-swap
// loop on its request's slot.
// PAIRPTX: .entry target_attention_pairs0(
// PAIRPTX: match.any.sync.b32 {{.*}}, -1;
// PAIRPTX: popc.b32
// PAIRPTX: st.global.b32 [%{{.*}}], %{{.*}};
// PAIRPTX: st.global.b32 [%{{.*}}], -1;
// PAIRPTX: ld.relaxed.gpu.global.b32
// PAIRPTX: atom.relaxed.gpu.global.cas.b32
// PAIRPTX: st.global.b32 [%{{.*}}], %{{.*}};
// PAIRPTX-NEXT: st.global.b32 [%{{.*}}], -1;

// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: cp.async.bulk.tensor.4d.shared::cluster.global
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: shfl.sync.bfly
// PTX-DAG: fence.proxy.async.shared::cta
// PTX-DAG: cp.async.bulk.tensor.4d.global.shared::cta
// The CTA waits for its O stores to read the staging tile, not for their
// writes; O's tensor map is prefetched with K's and V's.
// PTX-DAG: cp.async.bulk.wait_group.read 0
// PTX-DAG: prefetch.tensormap [%{{.*}}];

// Over at most 1024 keys (the example: 1024) each candidate has a CTA of
// its own, one consumer warpgroup on 64-key blocks, two CTAs an SM: no
// pairing kernel (a pairs walk, sc.attention_config). It chains the heads
// (a chained walk, sc.attention_config): resident CTAs (grid 2 x SMs) each walk
// every C-th candidate (C CTAs), head by head, O staged in 16 KB of
// its own past the ring and stored by
// TMA (O's tensor map after V's; the result also as a memref, the
// persistent walk's), the batch a kernel parameter.
// SHORT-NOT: pairs
// SHORT: tile loop: chained (an attention kernel: resident CTAs, each walking its share of the candidates head by head)
// SHORT: kernel target_attention_attention0: attention 64 x 1024 keys, 2 heads, head dim 128, f16, keys/values read through the index, one consumer warpgroup on a 64-row query tile, TMA producer warpgroup, 64-key blocks, 2 ring slots, {{.*}}, TMA stores, 99584 B shared memory; chained heads: 2 CTAs an SM, CTA c of C walking candidates c, c + C, ..., each candidate's 2 heads in turn
// SHORT: 0 bytes spill stores, 0 bytes spill loads
// SHORTPTX: .maxntid 256, 1, 1
// SHORTPTX: .minnctapersm 2
// SHORTPTX-DAG: setmaxnreg.dec.sync.aligned.u32 24
// SHORTPTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// SHORTPTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// SHORTPTX-DAG: cp.async.bulk.tensor.4d.global.shared::cta
// SHORTPTX-DAG: cp.async.bulk.wait_group.read 0
// SHORTMANIFEST: "grid": [
// SHORTMANIFEST-NEXT: "SMS*2",
// SHORTMANIFEST-NEXT: 1,
// SHORTMANIFEST-NEXT: 1
// SHORTMANIFEST: "kind": "tma",
// SHORTMANIFEST: "tensor": "arg2"
// SHORTMANIFEST: "kind": "tma",
// SHORTMANIFEST: "tensor": "result0"
// SHORTMANIFEST: "tensor": "arg3"
// SHORTMANIFEST-NOT: "tensor": "result0"
// SHORTMANIFEST: "kind": "dim"
// SHORTMANIFEST: "smem": 99584
// The pairs kernel (2048 keys) with --attention-group-candidates: the
// grouping kernel also pairs neighbours of one request (by position) in
// place of the pairing kernel; CTA x runs position x of the order.
// GROUPEDPAIRS-NOT: pairs0
// GROUPEDPAIRS: kernel target_attention_group0: puts the candidates in request order (index arg3) into ws0, {{.*}}, and pairs neighbours of one request into ws1 (by position)
// GROUPEDPAIRS: kernel target_attention_attention1: {{.*}} two consumer warpgroups on two candidates of one request
// GROUPEDPAIRS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// GROUPEDPAIRSMANIFEST: "kernel": "target_attention_group0"
// GROUPEDPAIRSMANIFEST: "tensor": "arg3"
// GROUPEDPAIRSMANIFEST: "tensor": "ws0"
// GROUPEDPAIRSMANIFEST: "tensor": "ws1"
// GROUPEDPAIRSMANIFEST: "dim": "U",
// GROUPEDPAIRSMANIFEST: "kernel": "target_attention_attention1"
// GROUPEDPAIRSMANIFEST: "tensor": "arg3"
// GROUPEDPAIRSMANIFEST-NEXT: },
// GROUPEDPAIRSMANIFEST-NEXT: {
// GROUPEDPAIRSMANIFEST-NEXT: "kind": "memref",
// GROUPEDPAIRSMANIFEST-NEXT: "tensor": "ws1"
// GROUPEDPAIRSMANIFEST-NEXT: },
// GROUPEDPAIRSMANIFEST-NEXT: {
// GROUPEDPAIRSMANIFEST-NEXT: "kind": "memref",
// GROUPEDPAIRSMANIFEST-NEXT: "tensor": "ws0"
// By default the walk takes the candidates as the index lists them.
// SHORT-NOT: group
// SHORTMANIFEST: "workspace": []
// --attention-group-candidates: the CTAs walk the candidates in request
// order (group_candidates, sc.attention_config): a grouping kernel (one CTA of
// 1024 threads, a counting sort by the index into a [B] table, the
// per-request counts in shared memory, U a parameter) runs first, and the
// attention kernel reads the table (a pointer after the index).
// GROUPED: tile loop: chained
// GROUPED: kernel target_attention_group0: puts the candidates in request order (index arg3) into ws0,
// GROUPED: kernel target_attention_attention1: attention 64 x 1024 keys, {{.*}} 99584 B shared memory; chained heads: 2 CTAs an SM, CTA c of C walking candidates c, c + C, ... in request order (the grouping kernel's table), each candidate's 2 heads in turn
// GROUPED-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// The grouping: counts by shared-memory atomics, a barrier-separated scan,
// the table stored; no global atomics.
// GROUPEDPTX-LABEL: .entry target_attention_group0
// GROUPEDPTX: .maxntid 1024, 1, 1
// GROUPEDPTX-NOT: atom.global
// GROUPEDPTX: atom.shared.add.u32
// GROUPEDPTX-NOT: atom.global
// GROUPEDPTX: bar.sync
// GROUPEDPTX-NOT: atom.global
// GROUPEDPTX: st.global.b32
// GROUPEDPTX-NOT: atom.global
// GROUPEDPTX-LABEL: .entry target_attention_attention1
// GROUPEDPTX: .minnctapersm 2
// GROUPEDMANIFEST: "block": [
// GROUPEDMANIFEST-NEXT: 1024,
// GROUPEDMANIFEST: "grid": [
// GROUPEDMANIFEST-NEXT: 1,
// GROUPEDMANIFEST-NEXT: 1,
// GROUPEDMANIFEST-NEXT: 1
// GROUPEDMANIFEST: "kernel": "target_attention_group0"
// GROUPEDMANIFEST: "tensor": "arg3"
// GROUPEDMANIFEST: "tensor": "ws0"
// GROUPEDMANIFEST: "dim": "U",
// GROUPEDMANIFEST-NEXT: "kind": "dim"
// GROUPEDMANIFEST: "grid": [
// GROUPEDMANIFEST-NEXT: "SMS*2",
// GROUPEDMANIFEST: "kernel": "target_attention_attention1"
// GROUPEDMANIFEST: "tensor": "arg3"
// GROUPEDMANIFEST-NEXT: },
// GROUPEDMANIFEST-NEXT: {
// GROUPEDMANIFEST-NEXT: "kind": "memref",
// GROUPEDMANIFEST-NEXT: "tensor": "ws0"
// GROUPEDMANIFEST: "workspace": [
// GROUPEDMANIFEST: "name": "ws0",
// GROUPEDMANIFEST-NEXT: "shape": [
// GROUPEDMANIFEST-NEXT: "B"
// --attention-chain-heads=false: a CTA per (candidate, head).
// UNCHAINED: tile loop: grid (an attention kernel: one CTA per tile)
// UNCHAINED: kernel target_attention_attention0: {{.*}} 83200 B shared memory
// UNCHAINED-NOT: chained
// UNCHAINEDMANIFEST: "grid": [
// UNCHAINEDMANIFEST-NEXT: "B",
// UNCHAINEDMANIFEST-NEXT: 1,
// UNCHAINEDMANIFEST-NEXT: 2

// The log-linear example (N = 16384, blocks of 128): 2020 of the 16384
// block pairs are kept (12%).
// LOGLINEAR: kernel loglinear_attention_attention0: attention 16384 x 16384 keys, 16 heads, head dim 128, bf16, two consumer warpgroups on the two 64-row halves of a 128-row query tile, sharing K/V, TMA producer warpgroup, 128-key blocks (2020 of 16384 block pairs kept, BSR tables in the module)
// LOGLINEAR: 0 bytes spill stores, 0 bytes spill loads

// RUN: rm -rf %t && sparcast-aot %S/Inputs/attention_dynamic.mlir -o %t --report | FileCheck %s --check-prefix=DYN
// RUN: FileCheck %s --check-prefix=DMANIFEST < %t/manifest.json
// Dynamic lengths: V is declared with K's length symbol (the runtime checks
// they agree), the grid counts 128-row tiles of L, the maps' rows and outer
// strides scale with the lengths, and both lengths are passed as values.
// DYN: kernel dyn_attention0: attention ? x ? keys
// DYN: 0 bytes spill stores, 0 bytes spill loads
// DMANIFEST: "name": "arg2",
// DMANIFEST-NEXT: "shape": [
// DMANIFEST-NEXT: "U",
// DMANIFEST-NEXT: 2,
// DMANIFEST-NEXT: "arg1_d2",
// DMANIFEST: "grid": [
// DMANIFEST-NEXT: "B",
// DMANIFEST-NEXT: "arg0_d2/128",
// DMANIFEST: "strides": [
// DMANIFEST-NEXT: 256,
// DMANIFEST-NEXT: "arg0_d2*256",
// DMANIFEST-NEXT: "arg0_d2*512"
// DMANIFEST: "dim": "arg0_d2",
// DMANIFEST-NEXT: "kind": "dim"
// DMANIFEST: "dim": "arg1_d2",
// DMANIFEST-NEXT: "kind": "dim"

// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/self_target_attention.mlir -o %t --report | FileCheck %s --check-prefix=SELFTARGET
// Self + target attention over one history: two kernels (one launch for
// both measured no faster, docs/decisions.md).
// SELFTARGET: kernel self_target_attention_attention0: attention 1024 x 1024 keys
// SELFTARGET: kernel self_target_attention_attention1: attention 64 x 1024 keys, {{.*}} one consumer warpgroup
