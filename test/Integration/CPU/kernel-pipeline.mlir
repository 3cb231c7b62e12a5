// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-kernel-pipeline,sc-test-execute-kernel-ir)' --users=2 --candidates=3 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-wide.mlir --ref=lce --pass-pipeline='builtin.module(sc-kernel-pipeline{dispatch-min-candidates-per-user=1 dispatch-min-batch=0},sc-test-execute-kernel-ir)' --users=2 --candidates=3 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/examples/target_attention.mlir --ref=target_attention --pass-pipeline='builtin.module(sc-kernel-pipeline,sc-test-execute-kernel-ir)' --users=2 --candidates=3 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-kernel-pipeline{autotune=1},sc-test-execute-kernel-ir)' --users=2 --candidates=3 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-kernel-pipeline{rows-by-threads=1},sc-test-execute-kernel-ir)' --users=2 --candidates=3 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-kernel-pipeline{sm=sm_80 rows-by-threads=1},sc-test-execute-kernel-ir)' --users=2 --candidates=3 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-opt %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --sc-kernel-pipeline=rows-by-threads=1 | FileCheck %s --check-prefix=ROWS
// RUN: sparcast-opt %sparcast_src_root/examples/lce.mlir --sc-kernel-pipeline | FileCheck %s --check-prefix=IR
// RUN: sparcast-opt %sparcast_src_root/examples/lce.mlir "--sc-kernel-pipeline=gemm-schedule=cooperative ws-group=0" | FileCheck %s --check-prefix=FORCED
// RUN: sparcast-opt %sparcast_src_root/examples/lce.mlir --sc-kernel-pipeline=sm=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: not sparcast-opt %sparcast_src_root/examples/lce.mlir --sc-kernel-pipeline=gemm-schedule=fast 2>&1 | FileCheck %s --check-prefix=BAD

// sc-kernel-pipeline: what sparcast-aot runs on a model before it builds
// the kernels, registered so that sparcast-opt reproduces it. The kernel
// IR it leaves (each op's sc.kernel_ir after the kernel configuration,
// sc-persistent, sc-multicast, sc-warp-specialize and the prefetch of the
// gathered request tile) is run on the CPU op by op against the model:
// an IKBO LCE of small odd shapes (Inputs/lce-odd.mlir) on both sides of
// its dispatch (ping-pong with few candidates a user, the transposed tile
// when the thresholds let every call take it), and target attention on
// its chained walk; with autotune=1 the request GEMM versioned over its
// schedules (sc-tune-gemm-schedules: the default alternative runs).
// CHECK: EQUIVALENT
// With rows-by-threads its N (6: rows of 12 bytes) is not padded: the
// kernel IR's B boxes are loaded by threads and its results stored
// directly, on sm_90a and on sm_80, the same on the CPU.
// ROWS: sck.load "B"{{.*}} {by_threads}
// ROWS: sck.epilogue "C"{{.*}} {direct_stores}

// IR: func.func @lce
// IR: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.kernel_ir = @lce_gemm0_kernel}
// IR: scf.if
// IR: sc.gemm_schedule = #sc.gemm_schedule<transposed>, sc.kernel_ir = @lce_gemm1_kernel
// IR: sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.kernel_ir = @lce_gemm2_kernel
// IR-LABEL: func.func private @lce_gemm2_kernel
// IR: sck.prefetch
// IR: sck.role producer
// IR: sck.tile_loop {{.*}} schedule = #sck.tile_schedule<persistent>
// IR: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64}

// An explicit schedule asks for one kernel (no dispatch); ws-group=0: one
// CTA per tile.
// FORCED-NOT: scf.if
// FORCED: sc.gemm_schedule = #sc.gemm_schedule<cooperative>
// FORCED-NOT: schedule = #sck.tile_schedule<persistent>

// Other chips have no kernel configurations: only the tensor-level passes.
// SM80-NOT: sc.gemm_schedule
// SM80-NOT: sck.
// SM80: sc.batch_matmul

// BAD: sc-select-kernel-config: unknown GEMM schedule 'fast'
