// RUN: sparcast-opt %S/Inputs/wgmma-pingpong.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.release at ring position p: lane 0 of each consumer warp arrives on
// slot p mod 4's empty barrier; in the k loop the slot of the k-tile
// before (p - 1), after the tile's last k-tile the wait for all its MMAs
// (sck.mma_wait 0) and that k-tile's release.
// CHECK-LABEL: gpu.func @gather_add(
// CHECK: %[[ACC:.*]]:2 = scf.for %[[K:.*]] = %c1 to %c2 step %c1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: %[[BEFORE:.*]] = arith.subi %[[P:.*]], %c1 : index
// CHECK-NEXT: %[[SLOT:.*]] = arith.remui %[[BEFORE]], %c4 : index
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32{{.*}} : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT: scf.if %[[ZERO]] {
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[EMPTY:.*]][%[[SLOT]]]
// CHECK: nvvm.barrier.arrive
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.if
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[EMPTY]]
