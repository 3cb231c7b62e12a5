// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json

// x @ w^T: a batched lhs and a shared rhs are one GEMM of B x 433 rows,
// through 2-D tensor maps for x and the result, tiles running across batch
// elements (the epilogue still sees each element's batch index and row).
// The schedule is cooperative: every tile reads all of w.
// CHECK: GEMM schedule cooperative (a shared rhs (x @ w)
// CHECK: kernel linear_gemm0: 433x256x872 f16, warp-specialized persistent, cooperative: {{.*}}; lhs batch elements as one matrix of B x 433 rows, tiles across them
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// MANIFEST: "kernel": "linear_gemm0",
// MANIFEST: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 128
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "dims": [
// MANIFEST-NEXT: 872,
// MANIFEST-NEXT: "B*433"
// MANIFEST-NEXT: ],
// MANIFEST: 256,
// MANIFEST-NEXT: "B*433"
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "kind": "tma",
// MANIFEST-NEXT: "strides": [
// MANIFEST-NEXT: 512
// MANIFEST-NEXT: ],
func.func @linear(%x: tensor<?x433x872xf16>, %w: tensor<256x872xf16>,
                  %bias: tensor<256xf32>) -> tensor<?x433x256xf16> {
  %y = sc.batch_matmul %x, %w epilogue_ins(%bias : tensor<256xf32>) {transpose_rhs}
      : tensor<?x433x872xf16>, tensor<256x872xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bt: tensor<256xf32>):
    %v = tensor.extract %bt[%n] : tensor<256xf32>
    %s = arith.addf %acc, %v : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %y : tensor<?x433x256xf16>
}
