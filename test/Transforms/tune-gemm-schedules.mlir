// RUN: sparcast-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(sc-tune-gemm-schedules))' | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(sc-tune-gemm-schedules{report=1}))' -verify-diagnostics -o /dev/null

// A GEMM nothing pinned: a switch on 0 whose default keeps the heuristics'
// schedule (ping-pong here) and whose cases hold the others it can take
// (cooperative; the transposed tile, its result f16).
// CHECK-LABEL: func.func @bmm
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[R:.*]] = scf.index_switch %[[C0]] -> tensor<?x128x256xf16>
// CHECK: case 1 {
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<cooperative>}
// CHECK: case 2 {
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<transposed>}
// CHECK: default {
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
// CHECK: return %[[R]]
func.func @bmm(%a: tensor<128x192xf16>, %b: tensor<?x192x256xf16>) -> tensor<?x128x256xf16> {
  // expected-remark @below {{GEMM schedules tuned at run time: pingpong (default), cooperative, transposed}}
  %c = sc.batch_matmul %a, %b : tensor<128x192xf16>, tensor<?x192x256xf16> -> tensor<?x128x256xf16>
  return %c : tensor<?x128x256xf16>
}

// -----

// Left alone: a GEMM whose schedule is pinned, one of f32 operands (the
// portable kernel), one a dispatch already chose for.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.index_switch
// CHECK: sc.batch_matmul {{.*}}pingpong
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} : tensor<?x16x8xf32>
// CHECK: scf.if
func.func @left_alone(%a: tensor<?x64x64xf16>, %b: tensor<?x64x64xf16>,
                      %x: tensor<?x16x8xf32>, %y: tensor<?x8x16xf32>, %p: i1)
    -> (tensor<?x64x64xf16>, tensor<?x16x16xf32>, tensor<?x64x64xf16>) {
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<?x64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
  %d = sc.batch_matmul %x, %y : tensor<?x16x8xf32>, tensor<?x8x16xf32> -> tensor<?x16x16xf32>
  %e = scf.if %p -> tensor<?x64x64xf16> {
    %t = sc.batch_matmul %a, %b : tensor<?x64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
    scf.yield %t : tensor<?x64x64xf16>
  } else {
    %t = sc.batch_matmul %b, %a : tensor<?x64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
    scf.yield %t : tensor<?x64x64xf16>
  }
  return %c, %d, %e : tensor<?x64x64xf16>, tensor<?x16x16xf32>, tensor<?x64x64xf16>
}
