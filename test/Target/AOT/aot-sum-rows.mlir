// RUN: rm -rf %t && sparcast-aot %s -o %t/hopper --report 2>&1 | FileCheck %s --check-prefix=HOPPER
// RUN: FileCheck %s --check-prefix=HOPPER-PTX < %t/hopper/sum_f16_kernels.ptx
// RUN: FileCheck %s --check-prefix=PORTABLE-PTX < %t/hopper/sum_f32_kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/hopper/manifest.json
// RUN: sparcast-aot %s -o %t/ampere --sm=sm_80 --report 2>&1 | FileCheck %s --check-prefix=AMPERE
// RUN: FileCheck %s --check-prefix=AMPERE-PTX < %t/ampere/sum_f16_kernels.ptx
// RUN: sparcast-aot %sparcast_src_root/test/Integration/CPU/fuse-row-sum.mlir -o %t/pooled --fuse-row-sum --report 2>&1 | FileCheck %s --check-prefix=POOLED
// RUN: sparcast-aot %sparcast_src_root/test/Integration/CPU/fuse-row-sum.mlir -o %t/pooled-default --report 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: sparcast-aot %sparcast_src_root/test/Integration/CPU/sum-rows-first.mlir -o %t/first --sum-rows-first --report 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: sparcast-aot %sparcast_src_root/test/Integration/CPU/sum-rows-first.mlir -o %t/first80 --sm=sm_80 --sum-rows-first --report 2>&1 | FileCheck %s --check-prefix=FIRST80

// --sum-rows-first: the pooled LCE's weights' rows summed per call (a
// reduction kernel, then the hi + lo split) and each GEMM a 2-row product
// summing its two rows, on sm_90a and sm_80; the request part's row sums
// added once by the candidate GEMM.
// FIRST: kernel pooled_lce_generic0: linalg.generic (2 loops, 1 reduced)
// FIRST: kernel pooled_lce_generic1: linalg.generic (2 loops)
// FIRST: kernel pooled_lce_gemm2: 2x16x24 bf16, warp-specialized{{.*}}rows summed
// FIRST: kernel pooled_lce_gemm5: 2x16x40 bf16, warp-specialized{{.*}}rows summed
// FIRST: kernel pooled_wide_gemm2: 2x24x1024 bf16, warp-specialized{{.*}}rows summed
// FIRST-NOT: {{[1-9][0-9]*}} bytes spill stores
// FIRST80: kernel pooled_lce_gemm2: 2x16x24 bf16, multistage
// FIRST80: kernel pooled_lce_gemm5: 2x16x40 bf16, multistage
// FIRST80: kernel pooled_wide_gemm2: 2x24x1024 bf16, multistage

// A GEMM whose rows are summed (sc-fuse-row-sum's form: a mean pooling's
// sum in the GEMM) is never stored: every kernel adds each column's sums
// of its rows into the result's one f32 row, zeroed before every call.
// sm_90a: the warp-specialized kernel (no staging tile: its room goes to
// the ring), its warps' column sums a butterfly over the lane quads then
// atomic adds, no TMA store; f32 operands take the portable kernel, one
// atomic add an element.
// HOPPER: kernel sum_f16_gemm0: 200x64x64 f16, warp-specialized{{.*}} epilogue fused (region) in registers, rows summed: each warp's column sums over its rows added atomically into C's one row (zeroed before)
// HOPPER: kernel sum_f32_gemm0: 40x24x16 f32, portable path
// HOPPER-PTX-LABEL: .entry sum_f16_gemm0(
// HOPPER-PTX: shfl.sync.bfly.b32
// HOPPER-PTX: atom.global.add.f32
// HOPPER-PTX-NOT: cp.async.bulk.tensor.3d.global.shared
// PORTABLE-PTX-LABEL: .entry sum_f32_gemm0(
// PORTABLE-PTX: atom.global.add.f32
// MANIFEST: "name": "result0",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "zero_init": true
// MANIFEST: "name": "result0",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 24
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "zero_init": true
// sm_80: the multistage mma.sync kernel, the same sums.
// AMPERE: kernel sum_f16_gemm0: 200x64x64 f16, multistage
// AMPERE-PTX-LABEL: .entry sum_f16_gemm0(
// AMPERE-PTX: shfl.sync.bfly.b32
// AMPERE-PTX: atom.global.add.f32

// The pooled LCE (the gathered user part added in the epilogue, rows then
// summed, the mean's division a kernel on the sums): with --fuse-row-sum
// the pass runs in the pipeline, the user part prefetched by TMA in the
// summing kernel; by default the GEMM stores its result and a generated
// kernel sums it.
// DEFAULT-NOT: rows summed
// DEFAULT: linalg.generic (3 loops, 1 reduced)
// POOLED: its rows summed where they are computed (a sum over M folded in): the result is not stored
// POOLED: kernel pooled_lce_gemm{{[0-9]+}}: {{.*}}rows summed
func.func @sum_f16(%w: tensor<200x64xf16>, %e: tensor<?x64x64xf16>) -> tensor<?x1x64xf32> {
  %0 = sc.batch_matmul %w, %e {sum_rows} : tensor<200x64xf16>, tensor<?x64x64xf16> -> tensor<?x1x64xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    %h = arith.truncf %acc : f32 to f16
    sc.yield %h : f16
  }
  return %0 : tensor<?x1x64xf32>
}

func.func @sum_f32(%w: tensor<40x16xf32>, %e: tensor<?x16x24xf32>) -> tensor<?x1x24xf32> {
  %0 = sc.batch_matmul %w, %e {sum_rows} : tensor<40x16xf32>, tensor<?x16x24xf32> -> tensor<?x1x24xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    sc.yield %acc : f32
  }
  return %0 : tensor<?x1x24xf32>
}
