// RUN: sparcast-opt %s --sc-lower-to-sck --sc-persistent --sc-warp-specialize --sc-prefetch-epilogue-operands --sc-schedule-wgmma --sc-test-gemm-kernel | FileCheck %s

// sck-to-nvgpu with a prefetched box (sc-prefetch-epilogue-operands): the
// index read at the tile's start, subtiles 0 and 1 of the request tile
// loaded by TMA into the consumer's two buffers (their own mbarriers, one
// TMA arrival each, 8 KB expected), the k loop, then in the epilogue each
// subtile waited for, each pair of its elements read with one vector load,
// and, once the warpgroup read it, the next subtile loaded; the epilogue
// function takes the box's element (f32), not the tensor.
// CHECK-LABEL: gpu.func @gather_add_gemm0
// CHECK: nvgpu.mbarrier.create
// CHECK: nvgpu.mbarrier.create
// CHECK: %[[XB:.*]] = nvgpu.mbarrier.create
// CHECK-COUNT-4: nvgpu.mbarrier.init %[[XB]][%{{.*}}], %c1
// CHECK: nvvm.setmaxregister increase 232
// CHECK: memref.load %arg4[
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[XB]][%{{.*}}], %c8192{{(_[0-9]+)?}} 
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %[[XB]][%{{.*}}] to %{{.*}} : {{.*}}memref<1x64x32xf32
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[XB]][%{{.*}}], %c8192{{(_[0-9]+)?}} 
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvgpu.mbarrier.try_wait.parity %[[XB]]
// CHECK: vector.load %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: func.call @gather_add_gemm0_epilogue(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (f32, index, index, index, f32) -> f16
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[XB]]
// CHECK-LABEL: func.func private @gather_add_gemm0_epilogue(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: f32) -> f16
// CHECK-NOT: gather_add_gemm0_dependency

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
