// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-wide.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline, func.func(sc-dispatch-gemm-schedule{min-candidates-per-user=4 min-batch=16}))' --users=3 --candidates=17 --trials=3 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-wide.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline, func.func(sc-dispatch-gemm-schedule{min-candidates-per-user=4 min-batch=16}))' --users=5 --candidates=9 --shuffle-index --trials=2 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-wide.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline, func.func(sc-dispatch-gemm-schedule{min-candidates-per-user=4 min-batch=16}))' --users=2 --candidates=9 --trials=2 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-opt %sparcast_src_root/test/Integration/CPU/Inputs/lce-wide.mlir --sc-ikbo-pipeline --sc-dispatch-gemm-schedule | FileCheck %s --check-prefix=IR

// The candidate GEMM dispatched on its dims (B >= 4 x users and B >= 16
// as asked here: 17 candidates of 3 users take the transposed branch, 9 of 5 and 9
// of 2 (enough a user, too few in all) the other): the same results on
// the CPU as the model graph, on either branch.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// IR: scf.if
// IR: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<transposed>}
// IR: } else {
// IR: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
