// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/gemm.mlir -o %t --gemm-schedule=cooperative --report | FileCheck %s --check-prefix=COOP
// RUN: FileCheck %s --check-prefixes=PTX,PTX-COOP < %t/gemm_gather_add_kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/gemm.mlir -o %t --gemm-schedule=pingpong --report | FileCheck %s --check-prefix=PP
// RUN: FileCheck %s --check-prefixes=PTX,PTX-PP < %t/gemm_gather_add_kernels.ptx
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/gemm.mlir -o %t --report | FileCheck %s --check-prefix=AUTO
// RUN: not sparcast-aot %sparcast_src_root/examples/gemm.mlir -o %t --gemm-schedule=fastest 2>&1 | FileCheck %s --check-prefix=BAD

// The warp-specialized persistent schedules: a producer warpgroup gives its
// registers to two consumer warpgroups (setmaxnreg), ring slots are handed
// over with full/empty mbarriers, each consumer applies the epilogue in
// registers and stores through TMA (staging tile, proxy fence, bulk group,
// wait for the read before reuse), and the grid is the device's SM count.
// ptxas: no spills, no setmaxnreg warning (C7508), no serialized wgmma
// (C7520).
// COOP: kernel gemm_gather_add_gemm0: {{.*}}433x256x872 f16, warp-specialized persistent, cooperative: producer warpgroup (TMA, 40 registers) + 2 consumer warpgroups (wgmma + epilogue, 232 registers), both consumers on one 128x256x64 tile, 3 stages, 14 k-tiles, one CTA per SM walking tiles in groups of 8 M tiles, 214272 B shared memory, epilogue fused (region) in registers, TMA stores; the epilogue's gathered operand arg2 read at [g(b), m, n] is loaded by TMA in 64-row x 128-byte subtiles through two buffers a consumer, the first two during the tile's wgmma
// COOP-NOT: C7508
// COOP-NOT: C7520
// COOP: 0 bytes spill stores, 0 bytes spill loads
// PP: kernel gemm_gather_add_gemm0: {{.*}}433x256x872 f16, warp-specialized persistent, ping-pong: {{.*}} each consumer a 64x256x64 tile of its own, 4 stages, 14 k-tiles, {{.*}} 230656 B shared memory{{.*}} in 64-row x 128-byte subtiles
// PP-NOT: C7508
// PP-NOT: C7520
// PP: 0 bytes spill stores, 0 bytes spill loads
// The example's epilogue reads other tensors (gather-add): auto picks
// ping-pong, so the loads run under the other consumer's wgmma.
// AUTO: kernel gemm_gather_add_gemm0: {{.*}} ping-pong
// BAD: error: sc-select-kernel-config: unknown GEMM schedule 'fastest', expected auto, cooperative, pingpong or transposed

// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG: mbarrier.arrive.shared.b64
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-DAG: fence.proxy.async.shared::cta
// PTX-DAG: bar.sync {{.*}}, 128;
// PTX-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// PTX-DAG: cp.async.bulk.commit_group
// PTX-DAG: cp.async.bulk.wait_group.read 0
// PTX-DAG: cp.async.bulk.wait_group 0
// Ping-pong turns: named barriers among the two consumers (256 threads).
// PTX-PP-DAG: bar.arrive {{.*}}, 256;
// PTX-PP-DAG: bar.sync {{.*}}, 256;
// PTX-COOP-NOT: bar.arrive

// MANIFEST: "block": [
// MANIFEST-NEXT: 384,
// MANIFEST: "grid": [
// MANIFEST-NEXT: "SMS",
// The result is passed as a memref (the batch size) and, after the
// epilogue operands, as a tensor map: boxes of 64 rows x 128 bytes.
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "result0"
// MANIFEST: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 1
// MANIFEST: "dims": [
// MANIFEST-NEXT: 256,
// MANIFEST-NEXT: 433,
// MANIFEST-NEXT: "B"
// MANIFEST: "kind": "tma",
// MANIFEST: "tensor": "result0"

// The transposed schedule (opt-in): the LCE's candidate GEMM as E^T W^T in
// 152 x 128 tiles, ping-pong, its N tiles in CTA pairs sharing W; the
// request GEMM (an f32 result) keeps its default.
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t --gemm-schedule=transposed --report | FileCheck %s --check-prefix=TRANSPOSED
// RUN: FileCheck %s --check-prefix=TRANSPOSED-PTX < %t/lce_kernels.ptx
// TRANSPOSED: GEMM schedule transposed (requested)
// TRANSPOSED: kernel lce_gemm1: {{.*}} ping-pong: {{.*}} TMA stores; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu [from lce.mlir:{{[0-9]+}}]{{$}}
// TRANSPOSED: kernel lce_gemm3: {{.*}} transposed ping-pong: {{.*}} each consumer a tile of its own of 152 rows x 128 columns computed transposed {{.*}} clusters of 2 CTAs on pairs of N tiles sharing W's rows by TMA multicast; the epilogue's gathered operand ws1 {{.*}} in 32x128 f32 chunks
// TRANSPOSED-NOT: spill stores, {{[1-9]}}
// TRANSPOSED-PTX: .reqnctapercluster 2, 1, 1
// TRANSPOSED-PTX: multicast::cluster
// TRANSPOSED-PTX: wgmma.mma_async.sync.aligned.m64n152k16.f32.f16.f16 {{.*}}, p, 1,  1, 1,  0;
// A shared rhs (x @ w^T) under the cooperative schedule gets CTA pairs by
// default; a shared lhs (W @ E) and a batched rhs do not.
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %t --report | FileCheck %s --check-prefix=SHARED
// RUN: FileCheck %s --check-prefix=SHARED-PTX < %t/linear_f16_kernels.ptx
// SHARED: kernel shared_w_f16_gemm0: {{.*}} TMA stores; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu [from gemm_suite.mlir:{{[0-9]+}}]{{$}}
// SHARED: kernel bmm_f16_gemm0: {{.*}} TMA stores; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu [from gemm_suite.mlir:{{[0-9]+}}]{{$}}
// SHARED: kernel linear_f16_gemm0: {{.*}} cooperative: {{.*}} TMA stores, clusters of 2 CTAs on pairs of M tiles sharing B by TMA multicast; lhs batch elements as one matrix of B x 433 rows
// SHARED-PTX: .reqnctapercluster 2, 1, 1
// SHARED-PTX: multicast::cluster
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/gemm.mlir -o %t --gemm-multicast --report | FileCheck %s --check-prefix=MC
// RUN: FileCheck %s --check-prefix=MCPTX < %t/gemm_gather_add_kernels.ptx
// Experimental multicast: clusters of two CTAs on pairs of M tiles; each
// loads half of B and multicasts it to both; consumers free a slot in both
// CTAs (mapa + remote arrive); cluster barriers after init and before exit.
// MC: kernel gemm_gather_add_gemm0: {{.*}} ping-pong: {{.*}}, clusters of 2 CTAs on pairs of M tiles sharing B by TMA multicast; the epilogue's gathered operand {{.*}} in 64-row x 128-byte subtiles
// MC: 0 bytes spill stores, 0 bytes spill loads
// MCPTX: .reqnctapercluster 2, 1, 1
// MCPTX-DAG: fence.mbarrier_init.release.cluster
// MCPTX-DAG: barrier.cluster.arrive
// MCPTX-DAG: barrier.cluster.wait
// MCPTX-DAG: multicast::cluster
// MCPTX-DAG: mapa.shared::cluster.u32
// MCPTX-DAG: mbarrier.arrive.shared::cluster.b64
