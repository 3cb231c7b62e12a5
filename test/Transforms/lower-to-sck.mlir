// RUN: sparcast-opt %s -sc-lower-to-sck=report=1 -canonicalize -verify-diagnostics | FileCheck %s
// RUN: sparcast-opt %s -sc-lower-to-sck -sc-warp-specialize=report=1 2>&1 | FileCheck %s --check-prefix=WS

// The LCE's candidate GEMM (shared W, batched E; ping-pong by default):
// 64 x 256 tiles, 7 M tiles x 1 N tile per batch element, 14 k-tiles of
// 64; A boxes at [k, m], B boxes at [n, k, b]; the epilogue at [n, m, b].
// One CTA per tile in plain order until sc-persistent.
// CHECK-LABEL: func.func private @lce_gemm0_kernel(
// CHECK-SAME: %[[B:[a-z0-9]+]]: index)
// CHECK-SAME: sck.op = "lce/gemm0", sck.schedule = "pingpong"
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG: %[[C14:.*]] = arith.constant 14 : index
// CHECK: sck.tile_loop %[[B]], %[[C7]], %[[C1]] attributes {schedule = "grid"} {
// CHECK: ^bb0(%[[BI:.*]]: index, %[[MT:.*]]: index, %[[NT:.*]]: index):
// CHECK: %[[M0:.*]] = arith.muli %[[MT]], %{{.*}} : index
// CHECK: %[[N0:.*]] = arith.muli %[[NT]], %{{.*}} : index
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[C14]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (!sck.acc<64x256xf32>)
// CHECK: %[[K0:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK: %[[A:.*]] = sck.load "A"[%[[K0]], %[[M0]]] : !sck.box<64x64xf16>
// CHECK: %[[BB:.*]] = sck.load "B"[%[[N0]], %[[K0]], %[[BI]]] : !sck.box<64x256xf16>
// CHECK: sck.mma %[[A]], %[[BB]], %[[ACC]]
// CHECK: sck.epilogue "C"[%[[N0]], %[[M0]], %[[BI]]], %{{.*}} : !sck.acc<64x256xf32>
func.func @lce(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %w, %e : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  return %c : tensor<?x433x256xf16>
}

// A cooperative schedule: 128-row tiles; a transposed rhs is read at [k, n].
// CHECK-LABEL: func.func private @linear_gemm0_kernel
// CHECK-SAME: sck.schedule = "cooperative"
// CHECK: sck.load "A"[%{{.*}}, %{{.*}}, %{{.*}}] : !sck.box<128x64xbf16>
// CHECK: sck.load "B"[%[[KT:.*]], %{{.*}}] : !sck.box<64x256xbf16>
// CHECK: !sck.acc<128x256xf32>
func.func @linear(%x: tensor<?x300x128xbf16>, %w: tensor<512x128xbf16>) -> tensor<?x300x512xbf16> {
  %c = sc.batch_matmul %x, %w {transpose_rhs, sc.gemm_schedule = "cooperative"} : tensor<?x300x128xbf16>, tensor<512x128xbf16> -> tensor<?x300x512xbf16>
  return %c : tensor<?x300x512xbf16>
}

// What has no kernel-level form is said, not lowered.
func.func @f32(%a: tensor<?x8x8xf32>, %b: tensor<?x8x8xf32>) -> tensor<?x8x8xf32> {
  // expected-remark @below {{no kernel-level form: 16-bit operands only}}
  %c = sc.batch_matmul %a, %b : tensor<?x8x8xf32>, tensor<?x8x8xf32> -> tensor<?x8x8xf32>
  return %c : tensor<?x8x8xf32>
}
// CHECK-NOT: @f32_gemm0_kernel

// Then warp specialization splits each kernel's loop into roles.
// WS: remark: warp-specialized: producer (2 box(es) per k-tile, 40 registers) + 2 consumer(s) (pingpong, 232 registers), ring of as many slots as fit
// WS: remark: warp-specialized: {{.*}} (cooperative, 232 registers)
