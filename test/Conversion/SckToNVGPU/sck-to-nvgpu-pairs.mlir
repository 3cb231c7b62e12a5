// RUN: sparcast-opt %s --sc-lower-to-sck --sc-persistent --sc-multicast --sc-warp-specialize --sc-prefetch-epilogue-operands --sc-schedule-wgmma --sc-test-gemm-kernel | FileCheck %s

// CTA pairs (sc-multicast): the pair's rank, empty barriers counting both
// CTAs' consumer warps (8), the inits fenced and the pair synchronized,
// half of B's box loaded by each CTA into both (multicast mask 3), slots
// freed in the other CTA too (mapa + a cluster-scope arrive), a tile past
// M draining its slots (the warp reconverging after each: racecheck hung
// without it), and the pair synchronized again before it exits.
// CHECK-LABEL: gpu.func @gather_add_gemm0
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c8
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvgpu.tma.async.load {{.*}} multicast_mask = %{{.*}}
// CHECK: nvgpu.tma.async.load {{.*}} multicast_mask = %{{.*}}
// CHECK-NOT: nvgpu.tma.async.load {{.*}} multicast_mask
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.if
// CHECK: nvvm.inline_ptx "{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; mbarrier.arrive.shared::cluster.b64 _, [ra]; }"
// CHECK: nvvm.bar.warp.sync
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return
func.func @gather_add(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>,
                      %r: tensor<?x433x256xf32>, %idx: tensor<?xi32>)
    -> tensor<?x433x256xf16> {
  %0 = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : tensor<?x433x256xf32>, tensor<?xi32>) {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
      : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %req: tensor<?x433x256xf32>, %i: tensor<?xi32>):
    %u32 = tensor.extract %i[%b] : tensor<?xi32>
    %u = arith.index_cast %u32 : i32 to index
    %x = tensor.extract %req[%u, %m, %n] : tensor<?x433x256xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %0 : tensor<?x433x256xf16>
}
