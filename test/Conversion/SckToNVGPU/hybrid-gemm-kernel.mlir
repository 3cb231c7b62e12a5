// RUN: sparcast-opt %s --sc-lower-to-sck --sc-warp-specialize --sc-schedule-wgmma --sc-test-hybrid-gemm-kernel | FileCheck %s

// The hybrid-tiled GEMM's kernel, lowered from its warp-specialized
// kernel-level IR by sc-convert-sck-to-nvgpu (SckHybridToNVGPU.cpp, a
// pattern per op); per sck op what it becomes:
// - the kernel: the tokens' and W's three tensor maps, the kind and slot
//   tables, the result; two CTAs an SM (small token tiles);
// - sck.ring: full (one arrival: the producer's expect_tx) and empty (four:
//   the consumer's warps) mbarriers, one per slot;
// - sck.put: wait for a free slot, expect its bytes (the tokens' two 8 x 64
//   boxes: 2048), a TMA load per 128-byte-wide part of each box;
// - sck.hybrid_tile: the kind (zero-extended) and slot from the tables;
// - sck.get: wait for the next full slot;
// - sck.mma: eight wgmma m64n8k16 (the dense tile's 128 k), one group left
//   in flight (the one before waited for);
// - sck.mma_sp: four sparse wgmma m64n8k32 (inline PTX: no NVVM op), each
//   with this thread's metadata word gathered from two rows' words;
// - sck.release: lane 0 of each consumer warp arrives on the slot's empty
//   barrier, after the wait for the k-tile's MMAs (sc-schedule-wgmma);
// - sck.epilogue: each accumulator register stored transposed inside the
//   result.
// CHECK: gpu.func @linear_gemm0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[KINDS:.*]]: memref<2x2xi8>, %[[SLOTS:.*]]: memref<2x2xi32>, %[[C:.*]]: memref<?x5x128xf32>)
// CHECK-SAME: nvvm.minctasm = 2
// CHECK: nvgpu.mbarrier.init %[[FULL:.*]][%{{.*}}], %c1
// CHECK: nvgpu.mbarrier.init %[[EMPTY:.*]][%{{.*}}], %c4
// Producer: the tokens' box, then the tile's kind and its boxes.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c2048
// CHECK-COUNT-2: nvgpu.tma.async.load %{{.*}} : <tensor = memref<1x8x64xf16, 3>, swizzle = swizzle_128b
// CHECK: memref.load %[[KINDS]]
// CHECK: arith.extui
// CHECK: memref.load %[[SLOTS]]
// CHECK: scf.index_switch
// CHECK: case 1 {
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c16384
// CHECK-COUNT-2: nvgpu.tma.async.load %{{.*}} : <tensor = memref<1x64x64xf16, 3>, swizzle = swizzle_128b
// CHECK: case 2 {
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c9216
// CHECK: nvgpu.tma.async.load %{{.*}} : <tensor = memref<1x64x64xf16, 3>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.async.load %{{.*}} : <tensor = memref<1x64x4xi32, 3>, swizzle = none
// Consumer.
// CHECK: llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK: scf.index_switch
// CHECK: case 1 {
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 8, k = 16>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: case 2 {
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .pred p; setp.ne.b32 p, $7, 0; wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {$0, $1, $2, $3}, $4, $5, $6, 0, p, 1, 1, 0, 0; }"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: default {
// The wait for the k-tile's MMAs, then its slots: the tokens', then its
// weight ring's.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.mbarrier.arrive %[[EMPTY]]
// CHECK: scf.index_switch
// CHECK: nvgpu.mbarrier.arrive
// CHECK: scf.if
// CHECK: llvm.extractvalue
// CHECK: memref.store %{{.*}}, %[[C]]
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @linear(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf32> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf32>
  return %y : tensor<?x5x128xf32>
}
