// RUN: sparcast-opt %s -sc-select-kernel-config=chip=sm_80 -sc-lower-to-sck=attention=1 -sc-pipeline-multistage "-sc-test-attention-kernel=chip=sm_80 ampere-attention=1" -cse | FileCheck %s

// The attention of sm_80 lowered op by op from its multistage kernel-level
// IR (SckAttentionToMmaSync.cpp): a gpu.func of four warps whose memref
// arguments are Q, K, V, O and the index;
// - sck.tile_loop: the CTA's (batch element, query tile, head) from block
//   ids x, y, z;
// - sck.put: each box's 16-byte chunks by cp.async (Q's two 64 x 64 boxes:
//   4 a thread; K's two and V's 64 x 128: 16), one commit group;
// - sck.get: the Q ring's waits for all groups (a ring of two, got right
//   after its put), the K/V ring's for all but one (three slots, puts two
//   ahead), then a CTA barrier;
// - sck.load_frag: Q's fragments by ldmatrix;
// - sck.mma: mma.sync m16n8k16, K's fragments by ldmatrix, V's by
//   ldmatrix .trans;
// - the softmax's steps as on Hopper (exp2 on the scores);
// - sck.epilogue: O's elements stored at (batch element, head, row);
// the kernel waits for the copies still in flight before it returns.
// CHECK-LABEL: gpu.func @target_attention0(
// CHECK-SAME: %[[Q:.*]]: memref<?x2x100x128xf16>, %[[K:.*]]: memref<?x2x300x128xf16>, %[[V:.*]]: memref<?x2x300x128xf16>, %[[O:.*]]: memref<?x2x100x128xf16>, %[[IDX:.*]]: memref<?xi32>)
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK: %[[BX:.*]] = gpu.block_id  x
// CHECK: %[[BZ:.*]] = gpu.block_id  z
// CHECK: memref.load %[[IDX]][%[[BX]]] : memref<?xi32>
// CHECK-COUNT-8: nvvm.cp.async.shared.global {{.*}}, 16, cache =  cg
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.ldmatrix {{.*}} -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-16: nvvm.cp.async.shared.global
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: memref.store %{{.*}}, %[[O]][%[[BX]], %[[BZ]], %{{.*}}, %{{.*}}] : memref<?x2x100x128xf16>
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.return
func.func @target(%q: tensor<?x2x100x128xf16>, %k: tensor<?x2x300x128xf16>,
                  %v: tensor<?x2x300x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x100x128xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x100x128xf16>, tensor<?x2x300x128xf16>, tensor<?x2x300x128xf16>, tensor<?xi32> -> tensor<?x2x100x128xf16>
  return %o : tensor<?x2x100x128xf16>
}
