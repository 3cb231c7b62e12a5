// RUN: sparcast-opt %s --sc-lower-to-sck "--sc-multicast=hybrid-pairs=1" --sc-warp-specialize --sc-schedule-wgmma --sc-test-hybrid-gemm-kernel | FileCheck %s

// A hybrid-tiled GEMM's prefill tiles in CTA pairs (sc-multicast
// hybrid-pairs): a cluster of two CTAs on consecutive N tiles, sharing the
// tokens' box. Per op what changes:
// - the kernel: cluster dims (2, 1, 1); the tokens' tensor map boxes of
//   half the token tile (128 of 256 rows);
// - sck.ring: the tokens' empty barriers take both CTAs' consumer warps
//   (2 x 2 consumers x 4 warps), the weight ring's its own (8); the inits
//   fenced and made visible cluster-wide before use; the CTAs meet again
//   before they leave;
// - sck.put of the tokens: this CTA's half of each 64-column part (rows
//   from rank x 128), multicast to both CTAs (mask 3); the weight boxes
//   stay local;
// - sck.release of the tokens: an arrival on this CTA's and on the other
//   CTA's empty barrier (mapa).
// CHECK: gpu.func @prefill_gemm0({{.*}}) kernel attributes {nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: %[[RANK32:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[RANK:.*]] = arith.index_cast %[[RANK32]] : i32 to index
// CHECK: nvgpu.mbarrier.init %[[XFULL:.*]][%{{.*}}], %c1
// CHECK: nvgpu.mbarrier.init %[[XEMPTY:.*]][%{{.*}}], %c16
// CHECK: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c8
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NOT: gpu.barrier
// The producer: the tokens' slot (the whole box expected), this CTA's half.
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[XFULL]][%{{.*}}], %c65536
// CHECK: %[[HALF:.*]] = arith.muli %[[RANK]], %c128
// CHECK: nvgpu.tma.async.load %{{.*}}, %[[XFULL]][%{{.*}}] to %{{.*}} multicast_mask = %c3_i16 : <tensor = memref<1x128x64xf16, 3>
// CHECK: nvgpu.tma.async.load %{{.*}}, %[[XFULL]][%{{.*}}] to %{{.*}} multicast_mask = %c3_i16 : <tensor = memref<1x128x64xf16, 3>
// Weight tiles: local loads.
// CHECK: nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<1x128x64xf16, 3>
// The consumer frees the tokens' slots in both CTAs.
// CHECK: nvgpu.mbarrier.arrive %[[XEMPTY]]
// CHECK-NEXT: nvgpu.mbarrier.get %[[XEMPTY]]
// CHECK-NEXT: nvvm.inline_ptx "{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; mbarrier.arrive.shared::cluster.b64 _, [ra]; }"
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return
#w = #sc.hybrid_tiles<tile = [128, 128], grid = [2, 2], kinds = "">
func.func @prefill(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x128x128xf16>, %sp: tensor<?x128x64xf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x300x256xf16>) -> tensor<?x300x256xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<256x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x300x256xf16>, tensor<256x256xf16, #w> -> tensor<?x300x256xf16>
  return %y : tensor<?x300x256xf16>
}
