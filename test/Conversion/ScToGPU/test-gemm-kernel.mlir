// RUN: sparcast-opt %s -split-input-file -sc-test-gemm-kernel=schedule=simple -verify-diagnostics | FileCheck %s

// The Hopper kernel: 2-D tensor map for the shared lhs, 3-D for the batched
// rhs (zero fill past K stays inside the batch element), an mbarrier per
// ring slot, wgmma on the slot, accumulators staged in shared memory, and
// the epilogue region as a device function reading the epilogue operands.
// CHECK-LABEL: func.func @gather_add
// CHECK: sc.batch_matmul {{.*}} {sc.kernel = "gather_add_gemm0"}
// CHECK: gpu.module @gather_add_kernels
// CHECK: gpu.func @gather_add_gemm0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[C:.*]]: memref<?x200x136xf16>, %{{.*}}: memref<?x200x136xf32>, %{{.*}}: memref<?xi32>) kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK: nvgpu.mbarrier.init
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} :
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], {{.*}} -> memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], {{.*}} -> memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<128x128xf32>>
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.warpgroup.generate.descriptor
// CHECK: nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %{{.*}} {transposeB}
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.warpgroup.mma.store {{.*}} to memref<128x128xf32, strided<[136, 1]>, #gpu.address_space<workgroup>>
// CHECK: vector.load {{.*}} : memref<128x136xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK-COUNT-8: func.call @gather_add_gemm0_epilogue
// CHECK: vector.store %{{.*}}, %[[C]][{{.*}}] {alignment = 16 : i64} : memref<?x200x136xf16>, vector<8xf16>
// CHECK: func.func private @gather_add_gemm0_epilogue(%[[ACC:.*]]: f32, %[[B:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index, %[[U:.*]]: memref<?x200x136xf32>, %[[I:.*]]: memref<?xi32>) -> f16
// The runtime's tensors are 16-byte aligned: the epilogue says so, for
// vector loads.
// CHECK: %[[UA:.*]] = memref.assume_alignment %[[U]], 16 : memref<?x200x136xf32>
// CHECK: %[[IA:.*]] = memref.assume_alignment %[[I]], 16 : memref<?xi32>
// CHECK: %[[R:.*]] = memref.load %[[IA]][%[[B]]] : memref<?xi32>
// CHECK: %[[RI:.*]] = arith.index_cast %[[R]] : i32 to index
// CHECK: %[[X:.*]] = memref.load %[[UA]][%[[RI]], %[[M]], %[[N]]] : memref<?x200x136xf32>
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK: %[[H:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK: return %[[H]] : f16
func.func @gather_add(%w: tensor<200x72xf16>, %e: tensor<?x72x136xf16>,
                      %user: tensor<?x200x136xf32>, %idx: tensor<?xi32>) -> tensor<?x200x136xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x200x136xf32>, tensor<?xi32>)
      : tensor<200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x200x136xf32>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x200x136xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x200x136xf16>
}

// -----

// A batched lhs and a shared rhs: the rhs map is 2-D; without a region the
// epilogue only converts.
// CHECK-LABEL: func.func @shared_rhs
// CHECK: gpu.func @shared_rhs_gemm0
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], {{.*}} -> memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK: func.func private @shared_rhs_gemm0_epilogue(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index) -> bf16
// CHECK: arith.truncf %[[ACC]] : f32 to bf16
func.func @shared_rhs(%a: tensor<?x64x128xbf16>, %b: tensor<128x64xbf16>) -> tensor<?x64x64xbf16> {
  %c = sc.batch_matmul %a, %b : tensor<?x64x128xbf16>, tensor<128x64xbf16> -> tensor<?x64x64xbf16>
  return %c : tensor<?x64x64xbf16>
}

// -----

