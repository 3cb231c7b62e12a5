// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/test/Target/ONNX/Inputs/mlp.onnxtxt -o %t --report | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=PTX < %t/mlp_kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: not sparcast-aot %s -o %t-bad 2>&1 | FileCheck %s

// The imported MLP (Gemm + bias + ReLU, Sub fused into the next MatMul's
// operand, Sigmoid, a Softmax's max and sum reductions, Tanh + Cast): its
// two matmuls raised to sc.batch_matmul over one-row items (f32: the
// portable GEMM kernel) with the bias and the sigmoid in their epilogues,
// the rows' reshapes views of their buffers in the manifest, each constant
// a kernel reads copied out of the kernels' module, and
// what stays outside the sc ops generated kernels, one per linalg.generic
// (named ops generalized, element-wise chains fused): one thread per
// output element with the reductions in the thread (starting from the
// constant their output was filled with: the softmax's -inf and 0 fills
// get no kernel of their own, the max reduction follows the second GEMM
// directly), or without
// reductions one thread per 16 bytes of consecutive output elements, the
// inputs read along them and the output in 16-byte vector accesses (the
// Cast to f16: eight elements, two 16-byte loads of f32 and one store).
// REPORT: raised to sc.batch_matmul over one-row items
// REPORT: raised to sc.batch_matmul over one-row items, the weight read transposed
// REPORT: fused an element-wise consumer into the epilogue (0 gathered input(s) read through the index, 0 other input(s))
// REPORT: fused an element-wise consumer into the epilogue (0 gathered input(s) read through the index, 1 other input(s))
// REPORT: kernel mlp_generic0: linalg.generic (2 loops) as one thread per 4 consecutive elements of ws0 (16-byte accesses)
// REPORT: kernel mlp_generic1: linalg.generic (1 loops) as one thread per 4 consecutive elements of ws1 (16-byte accesses)
// REPORT: kernel mlp_gemm2: 1x8x16 f32, portable path
// REPORT: kernel mlp_generic4: linalg.generic (2 loops, 0 reduced) as one thread per output element of ws4
// REPORT: kernel mlp_gemm5: 1x1x8 f32, portable path
// REPORT-NEXT: kernel mlp_generic6: linalg.generic (2 loops, 1 reduced) as one thread per output element of ws5
// REPORT: kernel mlp_generic8: linalg.generic (2 loops, 1 reduced) as one thread per output element of ws7
// REPORT: kernel mlp_generic10: linalg.generic (3 loops) as one thread per 8 consecutive elements of view4 (16-byte accesses)
// PTX: .global .align 16 .b8 mlp_generic0_in0[512] =
// PTX: .entry mlp_generic0(
// PTX: ld.global.nc.v4.b32
// PTX: st.global.v4.b32
// PTX: .entry mlp_generic10(
// PTX: ld.global.v4.b32
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
// MANIFEST: "views": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "name": "view0",
// MANIFEST-NEXT: "of": "arg0",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 16
// What the generator does not take is a located error.
// CHECK: aot-generic.mlir:[[# @LINE + 7]]:8: error: sparcast-aot: no kernel for this linalg.generic: indexing maps of loop dims and constants only
#shifted = affine_map<(d0, d1) -> (d0, d1 + 1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @shifted(%x: tensor<?x9xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x9xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %y = linalg.generic {indexing_maps = [#shifted, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x9xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
