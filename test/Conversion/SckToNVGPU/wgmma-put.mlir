// RUN: sparcast-opt %S/Inputs/wgmma-pingpong.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.put at ring position p: slot p mod 4 once it is free (the empty
// barrier's phase before the full one's), its 40960 bytes expected on the
// full barrier, A's 64 x 64 box at the slot's first part (slot x 8192)
// and B's 64 x 256 box as four 64-column parts after every slot's A
// (4 x 8192 + slot x 32768), each part 64 columns n further.
// CHECK-LABEL: gpu.func @gather_add(
// CHECK: scf.for %[[K:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[P:.*]] = arith.addi %{{.*}}, %[[K]] : index
// CHECK-NEXT: %[[SLOT:.*]] = arith.remui %[[P]], %c4 : index
// CHECK-NEXT: %[[PHASE:.*]] = arith.divui %[[P]], %c4 : index
// CHECK-NEXT: %[[ODD:.*]] = arith.remui %[[PHASE]], %c2 : index
// CHECK-NEXT: %[[FREE:.*]] = arith.xori %[[ODD]], %c1 : index
// CHECK-NEXT: %[[PARITY:.*]] = arith.index_cast %[[FREE]] : index to i1
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY:.*]][%[[SLOT]]], %[[PARITY]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL:.*]][%[[SLOT]]], %c40960
// CHECK: arith.muli %[[SLOT]], %c8192 : index
// CHECK: arith.muli %[[SLOT]], %c32768 : index
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %[[FULL]][%[[SLOT]]] to %{{.*}} : {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %[[FULL]][%[[SLOT]]] to %{{.*}} : {{.*}} -> memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: sck.load
