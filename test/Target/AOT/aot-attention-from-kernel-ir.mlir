// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: sparcast-aot %S/Inputs/target_attention_long.mlir -o %t/ir --attention-from-kernel-ir --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/ir/target_attention_kernels.ptx
// RUN: sparcast-aot %S/Inputs/target_attention_long.mlir -o %t/writer > /dev/null
// RUN: diff %t/ir/manifest.json %t/writer/manifest.json
// RUN: rm -rf %t/ll && sparcast-aot %sparcast_src_root/examples/loglinear_attention.mlir -o %t/ll --attention-from-kernel-ir --report | FileCheck %s --check-prefix=LOGLINEAR
// RUN: rm -rf %t/ta && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t/ta --attention-from-kernel-ir --report | FileCheck %s --check-prefix=CHAINED
// RUN: FileCheck %s --check-prefix=CHAINED-PTX < %t/ta/target_attention_kernels.ptx
// RUN: not sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t/grouped --attention-from-kernel-ir --attention-group-candidates 2>&1 | FileCheck %s --check-prefix=GROUPED

// sparcast-aot --attention-from-kernel-ir: the attention kernels of the
// grid walks lowered op by op from their scheduled kernel-level IR
// (sc-schedule-attention, SckAttentionToNVGPU.cpp) instead of written by
// AttentionKernel.cpp: here the pairs kernel of a history of 2048 keys and
// the log-linear attention's halves of 128-row query blocks. ptxas takes
// them without spills; the launches and the manifest are the writer's.
// CHECK: kernel target_attention_attention1: {{.*}} two consumer warpgroups on two candidates of one request
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores
// PTX: setmaxnreg.dec.sync.aligned.u32
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: bar.sync
// PTX: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group
// LOGLINEAR: kernel loglinear_attention_attention0: {{.*}} two consumer warpgroups on the two 64-row halves of a 128-row query tile
// LOGLINEAR-NOT: {{[1-9][0-9]*}} bytes spill stores
// The chained walk (resident CTAs, each candidate's heads in turn): its
// tile count and tiles from the CTA's share; O through a staging tile of
// its own, each store's reads waited for before the tile is restaged.
// CHAINED: kernel target_attention_attention0: {{.*}} chained heads
// CHAINED-NOT: {{[1-9][0-9]*}} bytes spill stores
// CHAINED-PTX: mov.u32 %r{{[0-9]+}}, %nctaid.x;
// CHAINED-PTX: cp.async.bulk.wait_group.read 0;
// CHAINED-PTX: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHAINED-PTX: cp.async.bulk.commit_group;
// Candidates in request order are the writer's only.
// GROUPED: error: sck-to-nvgpu: a chained walk in request order from its kernel-level IR
