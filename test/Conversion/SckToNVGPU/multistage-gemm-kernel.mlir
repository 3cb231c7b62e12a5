// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config=chip=sm_80 -sc-lower-to-sck=multistage-tile-cols=128 -sc-pipeline-multistage -sc-test-gemm-kernel=chip=sm_80 | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config=chip=sm_89 -sc-lower-to-sck=multistage-tile-cols=128 -sc-pipeline-multistage -sc-test-gemm-kernel=chip=sm_89 | FileCheck %s --check-prefix=ADA

// sm_80's GEMM written from its kernel-level IR (the multistage schedule,
// pipelined by sc-pipeline-multistage, lowered by
// sc-convert-sck-to-mma-sync): 128 threads (4 warps of 64 x 64) a 128 x
// 128 tile; the ring in dynamic shared memory; k-tiles 0 and 1 put before
// the k loop by cp.async (16-byte chunks, zero-filled past the operands:
// source size 0), a commit group each; per k-tile the wait for its group
// (at most one pending), a barrier, the put of k-tile t + 2, then per
// 16-deep step A's fragments by ldmatrix (rows), an N-major B's by
// ldmatrix .trans (col layout) and mma.sync m16n8k16 with fp32
// accumulation; the epilogue (a device function from the IR's region) two
// columns a store; every copy landed before the kernel returns.
// CHECK-LABEL: gpu.func @bias_relu_gemm0(
// CHECK-SAME: %[[A:.*]]: memref<?x200x72xf16>, %[[B:.*]]: memref<?x72x136xf16>, %[[C:.*]]: memref<?x200x136xf32>, %[[BIAS:.*]]: memref<136xf32>) kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK: gpu.dynamic_shared_memory
// CHECK: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[SIZE:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"
// CHECK: scf.yield
// CHECK: func.call @bias_relu_gemm0_epilogue(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]])
// CHECK: vector.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<?x200x136xf32>, vector<2xf32>
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.return
// CHECK: func.func private @bias_relu_gemm0_epilogue(
// ADA-LABEL: gpu.func @bias_relu_gemm0(
// ADA: mma.sync.aligned.m16n8k16
func.func @bias_relu(%a: tensor<?x200x72xf16>, %b: tensor<?x72x136xf16>, %bias: tensor<136xf32>) -> tensor<?x200x136xf32> {
  %c = sc.batch_matmul %a, %b epilogue_ins(%bias : tensor<136xf32>)
      : tensor<?x200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf32> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bs: tensor<136xf32>):
    %x = tensor.extract %bs[%n] : tensor<136xf32>
    %s = arith.addf %acc, %x : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    sc.yield %r : f32
  }
  return %c : tensor<?x200x136xf32>
}

// -----

// A K-major B (x @ w^T) is read by ldmatrix without .trans; a batched lhs
// times a shared rhs runs over the rows of all batch elements (flat rows:
// the row count from the batch, row r of element r / M), bf16 operands.
// CHECK-LABEL: gpu.func @linear_gemm0(
// CHECK: %[[BATCH:.*]] = memref.dim %{{.*}}, %c0 : memref<?x300x128xbf16>
// CHECK: arith.muli %[[BATCH]], %c300
// CHECK-NOT: layout = #nvvm.mma_layout<col>
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: arith.divui %{{.*}}, %c300
// CHECK: arith.remui %{{.*}}, %c300
// CHECK: vector.store {{.*}} : memref<?x300x512xbf16>, vector<2xbf16>
func.func @linear(%x: tensor<?x300x128xbf16>, %w: tensor<512x128xbf16>) -> tensor<?x300x512xbf16> {
  %c = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x300x128xbf16>, tensor<512x128xbf16> -> tensor<?x300x512xbf16>
  return %c : tensor<?x300x512xbf16>
}
