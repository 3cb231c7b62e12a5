// RUN: sparcast-opt %S/Inputs/wgmma-pingpong.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.tile_loop: the CTA's walk (persistent: tiles c, c + CTAs, ...; the
// count of its tiles from the batch x 4 M tiles x 1 N tile), decoded in
// groups of 8 M tiles. The producer walks every tile, ping-pong consumer
// w every other one from w. sck.tile_index is the walk's induction
// variable (the ring position's base: index x 2 k-tiles); the consumer's
// turns wait on named barrier 5 - w (not before the first tile) and hand
// over on 4 + w (not after the last).
// CHECK-LABEL: gpu.func @gather_add(
// CHECK: %[[CTA:.*]] = gpu.block_id x
// CHECK: %[[CTAS:.*]] = gpu.grid_dim x
// CHECK: %[[MINE:.*]] = arith.select %{{.*}}, %{{.*}}, %c0 : index
// CHECK: scf.for %[[I:.*]] = %c0 to %[[MINE]] step %c1 {
// CHECK: arith.muli %[[I]], %[[CTAS]] : index
// CHECK: arith.muli %[[I]], %c2 : index
// CHECK: scf.for %[[J:.*]] = %[[WG:.*]] to %[[MINE]] step %c2 {
// CHECK: %[[NOTFIRST:.*]] = arith.cmpi ugt, %[[J]], %c0 : index
// CHECK-NEXT: scf.if %[[NOTFIRST]] {
// CHECK: %[[ID:.*]] = arith.subi %c5, %[[WG]] : index
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: %[[BASE:.*]] = arith.muli %[[J]], %c2 : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[J]], %c1 : index
// CHECK: %[[NOTLAST:.*]] = arith.cmpi ult, %[[NEXT]], %[[MINE]] : index
// CHECK-NEXT: scf.if %[[NOTLAST]] {
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
