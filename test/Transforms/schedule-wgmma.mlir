// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config=schedule=pingpong -sc-lower-to-sck -sc-persistent -sc-warp-specialize -sc-schedule-wgmma | FileCheck %s --check-prefixes=CHECK,PP
// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config=schedule=cooperative -sc-lower-to-sck -sc-persistent -sc-warp-specialize -sc-schedule-wgmma | FileCheck %s --check-prefixes=CHECK,COOP
// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config=schedule=pingpong -sc-lower-to-sck -sc-persistent -sc-multicast -sc-warp-specialize -sc-schedule-wgmma | FileCheck %s --check-prefix=PAIRS

// A warp-specialized GEMM of 3 k-tiles. The producer puts k-tile k of the
// tile at index t at ring position 3 t + k; the consumer gets k-tile 0
// (its MMA from the zero accumulator), then in the loop k-tile k and
// releases k - 1 after its MMA; after the loop the wait for all MMAs and
// the last k-tile's release. Ping-pong consumers wait for their turn at
// the tile's start and pass it once the last MMAs are issued; cooperative
// ones take no turns.
// CHECK-LABEL: func.func private @bmm_gemm0_kernel
// CHECK: %[[RING:.*]] = sck.ring
// CHECK: sck.role producer
// CHECK: %[[T:.*]] = sck.tile_index
// CHECK: %[[BASE:.*]] = arith.muli %[[T]], %[[C3:.*]] : index
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[P:.*]] = arith.addi %[[BASE]], %[[K]] : index
// CHECK: sck.put %[[RING]][%[[P]]],
// CHECK: sck.role consumer
// CHECK: %[[CT:.*]] = sck.tile_index
// PP-NEXT: sck.await_turn
// COOP-NOT: sck.await_turn
// CHECK: %[[CBASE:.*]] = arith.muli %[[CT]], %{{.*}} : index
// CHECK: %[[Z:.*]] = sck.zero
// CHECK: %[[G0:.*]]:2 = sck.get %[[RING]][%[[CBASE]]]
// CHECK: %[[A0:.*]] = sck.mma %[[G0]]#0, %[[G0]]#1, %[[Z]]
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[ACC:.*]] = scf.for %[[KK:.*]] = %[[ONE]] to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[A0]])
// CHECK: %[[PK:.*]] = arith.addi %[[CBASE]], %[[KK]] : index
// CHECK: %[[G:.*]]:2 = sck.get %[[RING]][%[[PK]]]
// CHECK: %[[R:.*]] = sck.mma %[[G]]#0, %[[G]]#1, %[[A]]
// CHECK: %[[PREV:.*]] = arith.subi %[[PK]], %[[ONE]] : index
// CHECK: sck.release %[[RING]][%[[PREV]]]
// CHECK: scf.yield %[[R]]
// CHECK: %[[C2:.*]] = arith.subi %[[C3]], %[[ONE]] : index
// CHECK: %[[LAST:.*]] = arith.addi %[[CBASE]], %[[C2]] : index
// PP: sck.pass_turn
// COOP-NOT: sck.pass_turn
// CHECK: sck.mma_wait 0
// CHECK: sck.release %[[RING]][%[[LAST]]]
// CHECK: sck.epilogue "C"[{{.*}}], %[[ACC]]
// CTA pairs on pairs of M tiles: a tile past the result's M tiles computes
// nothing; its consumer frees each of its slots unread and passes its turn.
// PAIRS-LABEL: func.func private @bmm_gemm0_kernel
// PAIRS: sck.role consumer
// PAIRS: sck.tile_loop %{{.*}}, %[[MT:.*]], %{{.*}} attributes {cluster = 2
// PAIRS-NEXT: ^bb0(%{{.*}}: index, %[[M:.*]]: index, %{{.*}}: index):
// PAIRS-NEXT: %[[T:.*]] = sck.tile_index
// PAIRS-NEXT: sck.await_turn
// PAIRS: %[[BASE:.*]] = arith.muli %[[T]], %{{.*}} : index
// PAIRS-NEXT: %[[LIVE:.*]] = arith.cmpi ult, %[[M]], %[[MT]] : index
// PAIRS-NEXT: scf.if %[[LIVE]] {
// PAIRS: sck.epilogue
// PAIRS: } else {
// PAIRS: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// PAIRS-NEXT: %[[P:.*]] = arith.addi %[[BASE]], %[[K]] : index
// PAIRS-NEXT: sck.discard %{{.*}}[%[[P]]]
// PAIRS: sck.pass_turn
// PAIRS-NEXT: }
func.func @bmm(%a: tensor<?x128x192xf16>, %b: tensor<?x192x256xf16>) -> tensor<?x128x256xf16> {
  %c = sc.batch_matmul %a, %b : tensor<?x128x192xf16>, tensor<?x192x256xf16> -> tensor<?x128x256xf16>
  return %c : tensor<?x128x256xf16>
}

// -----

// A tile of one k-tile has no k loop: its get at the tile's position, the
// wait and the release after its MMA.
// CHECK-LABEL: func.func private @one_k_tile_gemm0_kernel
// CHECK: sck.role consumer
// CHECK: %[[T:.*]] = sck.tile_index
// CHECK: %[[BASE:.*]] = arith.muli %[[T]], %{{.*}} : index
// CHECK: %[[G:.*]]:2 = sck.get %{{.*}}[%[[BASE]]]
// CHECK: sck.mma %[[G]]#0, %[[G]]#1, %{{.*}}
// PP-NEXT: sck.pass_turn
// CHECK-NEXT: sck.mma_wait 0
// CHECK-NEXT: sck.release %{{.*}}[%[[BASE]]]
func.func @one_k_tile(%a: tensor<?x128x64xf16>, %b: tensor<?x64x256xf16>) -> tensor<?x128x256xf16> {
  %c = sc.batch_matmul %a, %b : tensor<?x128x64xf16>, tensor<?x64x256xf16> -> tensor<?x128x256xf16>
  return %c : tensor<?x128x256xf16>
}
