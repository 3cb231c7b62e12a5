// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/test/Target/ONNX/Inputs/pool.onnxtxt -o %t --report 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=PTX < %t/pool_kernels.ptx
// RUN: rm -rf %t-edges && sparcast-aot %s -o %t-edges --report 2>&1 | FileCheck %s --check-prefix=EDGES

// Pooling as an imported model has it (ReduceMean of f16 rows, ReduceMax
// of f32): a reduction's kernel starts from its fill's constant (no fill
// kernel) and applies its element-wise consumer before the store (the
// mean's division and the rounding to f16): one kernel a reduction.
// REPORT: kernel pool_generic0: linalg.generic (3 loops, 1 reduced) as one thread per output element of result0, its element-wise consumer applied before the store
// REPORT-NEXT: kernel pool_generic1: linalg.generic (3 loops, 1 reduced) as one thread per output element of result1 [
// REPORT-NOT: kernel pool_

// The f16 rows summed in f32, divided by the 4 rows (LLVM multiplies by
// the exact 0.25), rounded once.
// PTX-LABEL: .entry pool_generic0(
// PTX: cvt.f32.f16
// PTX: add.rn.f32
// PTX: mul.rn.f32 %{{.*}}, 0f3E800000;
// PTX-NEXT: cvt.rn.f16.f32
// PTX: st.global.b16
// PTX-LABEL: .entry pool_generic1(
// PTX: max.NaN.f32
// PTX-NOT: .entry

// Where neither applies: a fill something else reads (here returned) keeps
// its kernel, the reduction still starting from its constant; a reduction
// whose result is read twice, or by a consumer of two tensors, stores it.
// EDGES: kernel edges_generic0: linalg.generic (2 loops) as one thread per 4 consecutive elements of result1
// EDGES-NEXT: kernel edges_generic1: linalg.generic (3 loops, 1 reduced) as one thread per output element of result2 [
// EDGES-NEXT: kernel edges_generic2: linalg.generic (2 loops) as one thread per 4 consecutive elements of result0
#x3 = affine_map<(b, i, j) -> (b, i, j)>
#bj = affine_map<(b, i, j) -> (b, j)>
#id = affine_map<(b, j) -> (b, j)>
func.func @edges(%x: tensor<?x4x8xf32>, %y: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x8xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %s = linalg.generic {indexing_maps = [#x3, #bj], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<?x4x8xf32>) outs(%ones : tensor<?x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<?x8xf32>
  %e2 = tensor.empty(%n) : tensor<?x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %y : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e2 : tensor<?x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %m = arith.mulf %v, %w : f32
    linalg.yield %m : f32
  } -> tensor<?x8xf32>
  return %t, %ones, %s : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}
