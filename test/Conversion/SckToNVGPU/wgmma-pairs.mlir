// RUN: sparcast-opt %S/Inputs/wgmma-pairs.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// CTA pairs: the frame publishes the barrier inits to the cluster and the
// kernel ends with a cluster barrier; each CTA loads its two 64-column
// parts of B for both (multicast mask 3); a release also arrives on the
// other CTA's barrier of the slot (mapa); sck.discard, for a tile past
// the result's M tiles: wait for each slot, free it, let the warp meet
// again, then hand over the turn.
// CHECK-LABEL: gpu.func @bmm(
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16
// CHECK: nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16
// CHECK: mapa.shared::cluster.u32
// CHECK: } else {
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c3 step %c1 {
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.mbarrier.arrive
// CHECK: mapa.shared::cluster.u32
// CHECK: nvvm.bar.warp.sync
// CHECK-NEXT: }
// CHECK: nvvm.barrier.arrive
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return
