// RUN: sparcast-opt %s --sc-lower-to-sck --sc-persistent --sc-warp-specialize --sc-schedule-wgmma --sc-test-gemm-kernel | FileCheck %s
// RUN: sparcast-opt %s --sc-lower-to-sck --sc-persistent --sc-warp-specialize="producer-regs=24 consumer-regs=240 stages=3" --sc-schedule-wgmma --sc-test-gemm-kernel | FileCheck %s --check-prefix=TUNED

// sck-to-nvgpu: the GEMM's kernel written op by op from its kernel-level
// IR. The ring: full and empty mbarriers (one arrival by TMA, four by the
// consumer's warps); the producer role: setmaxnreg down, one thread
// walking this CTA's tiles, a put per k-tile (wait for the slot to be
// free, expect its bytes, TMA loads of A's box and B's four 64-column
// boxes); the consumer role: setmaxnreg up, tiles w, w + 2, ... (ping-pong)
// with turns (named barriers 5 - w / 4 + w), the first k-tile peeled
// (wgmma ignoring the accumulator), each get a wait for the full slot and
// each mma eight m64n128k16 wgmma in a commit group with one left in
// flight, the slot released one k-tile later; the epilogue converts into
// the staging tile and stores by TMA.
// CHECK-LABEL: gpu.func @pingpong_gemm0
// CHECK: nvgpu.mbarrier.init %[[FULL:.*]][%{{.*}}], %c1
// CHECK: nvgpu.mbarrier.init %[[EMPTY:.*]][%{{.*}}], %c4
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c40960
// CHECK-COUNT-5: nvgpu.tma.async.load
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.barrier id
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-COUNT-7: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.arrive %[[EMPTY]]
// CHECK: nvvm.barrier.arrive
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.fence.proxy
// CHECK: nvgpu.tma.async.store
// TUNED: nvvm.setmaxregister decrease 24
// TUNED: nvvm.setmaxregister increase 240
func.func @pingpong(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>) -> tensor<?x433x256xf16> {
  %0 = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  return %0 : tensor<?x433x256xf16>
}
