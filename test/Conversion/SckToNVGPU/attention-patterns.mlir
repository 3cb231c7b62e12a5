// RUN: sparcast-opt %s -sc-select-kernel-config -sc-lower-to-sck=attention=1 -sc-warp-specialize -sc-schedule-attention "-sc-test-attention-kernel=from-kernel-ir=1" | FileCheck %s
// RUN: sparcast-opt %s -sc-select-kernel-config -sc-lower-to-sck=attention=1 -sc-warp-specialize -sc-schedule-attention "-sc-test-attention-kernel=from-kernel-ir=1" | FileCheck %s --check-prefix=TURNS
// RUN: sparcast-opt %s -sc-select-kernel-config -sc-lower-to-sck=attention=1 -sc-warp-specialize -sc-schedule-attention "-sc-test-attention-kernel=from-kernel-ir=1" | FileCheck %s --check-prefix=DESC
// RUN: sparcast-opt %s -sc-select-kernel-config -sc-lower-to-sck=attention=1 -sc-warp-specialize -sc-schedule-attention "-sc-test-attention-kernel=from-kernel-ir=1" | FileCheck %s --check-prefix=RELEASE
// RUN: not sparcast-opt %s -sc-select-kernel-config -sc-lower-to-sck=attention=1 -sc-warp-specialize "-sc-test-attention-kernel=from-kernel-ir=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNSCHEDULED

// The attention kernel of the grid walk lowered op by op from its
// scheduled kernel-level IR (SckAttentionToNVGPU.cpp), one consumer:
// - sck.role: setmaxnreg down for the producer (its first thread issuing
//   the loads), up for the consumer;
// - sck.put: the slot's empty barrier waited for, its bytes expected, the
//   TMA loads (Q, then per key block K and V);
// - sck.get: the full barrier waited for; sck.load_frag: ldmatrix of Q's
//   fragments (4 a 64-column chunk) and Q's slot freed at once;
// - sck.mma: a fence before a run of MMAs, register-A wgmma (inline PTX),
//   a commit after each chain (Q K^T, then P V in the loop);
// - sck.mma_wait: wgmma.wait_group; a wait for all keeps P's registers
//   until then (an empty asm taking them);
// - sck.release: lane 0 of each warp on the slot's empty barrier, behind
//   a branch, at an address every lane took before it;
// - sck.normalize / sck.epilogue: stmatrix into the consumer's staging
//   tile between the warpgroup's named barriers, the TMA store.
// A box's wgmma descriptor: the frame's descriptor of the shared memory's
// base (masked, shifted, the fixed bits) plus the box's offset / 16, an
// add a box (shared addresses stay below the 18 address bits).
// DESC-LABEL: gpu.func @single_attention0(
// DESC: %[[MASKED:.*]] = arith.andi %{{.*}}, %c262143_i64 : i64
// DESC: %[[SHIFTED:.*]] = arith.shrui %[[MASKED]], %{{.*}} : i64
// DESC: %[[BASE:.*]] = arith.ori %[[SHIFTED]], %{{.*}} : i64
// DESC: nvvm.setmaxregister  increase 232
// DESC: %[[OFF:.*]] = arith.shrui %{{.*}}, %{{.*}} : i64
// DESC-NEXT: arith.addi %[[BASE]], %[[OFF]] : i64
// DESC-NEXT: llvm.mlir.undef
// DESC-NEXT: nvvm.wgmma.fence.aligned
// CHECK-LABEL: gpu.func @single_attention0(
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: nvgpu.tma.prefetch.descriptor
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c8192
// CHECK: nvgpu.tma.async.load
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: nvgpu.tma.async.load
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: nvgpu.tma.async.load
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK: %[[QFREE:.*]] = nvgpu.mbarrier.get
// CHECK-NEXT: %[[HELD:.*]] = nvvm.inline_ptx "mov.b32 $0, $1;" ro(%[[QFREE]] : i32) -> i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.inline_ptx "mbarrier.arrive.shared::cta.b64 _, [$0];" ro(%[[HELD]] : i32)
// Block 0: Q K^T alone, all waited for.
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// The pipelined blocks: Q K^T and the P V before, the wait for the first.
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.vote.sync
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "", "r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r"
// The last P V, O normalized and stored.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.barrier id
// CHECK-COUNT-4: nvvm.stmatrix
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.barrier id
// CHECK: nvgpu.tma.async.store
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
func.func @single(%q: tensor<?x1x40x64xf16>, %k: tensor<?x1x300x64xf16>, %v: tensor<?x1x300x64xf16>) -> tensor<?x1x40x64xf16> {
  %o = sc.attention %q, %k, %v : tensor<?x1x40x64xf16>, tensor<?x1x300x64xf16>, tensor<?x1x300x64xf16> -> tensor<?x1x40x64xf16>
  return %o : tensor<?x1x40x64xf16>
}

// Two consumers on the halves of a 128-row query block: the warpgroup is
// the consumer's index; their turns are named barriers 3 + w (wait) and
// 4 - w (arrive) of 256 threads; an idle consumer waits for each slot and
// frees it.
// TURNS-LABEL: gpu.func @split_attention0(
// In the pipelined blocks K (i) is freed once Q K^T (i) is done and V
// (i - 1) after the wait for all, each behind lane 0's branch (a block
// boundary: predicated, ptxas hoisted the wait for all above the softmax).
// RELEASE: nvvm.wgmma.wait.group.sync.aligned 1
// RELEASE: scf.if
// RELEASE-NEXT: nvvm.inline_ptx "mbarrier.arrive.shared::cta.b64 _, [$0];"
// RELEASE: nvvm.wgmma.wait.group.sync.aligned 0
// RELEASE: scf.if
// RELEASE-NEXT: nvvm.inline_ptx "mbarrier.arrive.shared::cta.b64 _, [$0];"
// TURNS: nvvm.setmaxregister  increase
// TURNS: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// TURNS: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// TURNS: } else {
// TURNS: nvgpu.mbarrier.try_wait.parity
// TURNS: nvvm.inline_ptx "mbarrier.arrive.shared::cta.b64 _, [$0];"
// TURNS: nvvm.bar.warp.sync
func.func @split(%q: tensor<?x2x500x64xbf16>, %k: tensor<?x2x500x64xbf16>, %v: tensor<?x2x500x64xbf16>) -> tensor<?x2x500x64xbf16> {
  %o = sc.attention %q, %k, %v : tensor<?x2x500x64xbf16>, tensor<?x2x500x64xbf16>, tensor<?x2x500x64xbf16> -> tensor<?x2x500x64xbf16>
  return %o : tensor<?x2x500x64xbf16>
}

// An unscheduled kernel-level IR is refused.
// UNSCHEDULED: error: sck-to-nvgpu: an attention kernel of a Q, a K and a V ring (run sc-schedule-attention)
