// RUN: sparcast-opt %S/Inputs/wgmma-pingpong.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.prefetch: the consumer's elected thread loads the gathered
// operand's first two 64 x 32 f32 subtiles (at [n0, m0, idx[b]], the
// index read from the kernel's memref) into its two buffers, under the
// tile's wgmma. sck.epilogue: its region is the device function
// <kernel>_epilogue (acc, b, m, n, the operand's element); per 128-column
// half, once TMA has read the staging tile (the elected thread waits,
// then the warpgroup's named barrier, all 128 threads): each pair of
// accumulator elements with the operand's pair from its subtile (waited
// for on the buffer's barrier) through the function into the
// 128B-swizzled staging tile, a proxy fence, then TMA stores of 64 x 64
// boxes, one commit group.
// CHECK-LABEL: gpu.func @gather_add(
// CHECK: %[[G:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: %[[GI:.*]] = arith.index_cast %[[G]] : i32 to index
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c8192
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %[[GI]]], {{.*}} -> memref<1x64x32xf32, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.load {{.*}} -> memref<1x64x32xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: vector.load {{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: func.call @gather_add_epilogue({{.*}}) : (f32, index, index, index, f32) -> f16
// CHECK: vector.store {{.*}} : memref<4096xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvgpu.tma.async.store {{.*}} : memref<1x64x64xf16, #gpu.address_space<workgroup>> -> <tensor = memref<1x64x64xf16, 3>
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: func.func private @gather_add_epilogue(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f32) -> f16
// CHECK: arith.addf %[[ACC]], %[[X]] : f32
