// RUN: sparcast-opt %s --sc-lower-to-sck --sc-persistent --sc-multicast=shared-rhs-only=1 --sc-warp-specialize --sc-prefetch-epilogue-operands --sc-schedule-wgmma --sc-test-gemm-kernel | FileCheck %s
// RUN: sparcast-opt %s --sc-lower-to-sck --sc-persistent --sc-warp-specialize --sc-prefetch-epilogue-operands --sc-schedule-wgmma --sc-test-gemm-kernel | FileCheck %s --check-prefix=ALONE

// The transposed tile (out[b]^T = E[b]^T W^T, 152 rows m x 128 columns n a
// consumer) from its kernel-level IR: W's box of 152 rows x 64 k (in CTA
// pairs on pairs of N tiles, each CTA's 80-row half multicast to both, the
// full barrier expecting E's 16 KB and both halves), E's two 64 x 64 boxes
// a slot; two m64n152k16 accumulators with E read MN-major and W K-major
// (both layout col); the f32 request tile prefetched in chunks of 32 rows
// m (four 32 x 32 boxes, 16 KB, into one of the consumer's two C buffers),
// the first two at the tile's start; the epilogue chunk by chunk, each
// element through the epilogue function (which takes the box's element)
// into 8-row staging boxes stored by TMA: 8 a chunk of 32 rows, 6 for the
// last one of 24 (38 a tile).
// CHECK-LABEL: gpu.func @gather_add_gemm0
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: builtin.unrealized_conversion_cast %arg0 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<80x64xf16, 3>
// CHECK: builtin.unrealized_conversion_cast %arg1 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xf16, 3>
// CHECK: builtin.unrealized_conversion_cast %arg5 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x8x64xf16, 3>
// CHECK: builtin.unrealized_conversion_cast %arg6 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x32x32xf32, 3>
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c36864
// CHECK: nvgpu.tma.async.load {{.*}} to %{{.*}} multicast_mask = %{{.*}} : {{.*}}memref<80x64xf16, 3>
// CHECK-COUNT-2: nvgpu.tma.async.load {{.*}}memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.setmaxregister increase 232
// CHECK: memref.load %arg4[
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c16384
// CHECK-COUNT-4: nvgpu.tma.async.load {{.*}}memref<1x32x32xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 152, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <col>], B[<f16>, <one>, <col>]
// CHECK: nvvm.inline_ptx "{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; mbarrier.arrive.shared::cluster.b64 _, [ra]; }"
// CHECK: func.call @gather_add_gemm0_epilogue(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (f32, index, index, index, f32) -> f16
// CHECK-COUNT-8: nvgpu.tma.async.store {{.*}} : memref<1x8x64xf16, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func private @gather_add_gemm0_epilogue(
// CHECK-NOT: gather_add_gemm0_dependency
// Alone (no sc-multicast): W's whole 152-row box by each CTA, no cluster.
// ALONE-LABEL: gpu.func @gather_add_gemm0
// ALONE-NOT: cluster_dim
// ALONE: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c35840
// ALONE: nvgpu.tma.async.load {{.*}}memref<152x64xf16, #gpu.address_space<workgroup>>
// ALONE-NOT: multicast_mask
// ALONE: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 152, k = 16>
func.func @gather_add(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>,
                      %r: tensor<?x433x256xf32>, %idx: tensor<?xi32>)
    -> tensor<?x433x256xf16> {
  %0 = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : tensor<?x433x256xf32>, tensor<?xi32>) {sc.gemm_schedule = #sc.gemm_schedule<transposed>}
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
