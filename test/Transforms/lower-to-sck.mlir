// RUN: sparcast-opt %s -sc-lower-to-sck=report=1 -canonicalize -verify-diagnostics | FileCheck %s
// RUN: sparcast-opt %s -sc-lower-to-sck -sc-warp-specialize=report=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=WS
// RUN: sparcast-opt %s -sc-lower-to-sck -sc-warp-specialize | FileCheck %s --check-prefix=WSIR

// The LCE's candidate GEMM (shared W, batched E, the request part added
// in the epilogue; ping-pong by default):
// 64 x 256 tiles, 7 M tiles x 1 N tile per batch element, 14 k-tiles of
// 64; A boxes at [k, m], B boxes at [n, k, b]; the epilogue at [n, m, b].
// One CTA per tile in plain order until sc-persistent.
// CHECK-LABEL: func.func private @lce_gemm0_kernel(
// CHECK-SAME: %[[B:[a-z0-9]+]]: index, %[[REQ:[a-z0-9]+]]: tensor<?x433x256xf32>, %[[IDX:[a-z0-9]+]]: tensor<?xi32>)
// CHECK-SAME: sck.op = "lce/gemm0", sck.schedule = #sck.kernel_schedule<pingpong>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG: %[[C14:.*]] = arith.constant 14 : index
// CHECK: sck.tile_loop %[[B]], %[[C7]], %[[C1]] attributes {schedule = #sck.tile_schedule<grid>} {
// CHECK: ^bb0(%[[BI:.*]]: index, %[[MT:.*]]: index, %[[NT:.*]]: index):
// CHECK: %[[M0:.*]] = arith.muli %[[MT]], %{{.*}} : index
// CHECK: %[[N0:.*]] = arith.muli %[[NT]], %{{.*}} : index
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[C14]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (!sck.acc<64x256xf32>)
// CHECK: %[[K0:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK: %[[A:.*]] = sck.load "A"[%[[K0]], %[[M0]]] : !sck.box<64x64xf16>
// CHECK: %[[BB:.*]] = sck.load "B"[%[[N0]], %[[K0]], %[[BI]]] : !sck.box<64x256xf16>
// CHECK: sck.mma %[[A]], %[[BB]], %[[ACC]]
// The op's epilogue region comes along, its tensors the function's
// arguments.
// CHECK: sck.epilogue "C"[%[[N0]], %[[M0]], %[[BI]]], %{{.*}} ins(%[[REQ]], %[[IDX]] : tensor<?x433x256xf32>, tensor<?xi32>) : !sck.acc<64x256xf32> {
// CHECK: ^bb0(%[[V:.*]]: f32, %[[EB:.*]]: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: tensor<?x433x256xf32>, %[[I:.*]]: tensor<?xi32>):
// CHECK: tensor.extract %[[I]][%[[EB]]] : tensor<?xi32>
// CHECK: arith.addf %[[V]], %{{.*}} : f32
// CHECK: sck.yield %{{.*}} : f16
func.func @lce(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>, %req: tensor<?x433x256xf32>, %idx: tensor<?xi32>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%req, %idx : tensor<?x433x256xf32>, tensor<?xi32>) : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %r: tensor<?x433x256xf32>, %i: tensor<?xi32>):
    %u = tensor.extract %i[%b] : tensor<?xi32>
    %ui = arith.index_cast %u : i32 to index
    %v = tensor.extract %r[%ui, %m, %n] : tensor<?x433x256xf32>
    %s = arith.addf %acc, %v : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x433x256xf16>
}

// A cooperative schedule: 128-row tiles; a transposed rhs is read at [k, n].
// A batched lhs times a shared rhs is tiled over the rows of all batch
// elements (flat rows): one batch element of ceil(B x 300 / 128) M tiles,
// A read and C written at [k, r] / [n, r] (two coordinates).
// CHECK-LABEL: func.func private @linear_gemm0_kernel
// CHECK-SAME: (%[[LB:[a-z0-9]+]]: index)
// CHECK-SAME: sck.schedule = #sck.kernel_schedule<cooperative>
// CHECK-DAG: %[[LC300:.*]] = arith.constant 300 : index
// CHECK-DAG: %[[LC128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[LONE:.*]] = arith.constant 1 : index
// CHECK: %[[LROWS:.*]] = arith.muli %[[LB]], %[[LC300]] : index
// CHECK: %[[LMT:.*]] = arith.ceildivui %[[LROWS]], %[[LC128]] : index
// CHECK: sck.tile_loop %[[LONE]], %[[LMT]], %{{.*}} attributes {schedule = #sck.tile_schedule<grid>}
// CHECK: %[[LR0:.*]] = arith.muli %{{.*}}, %[[LC128]] : index
// CHECK: sck.load "A"[%{{.*}}, %[[LR0]]] : !sck.box<128x64xbf16>
// CHECK: sck.load "B"[%[[KT:.*]], %{{.*}}] {transposed} : !sck.box<64x256xbf16>
// CHECK: !sck.acc<128x256xf32>
// CHECK: sck.epilogue "C"[%{{.*}}, %[[LR0]]], %{{.*}} : !sck.acc<128x256xf32>
func.func @linear(%x: tensor<?x300x128xbf16>, %w: tensor<512x128xbf16>) -> tensor<?x300x512xbf16> {
  %c = sc.batch_matmul %x, %w {transpose_rhs, sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : tensor<?x300x128xbf16>, tensor<512x128xbf16> -> tensor<?x300x512xbf16>
  return %c : tensor<?x300x512xbf16>
}

// What has no kernel-level form is said, not lowered.
func.func @f32(%a: tensor<?x8x8xf32>, %b: tensor<?x8x8xf32>) -> tensor<?x8x8xf32> {
  // expected-remark @below {{no kernel-level form: 16-bit operands only}}
  %c = sc.batch_matmul %a, %b : tensor<?x8x8xf32>, tensor<?x8x8xf32> -> tensor<?x8x8xf32>
  return %c : tensor<?x8x8xf32>
}
// CHECK-NOT: @f32_gemm0_kernel

// Then warp specialization splits each kernel's loop into roles; the
// epilogue, region and all, goes to the consumers.
// WSIR-LABEL: func.func private @lce_gemm0_kernel
// WSIR: sck.role producer
// WSIR-NOT: sck.epilogue
// WSIR: sck.role consumer
// WSIR: sck.epilogue "C"{{.*}} ins(
// WSIR: sck.yield
// WS: remark: warp-specialized: producer (2 box(es) per k-tile, 40 registers) + 2 consumer(s) (pingpong, 232 registers), ring of as many slots as fit
// WS: remark: warp-specialized: {{.*}} (cooperative, 232 registers)

// A GEMM whose rows are summed (sc-fuse-row-sum): its tiles over the
// lhs's M rows, the epilogue adding each element below M into the
// result's one row (sum_rows = M).
// CHECK-LABEL: func.func @summed_rows
// CHECK-LABEL: func.func private @summed_rows_gemm0_kernel
// CHECK: sck.tile_loop %{{.*}}, %c3, %c1
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {sum_rows = 150 : i64} : !sck.acc<64x64xf32>
func.func @summed_rows(%w: tensor<150x64xbf16>, %e: tensor<?x64x24xbf16>) -> tensor<?x1x24xf32> {
  %o = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sum_rows} : tensor<150x64xbf16>, tensor<?x64x24xbf16> -> tensor<?x1x24xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    %h = arith.truncf %acc : f32 to bf16
    sc.yield %h : bf16
  }
  return %o : tensor<?x1x24xf32>
}
