// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/gemm.mlir -o %t --gemm-schedule=warp-specialized --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_gather_add_kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json

// The warp-specialized persistent schedule: a producer warpgroup gives its
// registers to two consumer warpgroups (setmaxnreg), slots are handed over
// with full/empty mbarriers, consumers sync on named barrier 1, and the
// grid is the device's SM count. ptxas: no spills, no setmaxnreg warning.
// CHECK: kernel gemm_gather_add_gemm0: 433x256x872 f16, warp-specialized persistent: producer warpgroup (TMA, 40 registers) + 2 consumer warpgroups (wgmma + epilogue, 232 registers), tile 128x256x64, 3 stages, 14 k-tiles, one CTA per SM walking tiles n, m, batch
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7508
// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG: mbarrier.arrive.shared.b64
// PTX-DAG: bar.sync {{.*}}1, 256;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// MANIFEST: "block": [
// MANIFEST-NEXT: 384,
// MANIFEST: "grid": [
// MANIFEST-NEXT: "SMS",
