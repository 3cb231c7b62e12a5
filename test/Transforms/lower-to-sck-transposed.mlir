// RUN: sparcast-opt %s -sc-lower-to-sck -canonicalize | FileCheck %s
// RUN: sparcast-opt %s -sc-lower-to-sck -sc-persistent -sc-multicast=shared-rhs-only=1 -sc-warp-specialize | FileCheck %s --check-prefix=WS

// The transposed schedule (W @ E[b] computed as E[b]^T W^T): tiles of 152
// result rows (three for M = 433) by 128 columns (two for N = 256); W's
// box is 64 k by 152 m and E's 128 n by 64 k, both read transposed; the
// accumulator holds the tile transposed, and the epilogue says so. Its
// N tiles go in CTA pairs (sc-multicast shared-rhs-only), its consumers
// take turns (ping-pong).
// CHECK-LABEL: func.func private @shared_w_gemm0_kernel(
// CHECK-SAME: sck.schedule = #sck.kernel_schedule<transposed>
// CHECK-DAG: %[[M:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 2 : index
// CHECK: sck.tile_loop %{{.*}}, %[[M]], %[[N]]
// CHECK: sck.load "A"[%{{.*}}, %{{.*}}] {transposed} : !sck.box<64x152xf16>
// CHECK: sck.load "B"[%{{.*}}, %{{.*}}, %{{.*}}] {transposed} : !sck.box<128x64xf16>
// CHECK: sck.mma %{{.*}}, %{{.*}}, %{{.*}} : !sck.box<128x64xf16>, !sck.box<64x152xf16>, !sck.acc<128x152xf32>
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}] transposed, %{{.*}} : !sck.acc<128x152xf32>
// WS: sck.tile_loop {{.*}}cluster = 2
// WS: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>
func.func @shared_w(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<transposed>} : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  return %c : tensor<?x433x256xf16>
}
