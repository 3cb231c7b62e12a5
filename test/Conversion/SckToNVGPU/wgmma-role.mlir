// RUN: sparcast-opt %S/Inputs/wgmma-pingpong.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.role: warpgroup 2 (from lane 0 by a shuffle, warp-uniform) produces
// with 40 registers, its loads issued by thread 256; warpgroups 0 and 1
// consume with 232 and wait for their last TMA stores before they leave.
// CHECK-LABEL: gpu.func @gather_add(
// CHECK: %[[SH:.*]], %{{.*}} = gpu.shuffle idx
// CHECK: %[[WG:.*]] = arith.index_cast %[[SH]] : i32 to index
// CHECK: %[[P:.*]] = arith.cmpi eq, %[[WG]], %c2 : index
// CHECK: scf.if %[[P]] {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: %[[LEADER:.*]] = arith.cmpi eq, %{{.*}}, %c256 : index
// CHECK-NEXT: scf.if %[[LEADER]] {
// CHECK: %[[C:.*]] = arith.cmpi ne, %[[WG]], %c2 : index
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