// N >= 256: a 128x256 tile for two warpgroups (64x256 accumulators each, on
// their own rows of the A tile), B loaded as four 64-column boxes, 4 stages.
// CHECK-LABEL: func.func @wide
// CHECK: gpu.func @wide_gemm0
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK-COUNT-5: nvgpu.tma.async.load
// CHECK: nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x256xf32>>
// CHECK: nvgpu.warpgroup.mma {{.*}} : <tensor = memref<64x64xf16, 3>>, <tensor = memref<64x256xf16, 3>>, <fragmented = vector<64x256xf32>>
// CHECK: nvgpu.warpgroup.mma.store {{.*}} : <fragmented = vector<64x256xf32>> to memref<64x256xf32, strided<[264, 1]>, #gpu.address_space<workgroup>>
// CHECK: vector.load {{.*}} : memref<128x264xf32, #gpu.address_space<workgroup>>, vector<8xf32>
func.func @wide(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %w, %e : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  return %c : tensor<?x433x256xf16>
}

// -----

// transpose_rhs: B is K-major ([N, K] rows), loaded in boxes at (k, n) and
// read by wgmma column-major; the wgmma are written out (nvgpu's lowering
// steps B's descriptor for an N-major B only), 8 a k-tile: two 64-row
// blocks of the one warpgroup's 128 rows, four k16 steps each.
// CHECK-LABEL: func.func @transposed
// CHECK: gpu.func @transposed_gemm0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<?x16x24xf32>) kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK: nvgpu.tma.async.load
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvgpu.warpgroup.mma.store
func.func @transposed(%a: tensor<?x16x32xf16>, %b: tensor<?x24x32xf16>) -> tensor<?x16x24xf32> {
  %c = sc.batch_matmul %a, %b {transpose_rhs} : tensor<?x16x32xf16>, tensor<?x24x32xf16> -> tensor<?x16x24xf32>
  return %c : tensor<?x16x24xf32>
}

// -----

// What the Hopper path does not take goes to the portable kernel, with a
// remark saying why.
// CHECK-LABEL: func.func @unaligned_k
// CHECK: gpu.func @unaligned_k_gemm0
// CHECK-NOT: nvgpu.
func.func @unaligned_k(%a: tensor<16x13xf16>, %b: tensor<?x13x24xf16>) -> tensor<?x16x24xf16> {
  // expected-remark @+1 {{using the portable GEMM path: TMA needs 16-byte aligned rows: K (13) and N (24) must be multiples of 8 (pad K with sc-pad-k)}}
  %c = sc.batch_matmul %a, %b : tensor<16x13xf16>, tensor<?x13x24xf16> -> tensor<?x16x24xf16>
  return %c : tensor<?x16x24xf16>
}

// -----

// CHECK-LABEL: func.func @f32_operands
// CHECK: gpu.func @f32_operands_gemm0
func.func @f32_operands(%a: tensor<16x8xf32>, %b: tensor<?x8x24xf32>) -> tensor<?x16x24xf32> {
  // expected-remark @+1 {{using the portable GEMM path: wgmma takes f16/bf16 operands here, got f32}}
  %c = sc.batch_matmul %a, %b : tensor<16x8xf32>, tensor<?x8x24xf32> -> tensor<?x16x24xf32>
  return %c : tensor<?x16x24xf32>
}

// -----

func.func @dynamic_rows(%a: tensor<?x8xf16>, %b: tensor<?x8x24xf16>) -> tensor<?x?x24xf16> {
  // expected-error @+1 {{the GEMM lowering needs static M, N, K}}
  %c = sc.batch_matmul %a, %b : tensor<?x8xf16>, tensor<?x8x24xf16> -> tensor<?x?x24xf16>
  return %c : tensor<?x?x24xf16>
}

// -----

func.func @epilogue_with_region(%a: tensor<16x8xf16>, %b: tensor<?x8x24xf16>, %t: tensor<24xf32>) -> tensor<?x16x24xf32> {
  %c = sc.batch_matmul %a, %b epilogue_ins(%t : tensor<24xf32>) : tensor<16x8xf16>, tensor<?x8x24xf16> -> tensor<?x16x24xf32> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %x: tensor<24xf32>):
    // expected-error @+1 {{'tensor.empty' is not supported in a GPU epilogue}}
    %e = tensor.empty() : tensor<2xf32>
    sc.yield %acc : f32
  }
  return %c : tensor<?x16x24xf32>
}
