// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config=schedule=pingpong -sc-lower-to-sck -sc-persistent -sc-warp-specialize -sc-prefetch-epilogue-operands -sc-schedule-wgmma -sc-test-gemm-kernel | FileCheck %s --check-prefixes=CHECK,PP
// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config=schedule=cooperative -sc-lower-to-sck -sc-persistent -sc-warp-specialize -sc-prefetch-epilogue-operands -sc-schedule-wgmma -sc-test-gemm-kernel | FileCheck %s --check-prefixes=CHECK,COOP
// RUN: not sparcast-opt %s -split-input-file -sc-test-gemm-kernel=schedule=fastest 2>&1 | FileCheck %s --check-prefix=BAD

// The warp-specialized persistent kernels, written from the kernel-level
// IR (sc-lower-to-sck, sc-persistent, sc-warp-specialize,
// sc-prefetch-epilogue-operands) op by op: warpgroup 2 produces (TMA into
// the ring, full/empty mbarriers), warpgroups 0 and 1 consume (wgmma as two
// 64x128 accumulators, the epilogue on the registers, TMA stores).
// BAD: error: unknown GEMM schedule 'fastest', expected auto, cooperative, pingpong or transposed
// CHECK-LABEL: gpu.func @gather_add_gemm0(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<?x200x136xf16>, %{{.*}}: memref<?x200x136xf32>, %{{.*}}: memref<?xi32>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// The role index comes from lane 0, so ptxas sees it warp-uniform.
// CHECK: gpu.shuffle  idx
// COOP: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// PP: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvgpu.mbarrier.try_wait.parity
// COOP: nvgpu.tma.async.load {{.*}} -> memref<128x64xf16, #gpu.address_space<workgroup>>
// PP: nvgpu.tma.async.load {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.setmaxregister  increase 232
// Ping-pong: wait for the other consumer's turn, give it back after the
// wgmma are issued.
// PP: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// The gathered f32 operand: its first two 64 x 32 subtiles loaded by TMA
// at the tile's start, under its wgmma.
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: nvgpu.tma.async.load {{.*}} -> memref<1x64x32xf32, #gpu.address_space<workgroup>>
// The first k-tile is peeled: its first wgmma of each half ignores the
// accumulator. B is N-major (wgmma "row" layout).
// CHECK: llvm.mlir.undef : !llvm.struct<(f32,
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvgpu.mbarrier.arrive
// PP: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// Epilogue: wait until TMA has read the staging tile, registers ->
// epilogue -> staging, proxy fence, TMA store; the operand's values read
// from its subtiles and given to the epilogue function as an argument.
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: vector.load {{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: llvm.extractvalue
// CHECK: func.call @gather_add_gemm0_epilogue({{.*}}) : (f32, index, index, index, f32) -> f16
// CHECK: vector.store {{.*}} : memref<4096xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvgpu.tma.async.store {{.*}} : memref<1x64x64xf16, #gpu.address_space<workgroup>> -> <tensor = memref<1x64x64xf16, 3>
// CHECK: nvvm.cp.async.bulk.commit.group
// Before exit, the stores are waited for completely.
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
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

// An f32 result: 32-column boxes of 128 bytes, and 3 ring slots next to the
// larger staging tiles.
// CHECK-LABEL: gpu.func @f32_out_gemm0(
// CHECK: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = {{3|4}}>
// CHECK: vector.store {{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: nvgpu.tma.async.store {{.*}} : memref<1x64x32xf32, #gpu.address_space<workgroup>>
func.func @f32_out(%a: tensor<?x96x64xbf16>, %b: tensor<?x64x256xbf16>) -> tensor<?x96x256xf32> {
  %c = sc.batch_matmul %a, %b : tensor<?x96x64xbf16>, tensor<?x64x256xbf16> -> tensor<?x96x256xf32>
  return %c : tensor<?x96x256xf32>
}

// -----

// An f32 division the epilogue marks fastmath<afn> runs as div.full.f32
// (llvm.nvvm.div.full: full range, within 2 ulp); a plain one stays the
// IEEE arith.divf.
// CHECK-LABEL: func.func private @scaled_gemm0_epilogue(
// CHECK: %[[D:.*]] = memref.load
// CHECK: %[[Q:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.*}}, %[[D]]) : (f32, f32) -> f32
// CHECK: arith.divf %[[Q]], %[[D]] : f32
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @scaled(%a: tensor<?x96x64xbf16>, %b: tensor<?x64x256xbf16>, %d: tensor<256xf32>) -> tensor<?x96x256xf32> {
  %c = sc.batch_matmul %a, %b epilogue_ins(%d : tensor<256xf32>)
      : tensor<?x96x64xbf16>, tensor<?x64x256xbf16> -> tensor<?x96x256xf32> {
  ^bb0(%acc: f32, %bi: index, %m: index, %n: index, %dt: tensor<256xf32>):
    %v = tensor.extract %dt[%n] : tensor<256xf32>
    %q = arith.divf %acc, %v fastmath<afn> : f32
    %r = arith.divf %q, %v : f32
    sc.yield %r : f32
  }
  return %c : tensor<?x96x256xf32>
}

// -----

// A transposed rhs [N, K] (x @ w^T) is K-major: wgmma "col" layout for B,
// loads at [k, n].
// CHECK-LABEL: gpu.func @linear_gemm0(
// CHECK: nvgpu.tma.async.load %{{.*}}[%[[K:.*]], %{{.*}}], {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
func.func @linear(%x: tensor<?x100x64xf16>, %w: tensor<256x64xf16>) -> tensor<?x100x256xf16> {
  %c = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x100x64xf16>, tensor<256x64xf16> -> tensor<?x100x256xf16>
  return %c : tensor<?x100x256xf16>
}

// -----

// Flat rows: a batched lhs with a shared rhs is one GEMM of B x 100 rows
// (2-D maps for x and the result, tiles over ceil(B * 100 / tile) rows);
// the epilogue still gets the batch element and row of each flat row, and
// reads its batched operand there.
// CHECK-LABEL: gpu.func @residual_gemm0(
// CHECK: %[[B:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x100x256xf16>
// CHECK: %[[ROWS:.*]] = arith.muli %[[B]], %[[PER:.*]] : index
// CHECK: arith.ceildivui %[[ROWS]], %{{.*}} : index
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], {{.*}} -> memref<{{64|128}}x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[B2:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x100x256xf16>
// CHECK: %[[ALL:.*]] = arith.muli %[[B2]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.subi %[[ALL]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.minui %{{.*}}, %[[LAST]] : index
// CHECK-NEXT: %[[C100:.*]] = arith.constant 100 : index
// CHECK-NEXT: %[[FB:.*]] = arith.divui %[[ROW]], %[[C100]] : index
// CHECK: %[[FM:.*]] = arith.remui %[[ROW]], %{{.*}} : index
// CHECK: func.call @residual_gemm0_epilogue(%{{.*}}, %[[FB]], %[[FM]], %{{.*}}, %{{.*}})
// CHECK: nvgpu.tma.async.store %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: func.func private @residual_gemm0_epilogue(%{{.*}}: f32, %[[EB:.*]]: index, %[[EM:.*]]: index, %[[EN:.*]]: index, %[[R:.*]]: memref<?x100x256xf16>)
// CHECK: memref.load %{{.*}}[%[[EB]], %[[EM]], %[[EN]]] : memref<?x100x256xf16>
func.func @residual(%x: tensor<?x100x64xf16>, %w: tensor<256x64xf16>, %r: tensor<?x100x256xf16>) -> tensor<?x100x256xf16> {
  %c = sc.batch_matmul %x, %w epilogue_ins(%r : tensor<?x100x256xf16>) {transpose_rhs}
      : tensor<?x100x64xf16>, tensor<256x64xf16> -> tensor<?x100x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %rt: tensor<?x100x256xf16>):
    %v = tensor.extract %rt[%b, %m, %n] : tensor<?x100x256xf16>
    %vf = arith.extf %v : f16 to f32
    %s = arith.addf %acc, %vf : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x100x256xf16>
}

// -----

// A gathered epilogue operand in the result's 16-bit type (read only at
// [g(b), m, n]) is prefetched: at each tile's start the warpgroup's elected
// thread computes g(b) = idx[b] from the index and loads the operand's
// first two 64 x 64 subtiles by TMA (on their own barriers); the epilogue
// waits for each, reads each pair's values there and gets them as an
// argument instead of loading them.
// CHECK-LABEL: gpu.func @gather_f16_gemm0(
// CHECK-SAME: %{{.*}}: memref<?x200x136xf16>, %[[IDX:.*]]: memref<?xi32>, %{{.*}}: !llvm.ptr, %[[XP:.*]]: !llvm.ptr) kernel
// CHECK: %[[X:.*]] = builtin.unrealized_conversion_cast %[[XP]]
// CHECK: nvgpu.mbarrier.create
// CHECK: nvgpu.mbarrier.create
// CHECK: %[[CBAR:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: %[[U:.*]] = memref.load %[[IDX]][%{{.*}}] : memref<?xi32>
// CHECK: %[[G:.*]] = arith.index_cast %[[U]] : i32 to index
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[CBAR]][%{{.*}}], %{{.*}} :
// CHECK: nvgpu.tma.async.load %[[X]][%{{.*}}, %{{.*}}, %[[G]]], %[[CBAR]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvgpu.mbarrier.try_wait.parity %[[CBAR]][
// CHECK: %[[C:.*]] = vector.load %{{.*}}[%{{.*}}] : memref<4096xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: %[[CA:.*]] = vector.extract %[[C]][0] : f16 from vector<2xf16>
// CHECK: func.call @gather_f16_gemm0_epilogue(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CA]]) : (f32, index, index, index, f16) -> f16
// CHECK: func.func private @gather_f16_gemm0_epilogue(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[V:.*]]: f16) -> f16
// CHECK-NOT: memref.load
// CHECK: arith.extf %[[V]] : f16 to f32
func.func @gather_f16(%w: tensor<200x72xf16>, %e: tensor<?x72x136xf16>,
                      %user: tensor<?x200x136xf16>, %idx: tensor<?xi32>) -> tensor<?x200x136xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x200x136xf16>, tensor<?xi32>)
      : tensor<200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x200x136xf16>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x200x136xf16>
    %xf = arith.extf %x : f16 to f32
    %s = arith.addf %acc, %xf : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x200x136xf16>
}

