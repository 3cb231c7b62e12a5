// RUN: sparcast-opt %s --sc-lower-to-sck --sc-persistent --sc-warp-specialize --sc-prefetch-epilogue-operands --sc-test-gemm-kernel="kernel-from-ir=1" | FileCheck %s --check-prefix=PREFETCH
// RUN: sparcast-opt %s --sc-lower-to-sck --sc-persistent --sc-multicast --sc-warp-specialize --sc-prefetch-epilogue-operands --sc-test-gemm-kernel="kernel-from-ir=1" | FileCheck %s --check-prefix=PAIRS

// sck-to-nvgpu with a prefetched box (sc-prefetch-epilogue-operands): the
// index read at the tile's start, subtiles 0 and 1 of the request tile
// loaded by TMA into the consumer's two buffers (their own mbarriers, one
// TMA arrival each, 8 KB expected), the k loop, then in the epilogue each
// subtile waited for, each pair of its elements read with one vector load,
// and, once the warpgroup read it, the next subtile loaded; the epilogue
// function takes the box's element (f32), not the tensor.
// PREFETCH-LABEL: gpu.func @gather_add_gemm0
// PREFETCH: nvgpu.mbarrier.create
// PREFETCH: nvgpu.mbarrier.create
// PREFETCH: %[[XB:.*]] = nvgpu.mbarrier.create
// PREFETCH-COUNT-4: nvgpu.mbarrier.init %[[XB]][%{{.*}}], %c1
// PREFETCH: nvvm.setmaxregister increase 232
// PREFETCH: memref.load %arg4[
// PREFETCH: nvgpu.mbarrier.arrive.expect_tx %[[XB]][%{{.*}}], %c8192{{(_[0-9]+)?}} 
// PREFETCH: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %[[XB]][%{{.*}}] to %{{.*}} : {{.*}}memref<1x64x32xf32
// PREFETCH: nvgpu.mbarrier.arrive.expect_tx %[[XB]][%{{.*}}], %c8192{{(_[0-9]+)?}} 
// PREFETCH: nvvm.wgmma.mma_async
// PREFETCH: nvgpu.mbarrier.try_wait.parity %[[XB]]
// PREFETCH: vector.load %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// PREFETCH: func.call @gather_add_gemm0_epilogue(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (f32, index, index, index, f32) -> f16
// PREFETCH: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// PREFETCH: nvgpu.mbarrier.arrive.expect_tx %[[XB]]
// PREFETCH-LABEL: func.func private @gather_add_gemm0_epilogue(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: f32) -> f16
// PREFETCH-NOT: gather_add_gemm0_dependency

// CTA pairs (sc-multicast): the pair's rank, empty barriers counting both
// CTAs' consumer warps (8), the inits fenced and the pair synchronized,
// half of B's box loaded by each CTA into both (multicast mask 3), slots
// freed in the other CTA too (mapa + a cluster-scope arrive), a tile past
// M draining its slots, and the pair synchronized again before it exits.
// PAIRS-LABEL: gpu.func @gather_add_gemm0
// PAIRS: nvvm.read.ptx.sreg.cluster.ctarank
// PAIRS: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c8
// PAIRS: nvvm.fence.mbarrier.init
// PAIRS-NEXT: nvvm.cluster.arrive
// PAIRS-NEXT: nvvm.cluster.wait
// PAIRS: nvgpu.tma.async.load {{.*}} multicast_mask = %{{.*}}
// PAIRS: nvgpu.tma.async.load {{.*}} multicast_mask = %{{.*}}
// PAIRS-NOT: nvgpu.tma.async.load {{.*}} multicast_mask
// PAIRS: nvvm.setmaxregister increase 232
// PAIRS: scf.if
// PAIRS: nvvm.inline_ptx "{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; mbarrier.arrive.shared::cluster.b64 _, [ra]; }"
// PAIRS: nvvm.cluster.arrive
// PAIRS-NEXT: nvvm.cluster.wait
// PAIRS-NEXT: gpu.return
func.func @gather_add(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>,
                      %r: tensor<?x433x256xf32>, %idx: tensor<?xi32>)
    -> tensor<?x433x256xf16> {
  %0 = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : tensor<?x433x256xf32>, tensor<?xi32>) {sc.gemm_schedule = "pingpong"}
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
