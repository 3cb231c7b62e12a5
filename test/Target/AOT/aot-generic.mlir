// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/test/Target/ONNX/Inputs/mlp.onnxtxt -o %t --report | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=PTX < %t/mlp_kernels.ptx
// RUN: not sparcast-aot %s -o %t-bad 2>&1 | FileCheck %s

// What an entry computes outside the sc ops runs as generated kernels, one
// per linalg.generic (named ops generalized, element-wise chains fused):
// the imported MLP (Gemm + bias + ReLU, Sub fused into the next MatMul's
// operand, Sigmoid, a Softmax's max and sum reductions, Tanh + Cast) is
// thirteen kernels, each one thread per output element, the reductions in
// the thread; its constant weights are globals of the kernels' module.
// REPORT: kernel mlp_generic0: linalg.generic (2 loops, 0 reduced)
// REPORT: kernel mlp_generic1: linalg.generic (3 loops, 1 reduced) as one thread per output element of ws1
// REPORT: kernel mlp_generic7: linalg.generic (2 loops, 1 reduced)
// REPORT: kernel mlp_generic12: linalg.generic (2 loops, 0 reduced) as one thread per output element of result2
// PTX: .global .align 4 .b8 mlp_generic1_in1[512] =
// PTX: .entry mlp_generic
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
