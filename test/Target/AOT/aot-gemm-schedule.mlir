// RUN: rm -rf %t && sparcast-aot %S/Inputs/pinned_schedule.mlir -o %t --report | FileCheck %s
// RUN: rm -rf %t && sparcast-aot %S/Inputs/pinned_schedule.mlir -o %t --report --gemm-schedule=transposed | FileCheck %s --check-prefix=FORCED

// sparcast-aot records each GEMM's schedule on the op before generating
// kernels: the op's default, or the one the model pinned; --gemm-schedule
// forces one for all.
// CHECK: pinned_schedule.mlir:3: GEMM schedule pingpong (K = 872 < 4096
// CHECK: pinned_schedule.mlir:4: GEMM schedule cooperative (pinned on the op)
// CHECK: kernel pinned_gemm0: {{.*}} ping-pong
// CHECK: kernel pinned_gemm1: {{.*}} cooperative
// FORCED-COUNT-2: GEMM schedule transposed (requested)
// FORCED: kernel pinned_gemm0: 64x256x872 f16, {{.*}} transposed ping-pong
// FORCED: kernel pinned_gemm1: 64x256x872 f16, {{.*}} transposed ping-pong
