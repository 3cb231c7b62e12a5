// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t --fuse-gemm-stages --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/lce_kernels.ptx
// RUN: FileCheck %s --check-prefix=PXPTX < %t/lce_kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t --fuse-gemm-stages --gemm-schedule=cooperative --report | FileCheck %s --check-prefix=COOP
// RUN: FileCheck %s --check-prefix=COOP-MANIFEST < %t/manifest.json
// RUN: rm -rf %t && sparcast-aot %S/Inputs/gemm-stages.mlir -o %t --fuse-gemm-stages --report | FileCheck %s --check-prefix=PAIRS
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t --fuse-gemm-stages --gemm-schedule=simple --report | FileCheck %s --check-prefix=SIMPLE

// IKBO multi-stage fusion: the user GEMM runs as stage 1 of the candidate
// GEMM's persistent kernel. One GEMM launch (after the two weight copies),
// its report says both stages and the flags.
// CHECK: lce.mlir:16: GEMM stages fused: the GEMM at lce.mlir:16 runs as stage 1 of this GEMM's kernel
// CHECK: lce.mlir:16: the GEMM at lce.mlir:16 runs as stage 1 of this GEMM's kernel, readiness flags in ws3 (zeroed per call)
// CHECK: kernel lce_gemm2: 433x256x872 f16, warp-specialized persistent, ping-pong: {{.*}}; the epilogue's gathered operand {{.*}} in 64x32 f32 subtiles {{.*}}; multi-stage: first the 433x256x1184 GEMM's tiles (stage 1, ascending, 19 k-tiles, epilogue stored from registers), then this GEMM's (stage 2, descending)
// CHECK-NOT: kernel lce_gemm
// CHECK-NOT: C7508
// CHECK-NOT: C7520
// CHECK: Compiling entry function 'lce_gemm2' for 'sm_90a'
// CHECK: 0 bytes spill stores, 0 bytes spill loads

// Stage 1 publishes each tile with a release add; stage 2 polls relaxed,
// then acquires; named barriers hand the order on within the warpgroup.
// PTX: .entry lce_gemm2(
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: red.release.gpu.global.add.u32
// PTX-DAG: ld.relaxed.gpu.global.b32
// PTX-DAG: ld.acquire.gpu.global.b32
// PTX-DAG: bar.sync {{.*}}, 128;
// PTX-DAG: st.global.v2.b32
// PTX-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// Stage 1's result tile is prefetched by TMA in a stage-2 tile once its
// flag is acquired, stage 1's stores ordered before the TMA's reads.
// PXPTX: ld.acquire.gpu.global.b32
// PXPTX: fence.proxy.async.global;
// PXPTX: cp.async.bulk.tensor.3d.shared::cluster.global

// The kernel takes stage 2's maps and memrefs, the map of stage 1's result
// for the prefetch (bounded by U, its own batch), then stage 1's A and B
// maps, its result and the flags: U * 7 tiles (64-row ping-pong tiles of
// 433 rows, one 256-column tile), zeroed by the runtime on every call. (The
// order is the kernel's signature: sparcast-aot refuses a launch whose
// parameters disagree with it.)
// MANIFEST: "kernel": "lce_gemm2",
// MANIFEST: "tensor": "ws2"
// MANIFEST: "tensor": "arg2"
// MANIFEST: "tensor": "result0"
// MANIFEST: "tensor": "ws1"
// MANIFEST: "tensor": "arg3"
// MANIFEST: "tensor": "result0"
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "box": [
// MANIFEST-NEXT: 32,
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 1
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "dims": [
// MANIFEST-NEXT: 256,
// MANIFEST-NEXT: 433,
// MANIFEST-NEXT: "U"
// MANIFEST: "tensor": "ws1"
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST: "tensor": "ws0"
// MANIFEST: "tensor": "arg1"
// MANIFEST: "tensor": "ws1"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "ws3"
// MANIFEST: "workspace": [
// MANIFEST: "name": "ws3",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "U*7"
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "zero_init": true

// Cooperative: 128-row tiles, both consumer warpgroups add to a tile's flag.
// COOP: GEMM stages fused
// COOP: kernel lce_gemm2: {{.*}}cooperative{{.*}}; multi-stage
// COOP: 0 bytes spill stores, 0 bytes spill loads
// COOP-MANIFEST: "name": "ws3",
// COOP-MANIFEST-NEXT: "shape": [
// COOP-MANIFEST-NEXT: "U*4"

// What the fusion refuses, and why; a dependency computed from two
// epilogue operands is fine.
// (Remarks of different functions may come in any order.)
// PAIRS-DAG: gemm-stages.mlir:12: GEMM stages not fused: the first GEMM's result has uses other than the second GEMM's epilogue
// PAIRS-DAG: gemm-stages.mlir:32: GEMM stages not fused: the batch index read from the first GEMM's result depends on the accumulator, the row or the column
// PAIRS-DAG: gemm-stages.mlir:53: GEMM stages fused: the GEMM at gemm-stages.mlir:52 runs as stage 1
// PAIRS: kernel also_returned_gemm0:
// PAIRS: kernel also_returned_gemm1:
// PAIRS: kernel row_dependent_gemm0:
// PAIRS: kernel row_dependent_gemm1:
// PAIRS: kernel gather_offset_gemm0: {{.*}}multi-stage
// PAIRS-NOT: kernel gather_offset_gemm

// The simple schedule is not persistent: nothing to fuse into.
// SIMPLE: GEMM stages not fused: both GEMMs need the same warp-specialized schedule, got simple and simple
