// RUN: sparcast-opt %s -sc-lower-to-sck | FileCheck %s

// Rows of N = 250 f16 (500 bytes) are no TMA stride: B's box is loaded by
// threads and the epilogue stores directly. A rhs read K-major ([N, K],
// rows of K) needs only the direct stores.
// (The kernels' functions come in reverse order.) Rows of 16-byte
// multiples: TMA both ways.
// CHECK-LABEL: func.func private @unaligned_gemm2_kernel
// CHECK-NOT: by_threads
// CHECK-NOT: direct_stores
// CHECK-LABEL: func.func private @unaligned_gemm1_kernel
// CHECK: sck.load "B"[%{{.*}}, %{{.*}}] {transposed} : !sck.box<64x256xbf16>
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}], %{{.*}} {direct_stores} : !sck.acc<128x256xf32>
// CHECK-LABEL: func.func private @unaligned_gemm0_kernel
// CHECK: sck.load "A"[%{{.*}}, %{{.*}}] : !sck.box<64x64xf16>
// CHECK: sck.load "B"[%{{.*}}, %{{.*}}, %{{.*}}] {by_threads} : !sck.box<64x256xf16>
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {direct_stores} : !sck.acc<64x256xf32>
func.func @unaligned(%w: tensor<128x64xf16>, %e: tensor<?x64x250xf16>, %x: tensor<?x300x64xbf16>, %wt: tensor<250x64xbf16>, %e2: tensor<?x64x248xf16>) -> (tensor<?x128x250xf16>, tensor<?x300x250xbf16>, tensor<?x128x248xf16>) {
  %y = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<128x64xf16>, tensor<?x64x250xf16> -> tensor<?x128x250xf16>
  %z = sc.batch_matmul %x, %wt {transpose_rhs, sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : tensor<?x300x64xbf16>, tensor<250x64xbf16> -> tensor<?x300x250xbf16>
  %v = sc.batch_matmul %w, %e2 {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<128x64xf16>, tensor<?x64x248xf16> -> tensor<?x128x248xf16>
  return %y, %z, %v : tensor<?x128x250xf16>, tensor<?x300x250xbf16>, tensor<?x128x248xf16>
}
