// RUN: sparcast-opt %S/Inputs/wgmma-pingpong.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.ring: the kernel frame before the roles. Shared memory aligned to
// 1024 bytes, the ring's full and empty barriers (4 slots) and the
// prefetched operand's 4, initialized by thread 0 (a full slot: one TMA
// arrival; an empty one: lane 0 of the 4 consumer warps), then a CTA
// barrier before anyone waits on them.
// CHECK-LABEL: gpu.func @gather_add(
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK: arith.remui %[[BASE]], %c1024
// CHECK: %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK: %[[EMPTY:.*]] = nvgpu.mbarrier.create
// CHECK: %[[X:.*]] = nvgpu.mbarrier.create
// CHECK: scf.if
// CHECK: scf.for %[[S:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: nvgpu.mbarrier.init %[[FULL]][%[[S]]], %c1
// CHECK-NEXT: nvgpu.mbarrier.init %[[EMPTY]][%[[S]]], %c4
// CHECK: nvgpu.mbarrier.init %[[X]][%c0], %c1
// CHECK: gpu.barrier
// CHECK-NOT: sck.
