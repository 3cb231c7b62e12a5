// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/gemm.mlir -o %t --gemm-schedule=pingpong --ws-group=0 --report | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: FileCheck %s --check-prefix=HEADER < %t/gemm.h
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_gather_add_kernels.ptx

// Keys print sorted (llvm::json). The example compiles into one sm_90a kernel
// (here ping-pong, one CTA per pair of tiles: --ws-group=0); the manifest
// tells the runtime how to launch it for any number of candidates B and
// users U.
// REPORT: kernel gemm_gather_add_gemm0: 433x256x872 f16, warp-specialized, ping-pong: {{.*}} 4 stages, 14 k-tiles, one CTA per pair of tiles, 230656 B shared memory, epilogue fused (region)
// REPORT: wrote

// MANIFEST: "chip": "sm_90a",
// MANIFEST: "name": "arg1",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST: "index_into": "U",
// MANIFEST: "block": [
// MANIFEST-NEXT: 384,
// MANIFEST: "grid": [
// MANIFEST-NEXT: "B*7/2",
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1
// MANIFEST: "kernel": "gemm_gather_add_gemm0",
// MANIFEST: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST: "dims": [
// MANIFEST-NEXT: 872,
// MANIFEST-NEXT: 433
// MANIFEST: "kind": "tma",
// MANIFEST: "dims": [
// MANIFEST-NEXT: 256,
// MANIFEST-NEXT: 872,
// MANIFEST-NEXT: "B"
// MANIFEST: "strides": [
// MANIFEST-NEXT: 512,
// MANIFEST-NEXT: 446464
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "result0"
// MANIFEST: "smem": 230656
// MANIFEST: "format": "sparcast-artifact-2"
// MANIFEST: "ptx": "gemm_gather_add_kernels.ptx"

// HEADER: #include "sparcast/runtime.h"
// HEADER: arg3: i32[B], values in [0, U)
// HEADER: static inline scStatus sc_gemm_gather_add(scModule *m, const scTensor args[4], const scTensor results[1], void *stream)

// PTX: .target sm_90a
// PTX: .visible .entry gemm_gather_add_gemm0(
// The manifest's two tma parameters come first, by value (grid constants).
// PTX-NEXT: .param .align 64 .b8 gemm_gather_add_gemm0_param_0[128],
// PTX-NEXT: .param .align 64 .b8 gemm_gather_add_gemm0_param_1[128],
// PTX-NEXT: .param .u64
// PTX: mbarrier.init.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global{{.*}}mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global{{.*}}mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.fence.sync.aligned
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.wait_group.sync.aligned
// PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
