// RUN: sparcast-opt %S/Inputs/wgmma-pingpong.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.get at ring position p: wait until slot p mod 4 is full (the full
// barrier's phase p / 4 mod 2); its boxes are the slot, read by the MMA's
// descriptors.
// CHECK-LABEL: gpu.func @gather_add(
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c2 {
// CHECK: %[[BASE:.*]] = arith.muli %[[J]], %c2 : index
// CHECK: %[[SLOT:.*]] = arith.remui %[[BASE]], %c4 : index
// CHECK-NEXT: %[[PHASE:.*]] = arith.divui %[[BASE]], %c4 : index
// CHECK-NEXT: %[[ODD:.*]] = arith.remui %[[PHASE]], %c2 : index
// CHECK-NEXT: %[[PARITY:.*]] = arith.index_cast %[[ODD]] : index to i1
// CHECK: nvgpu.mbarrier.try_wait.parity %{{.*}}[%[[SLOT]]], %[[PARITY]]
// CHECK: arith.muli %[[SLOT]], %c8192 : index
// CHECK: nvvm.wgmma.fence.aligned
