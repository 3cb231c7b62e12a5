// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/similarity.mlir -o %t --report 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: cat %t/cosine_kernels.ptx %t/cosine_candidates_kernels.ptx | FileCheck %s --check-prefix=PTX
// RUN: FileCheck %s --check-prefix=RESCORE < %t/cosine_candidates_kernels.ptx

// The split similarity compiles to its two kernels, written in sck ops and
// lowered by sc-lower-sck-simt. The cosine is linear in the dot product, so
// no workspace: the heads' exact fp32 tile product through the cosine is
// stored, then the tails' products, each scaled by the cosine at 1, are
// added into the result.
// CHECK: kernel cosine_similarity0_tile: heads arg0 x arg1^T in exact fp32 (128 x 128 tiles, CUDA-core FMAs), through the epilogue, into result0
// CHECK: kernel cosine_similarity0_scatter: the sparse parts' products of arg4 x arg7, each scaled by the epilogue at 1, added into result0 (a CTA a row, its products spread evenly over the threads, atomics)
// The top-k candidates: the selection fused into the tile kernel on the
// heads alone (the scores never written), its slots cleared first, its
// counts zeroed by the runtime (a result with zero_init); then the
// rescoring kernel scores the pairs the tails touch. No workspace.
// CHECK: kernel cosine_candidates_similarity0_clear: every slot of result1, result2 empty (-inf, -1)
// CHECK: kernel cosine_candidates_similarity0_tile: heads arg0 x arg1^T in exact fp32 (128 x 128 tiles, CUDA-core FMAs) (the heads alone), through the epilogue, the elements above arg10 appended to their rows (result0, result1, result2; the scores never written)
// CHECK: kernel cosine_candidates_similarity0_rescore: a CTA a row of arg4; the items its sparse part touches (per-item sums of arg4 x arg7 in a shared-memory table) scored exactly, their head-only candidates emptied, appended above arg10
// ptxas: no spills, except a few bytes in the selecting tile (its 64
// accumulators at 128 registers with a row's eight scores: 24 bytes).
// CHECK: 'cosine_similarity0_tile'
// CHECK-NEXT: Function properties
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: 'cosine_similarity0_scatter'
// CHECK-NEXT: Function properties
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: 'cosine_candidates_similarity0_rescore'
// CHECK-NEXT: Function properties
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: 'cosine_candidates_similarity0_tile'
// CHECK-NEXT: Function properties
// CHECK-NEXT: {{[0-9]?[0-9]}} bytes spill stores
// CHECK: 'cosine_candidates_similarity0_clear'
// CHECK-NEXT: Function properties
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// The cosine is the dot product times both rows' inverse norms: no
// floating-point division in any kernel.
// PTX: .entry cosine_similarity0_tile
// PTX-NOT: div.{{rn|full|approx}}.f32
// CHECK: wrote

// The tile kernel: a CTA a 128 x 128 tile. The scatter: a CTA a query
// row, a batch of tail entries (256 x 20 bytes) in dynamic shared memory. The norms, read at the row and the column index, must cover M and N
// (checked by the runtime) for both kernels, which read them.
// MANIFEST: "grid": [
// MANIFEST-NEXT: "arg1_d0/128",
// MANIFEST-NEXT: "arg0_d0/128",
// MANIFEST: "kernel": "cosine_similarity0_tile"
// MANIFEST: "at_most": [
// MANIFEST-NEXT: [
// MANIFEST-NEXT: "arg0_d0",
// MANIFEST-NEXT: "arg8_d0"
// MANIFEST: "arg1_d0",
// MANIFEST-NEXT: "arg9_d0"
// MANIFEST: "grid": [
// MANIFEST-NEXT: "arg0_d0",
// MANIFEST: "kernel": "cosine_similarity0_scatter"
// MANIFEST: "smem": 5120
// MANIFEST: "name": "cosine",
// MANIFEST: "workspace": []
// The rescoring kernel: a CTA a query row, its 64 KB table and a batch of
// tail entries (512 x 20 bytes: their products' scan, first items, values)
// in dynamic shared memory; the candidates entry has no workspace.
// MANIFEST: "grid": [
// MANIFEST-NEXT: 528,
// MANIFEST: "kernel": "cosine_candidates_similarity0_clear"
// MANIFEST: "grid": [
// MANIFEST-NEXT: "arg1_d0/128",
// MANIFEST: "kernel": "cosine_candidates_similarity0_tile"
// MANIFEST: "grid": [
// MANIFEST-NEXT: "arg0_d0",
// MANIFEST-NEXT: 1,
// MANIFEST: "kernel": "cosine_candidates_similarity0_rescore"
// MANIFEST: "smem": 75776
// MANIFEST: "name": "cosine_candidates",
// MANIFEST: "results": [
// MANIFEST: "name": "result0",
// MANIFEST: "zero_init": true
// MANIFEST: "workspace": []

// The rescoring kernel: 512 threads a CTA; each warp's lanes count the
// query's tail products, an entry a lane, summed across the warp by five
// butterfly shuffles.
// RESCORE: .entry cosine_candidates_similarity0_rescore(
// RESCORE: .maxntid 512, 1, 1
// RESCORE-COUNT-5: shfl.sync.bfly.b32
// RESCORE-NOT: shfl.sync