// -----

// One N tile of 40 columns: the epilogue runs on columns below 40 only (5
// groups of 8 columns, two rows and two elements a thread each) and one
// 64-column box is stored; the columns past N are neither computed nor
// stored.
// CHECK-LABEL: gpu.func @narrow_gemm0(
// CHECK-COUNT-20: func.call @narrow_gemm0_epilogue(
// CHECK-NOT: func.call @narrow_gemm0_epilogue(
// CHECK: nvgpu.tma.async.store
// CHECK-NOT: nvgpu.tma.async.store
// CHECK: gpu.return
func.func @narrow(%x: tensor<?x100x64xf16>, %w: tensor<64x40xf16>, %bias: tensor<40xf32>) -> tensor<?x100x40xf16> {
  %c = sc.batch_matmul %x, %w epilogue_ins(%bias : tensor<40xf32>)
      : tensor<?x100x64xf16>, tensor<64x40xf16> -> tensor<?x100x40xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<40xf32>):
    %v = tensor.extract %bs[%n] : tensor<40xf32>
    %s = arith.addf %acc, %v : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x100x40xf16>
}

// -----

// A narrow tile (N = 32: 64 columns) with its gathered f32 operand
// prefetched: two 64 x 32 subtiles a tile, one in each buffer, so each
// buffer is filled once a tile and the wait's parity is the consumer's
// count of tiles before (mod 2), not a constant; m64n64 wgmma.
// CHECK-LABEL: gpu.func @narrow_gather_gemm0(
// CHECK-COUNT-2: nvgpu.tma.async.load {{.*}} -> memref<1x64x32xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// (A computed parity, %<number>; a constant one prints as %false.)
// CHECK: nvgpu.mbarrier.try_wait.parity %{{.*}}[%{{[0-9]+}}], %{{[0-9]+}}, %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
func.func @narrow_gather(%w: tensor<64x72xf16>, %e: tensor<?x72x32xf16>,
                         %user: tensor<?x64x32xf32>, %idx: tensor<?xi32>) -> tensor<?x64x32xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x64x32xf32>, tensor<?xi32>)
      : tensor<64x72xf16>, tensor<?x72x32xf16> -> tensor<?x64x32xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x64x32xf32>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x64x32xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x64x32xf16>
}
