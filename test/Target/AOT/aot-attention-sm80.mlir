// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/self_target_attention.mlir -o %t --sm=sm_80 --ampere-attention --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/self_target_attention_kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: rm -rf %t-86 && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t-86 --sm=sm_86 --ampere-attention --report | FileCheck %s --check-prefix=SM86
// RUN: not sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t-off --sm=sm_80 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t-s3 && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t-s3 --sm=sm_80 --ampere-attention --ampere-attention-stages=3
// RUN: FileCheck %s --check-prefix=STAGES3 < %t-s3/manifest.json
// RUN: not sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t-s9 --sm=sm_80 --ampere-attention --ampere-attention-stages=9 2>&1 | FileCheck %s --check-prefix=STAGES9
// RUN: rm -rf %t-ll && sparcast-aot %sparcast_src_root/examples/loglinear_attention.mlir -o %t-ll --sm=sm_86 --ampere-attention --report 2>&1 | FileCheck %s --check-prefix=LL

// sparcast-aot --sm=sm_80 --ampere-attention (experimental): attention by
// the mma.sync kernel lowered from its multistage kernel-level IR, one
// CTA of four warps a 64-row query tile and head: K and V through a
// cp.async ring of two slots (81 KB with Q's: two CTAs an SM on an A100,
// one on sm_86 / sm_89, whose CTAs get 99 KB), Q through one slot of its
// own (a ring only ever at position 0 is laid out as one slot); ptxas
// (sm_80) takes it without spills. The launch: (batch, query tiles, heads) CTAs of 128
// threads; the tensors passed as memrefs, the index after them.
// CHECK: kernel self_target_attention_attention0: attention, 2 heads, head dim 128, f16, one CTA of four warps a 64-row query tile (sm_80: cp.async rings, mma.sync), 64-key blocks, online softmax (exp2, fp32), 82944 B shared memory
// CHECK: kernel self_target_attention_attention1: attention, 2 heads, head dim 128, f16, keys/values read through the index
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores
// PTX: .target sm_80
// PTX: cp.async.cg.shared.global
// PTX: cp.async.wait_group 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// MANIFEST: "kernel": "self_target_attention_attention1",
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor":
// SM86: 82944 B shared memory
// SM86-NOT: {{[1-9][0-9]*}} bytes spill stores
// The log-linear mask's 128-token blocks: each a pair of 64-key blocks
// (a ring of 128-key blocks would not fit sm_86's shared memory).
// LL: attention kernel #sc.attention_config<walk = grid, consumers = 1, key_block = 64
// LL: kernel loglinear_attention_attention0: attention, 16 heads, head dim 128, bf16, one CTA of four warps a 64-row query tile (sm_86: cp.async rings, mma.sync), 64-key blocks, online softmax (exp2, fp32), 82944 B shared memory
// LL-NOT: {{[1-9][0-9]*}} bytes spill stores
// Without the flag: a located error.
// OFF: error: the attention kernel needs sm_90a (TMA and wgmma), got sm_80 (--ampere-attention: the mma.sync kernel, experimental)

// --ampere-attention-stages: a K/V ring of three 32 KB slots (Q's 16 KB
// beside it, 1 KB for alignment: one CTA an SM) instead of two; out of
// 2-8 a diagnostic.
// STAGES3: "smem": 115712
// STAGES9: error: sc-pipeline-multistage: stages must be 2 to 8, got 3 and 9 for attention
