// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: sparcast-aot %S/Inputs/target_attention_long.mlir -o %t/ir --attention-from-kernel-ir --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/ir/target_attention_kernels.ptx
// RUN: sparcast-aot %S/Inputs/target_attention_long.mlir -o %t/writer > /dev/null
// RUN: diff %t/ir/manifest.json %t/writer/manifest.json
// RUN: rm -rf %t/ll && sparcast-aot %sparcast_src_root/examples/loglinear_attention.mlir -o %t/ll --attention-from-kernel-ir --report | FileCheck %s --check-prefix=LOGLINEAR
// RUN: rm -rf %t/ta && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t/ta --attention-from-kernel-ir --report | FileCheck %s --check-prefix=CHAINED
// RUN: FileCheck %s --check-prefix=CHAINED-PTX < %t/ta/target_attention_kernels.ptx
// RUN: rm -rf %t/grouped && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t/grouped --attention-from-kernel-ir --attention-group-candidates --report | FileCheck %s --check-prefix=GROUPED
// RUN: rm -rf %t/grouped-writer && sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t/grouped-writer --attention-group-candidates > /dev/null
// RUN: diff %t/grouped/manifest.json %t/grouped-writer/manifest.json
// RUN: rm -rf %t/grouped-pairs && sparcast-aot %S/Inputs/target_attention_long.mlir -o %t/grouped-pairs --attention-from-kernel-ir --attention-group-candidates --report | FileCheck %s --check-prefix=GROUPED-PAIRS
// RUN: rm -rf %t/grouped-pairs-writer && sparcast-aot %S/Inputs/target_attention_long.mlir -o %t/grouped-pairs-writer --attention-group-candidates > /dev/null
// RUN: diff %t/grouped-pairs/manifest.json %t/grouped-pairs-writer/manifest.json

// sparcast-aot --attention-from-kernel-ir: the attention kernels
// lowered op by op from their scheduled kernel-level IR
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
// Candidates in request order: the kernel-level IR reads each tile's
// candidate from the grouping kernel's order (chained and pairs walks);
// the launches and the manifest are the writer's.
// GROUPED: kernel target_attention_group0:
// GROUPED: kernel target_attention_attention1: {{.*}} in request order
// GROUPED-NOT: {{[1-9][0-9]*}} bytes spill stores
// GROUPED-PAIRS: kernel target_attention_group0: {{.*}} pairs neighbours of one request
// GROUPED-PAIRS: kernel target_attention_attention1: {{.*}} two consumer warpgroups on two candidates of one request
// GROUPED-PAIRS-NOT: {{[1-9][0-9]*}} bytes spill stores
