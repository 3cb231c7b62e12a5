// RUN: sparcast-opt %s -sc-lower-to-sck=attention=1 -sc-warp-specialize -sc-schedule-attention -canonicalize | FileCheck %s
// RUN: sparcast-opt %s -sc-lower-to-sck=attention=1 -sc-warp-specialize -sc-schedule-attention -canonicalize | FileCheck %s --check-prefix=PRODUCER
// RUN: sparcast-opt %s -sc-lower-to-sck=attention=1 -sc-warp-specialize -sc-schedule-attention -canonicalize | FileCheck %s --check-prefix=TURNS
// RUN: sparcast-opt %s -sc-lower-to-sck=attention=1 -sc-schedule-attention | FileCheck %s --check-prefix=UNSPLIT
// RUN: sparcast-opt %s -sc-select-kernel-config -sc-lower-to-sck=attention=1 -sc-warp-specialize -sc-schedule-attention -canonicalize | FileCheck %s --check-prefix=CHAINED

// One consumer (40 query rows, 300 keys in five 64-key blocks): Q in a
// ring of its own, read into registers once (its slot freed at once), K
// and V each in rings of their own. Block 0's Q K^T alone, its wait
// and K freed, its softmax; then each block's Q K^T with the block
// before's P V, the wait for the Q K^T, K freed, the softmax, the wait for
// the P V, V freed and O rescaled; the last P V after the loop. Ring
// positions count from the tile's index: 5 key blocks a tile.
// CHECK-LABEL: func.func private @single_attention0_kernel
// CHECK-DAG: %[[QR:.*]] = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>>
// CHECK-DAG: %[[KR:.*]] = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>>
// CHECK-DAG: %[[VR:.*]] = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>>
// CHECK: sck.role consumer attributes {regs = 232 : i64}
// CHECK-NOT: sck.consumer_index
// CHECK: %[[T:.*]] = sck.tile_index
// CHECK: %[[BASE:.*]] = arith.muli %[[T]], %c5 : index
// CHECK: %[[QBOX:.*]] = sck.get %[[QR]][%[[T]]]
// CHECK-NEXT: %[[Q:.*]] = sck.load_frag %[[QBOX]] : !sck.box<64x64xf16> -> !sck.frag<64x64xf16>
// CHECK-NEXT: sck.release %[[QR]][%[[T]]]
// CHECK: %[[K0:.*]] = sck.get %[[KR]][%[[BASE]]]
// CHECK-NOT: sck.await_turn
// CHECK: %[[S0:.*]] = sck.mma %[[Q]], %[[K0]]
// CHECK-NEXT: sck.mma_wait 0
// CHECK-NEXT: sck.release %[[KR]][%[[BASE]]]
// CHECK: %[[P0:.*]], %[[ST0:.*]] = sck.softmax %[[S0]], %{{.*}} at %c0 of %c300
// CHECK: %[[R:.*]]:3 = scf.for %[[I:.*]] = %c1 to %c5 step %c1 iter_args(%[[O:.*]] = %{{.*}}, %[[ST:.*]] = %[[ST0]], %[[P:.*]] = %[[P0]])
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[BASE]], %[[I]] : index
// CHECK-NEXT: %[[BEFORE:.*]] = arith.subi %[[AT]], %c1 : index
// CHECK-NEXT: %[[K:.*]] = sck.get %[[KR]][%[[AT]]]
// CHECK-NEXT: %[[V:.*]] = sck.get %[[VR]][%[[BEFORE]]]
// CHECK-NEXT: sck.zero
// CHECK-NEXT: %[[S:.*]] = sck.mma %[[Q]], %[[K]]
// CHECK-NEXT: %[[PV:.*]] = sck.mma %[[P]], %[[V]], %[[O]]
// CHECK-NEXT: sck.mma_wait 1
// CHECK-NEXT: sck.release %[[KR]][%[[AT]]]
// CHECK-NEXT: %[[KEY:.*]] = arith.muli %[[I]], %c64 : index
// CHECK-NEXT: %[[PN:.*]], %[[STN:.*]] = sck.softmax %[[S]], %[[ST]] at %[[KEY]] of %c300
// CHECK-NEXT: sck.mma_wait 0
// CHECK-NEXT: sck.release %[[VR]][%[[BEFORE]]]
// CHECK-NEXT: %[[RS:.*]] = sck.rescale %[[PV]], %[[ST]] to %[[STN]]
// CHECK-NEXT: scf.yield %[[RS]], %[[STN]], %[[PN]]
// CHECK: %[[LAST:.*]] = arith.addi %[[BASE]], %c4 : index
// CHECK-NEXT: %[[VL:.*]] = sck.get %[[VR]][%[[LAST]]]
// CHECK-NEXT: %[[OL:.*]] = sck.mma %[[R]]#2, %[[VL]], %[[R]]#0
// CHECK-NEXT: sck.mma_wait 0
// CHECK-NEXT: sck.release %[[VR]][%[[LAST]]]
// CHECK-NEXT: %[[N:.*]] = sck.normalize %[[OL]], %[[R]]#1
// CHECK-NEXT: sck.epilogue "O"[%c0, %{{.*}}, %{{.*}}, %{{.*}}], %[[N]]
// The producer puts each block's K and V at the positions the consumer
// gets them.
// PRODUCER-LABEL: func.func private @single_attention0_kernel
// PRODUCER: sck.role producer
// PRODUCER: %[[T:.*]] = sck.tile_index
// PRODUCER: sck.put %{{.*}}[%[[T]]], %{{.*}} : !sck.ring<!sck.box<64x64xf16>>
// PRODUCER: %[[BASE:.*]] = arith.muli %[[T]], %c5 : index
// PRODUCER: scf.for %[[I:.*]] = %c0 to %c5
// PRODUCER: %[[AT:.*]] = arith.addi %[[BASE]], %[[I]] : index
// PRODUCER: sck.put %{{.*}}[%[[AT]]], %{{.*}} : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
// PRODUCER-NEXT: sck.put %{{.*}}[%[[AT]]], %{{.*}} : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
func.func @single(%q: tensor<?x1x40x64xf16>, %k: tensor<?x1x300x64xf16>, %v: tensor<?x1x300x64xf16>) -> tensor<?x1x40x64xf16> {
  %o = sc.attention %q, %k, %v : tensor<?x1x40x64xf16>, tensor<?x1x300x64xf16>, tensor<?x1x300x64xf16> -> tensor<?x1x40x64xf16>
  return %o : tensor<?x1x40x64xf16>
}

// Two consumers on the halves of a 128-row query block (500 rows: the
// second half of the last block has none): each runs the tile as its own,
// its Q at position 2 t + c and its rows of the result; they take turns
// when both compute (consumer 1 waits for its first turn, consumer 0 does
// not give one after its last); a consumer without rows frees its Q and
// each block's K and V unread.
// TURNS-LABEL: func.func private @split_attention0_kernel
// TURNS: sck.role producer
// TURNS: %[[PT:.*]] = sck.tile_index
// TURNS: %[[Q0:.*]] = sck.load "Q"
// TURNS: %[[Q1:.*]] = sck.load "Q"
// TURNS: %[[P0:.*]] = arith.muli %[[PT]], %c2 : index
// TURNS: sck.put %{{.*}}[%[[P0]]], %[[Q0]]
// TURNS: %[[P1:.*]] = arith.addi %{{.*}}, %c1 : index
// TURNS: sck.put %{{.*}}[%[[P1]]], %[[Q1]]
// TURNS: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<turns>, regs = 232 : i64}
// TURNS-NEXT: %[[C:.*]] = sck.consumer_index
// TURNS: %[[T:.*]] = sck.tile_index
// TURNS: %[[ROW0:.*]] = arith.muli %{{.*}}, %c128 : index
// TURNS: %[[ROW1:.*]] = arith.addi %[[ROW0]], %c64 : index
// TURNS: %[[OWNS:.*]] = arith.cmpi ult, %[[ROW1]], %c500 : index
// TURNS: %[[QAT:.*]] = arith.addi %{{.*}}, %[[C]] : index
// TURNS: %[[FIRST:.*]] = arith.cmpi eq, %[[C]], %c0 : index
// TURNS: %[[ACTIVE:.*]] = arith.ori %[[FIRST]], %[[OWNS]] : i1
// TURNS: %[[SECOND:.*]] = arith.cmpi ne, %[[C]], %c0 : index
// TURNS: %[[WAIT0:.*]] = arith.andi %[[OWNS]], %[[SECOND]] : i1
// TURNS: %[[PASSLAST:.*]] = arith.andi %[[OWNS]], %[[FIRST]] : i1
// TURNS: scf.if %[[ACTIVE]] {
// TURNS: sck.get %{{.*}}[%[[QAT]]]
// TURNS: scf.if %[[WAIT0]] {
// TURNS-NEXT: sck.await_turn
// TURNS: scf.if %[[OWNS]] {
// TURNS-NEXT: sck.pass_turn
// TURNS: scf.for
// TURNS: scf.if %[[OWNS]] {
// TURNS-NEXT: sck.await_turn
// TURNS: scf.if %[[OWNS]] {
// TURNS-NEXT: sck.pass_turn
// TURNS: scf.yield
// TURNS: scf.if %[[OWNS]] {
// TURNS-NEXT: sck.await_turn
// TURNS: scf.if %[[PASSLAST]] {
// TURNS-NEXT: sck.pass_turn
// TURNS: %[[ROW:.*]] = arith.select %{{.*}}, %[[ROW0]], %[[ROW1]] : index
// TURNS: sck.epilogue "O"[%c0, %[[ROW]],
// TURNS: } else {
// TURNS-NEXT: sck.discard %{{.*}}[%[[QAT]]]
// TURNS-NEXT: scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// TURNS-NEXT: %[[AT:.*]] = arith.addi %{{.*}}, %[[I]] : index
// TURNS-NEXT: sck.discard %{{.*}}[%[[AT]]] : !sck.ring<!sck.box<64x128xbf16>>
// TURNS-NEXT: sck.discard %{{.*}}[%[[AT]]] : !sck.ring<!sck.box<128x64xbf16>>
func.func @split(%q: tensor<?x2x500x64xbf16>, %k: tensor<?x2x500x64xbf16>, %v: tensor<?x2x500x64xbf16>) -> tensor<?x2x500x64xbf16> {
  %o = sc.attention %q, %k, %v : tensor<?x2x500x64xbf16>, tensor<?x2x500x64xbf16>, tensor<?x2x500x64xbf16> -> tensor<?x2x500x64xbf16>
  return %o : tensor<?x2x500x64xbf16>
}

// Two candidates of one request: a tile runs under its leading
// candidate's condition, the second consumer when the candidate has a
// partner, storing at the partner's batch element. Q K^T reads Q from
// shared memory here (no register copy), its slot freed after the last.
// TURNS-LABEL: func.func private @pairs_attention0_kernel
// TURNS: sck.role consumer
// TURNS-NEXT: %[[C:.*]] = sck.consumer_index
// TURNS: ^bb0(%[[B:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// TURNS: %[[LEADS:.*]] = arith.cmpi sge
// TURNS-NEXT: scf.if %[[LEADS]] {
// TURNS-NEXT: %[[HAS:.*]] = arith.cmpi sgt
// TURNS: %[[PARTNER:.*]] = arith.select %[[HAS]], %{{.*}}, %[[B]] : index
// TURNS: %[[ACTIVE:.*]] = arith.ori %{{.*}}, %[[HAS]] : i1
// TURNS: scf.if %[[ACTIVE]] {
// TURNS-NOT: sck.load_frag
// TURNS: scf.for %{{.*}} = %c1 to %c16
// TURNS: sck.release %{{.*}} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
// TURNS: %[[BATCH:.*]] = arith.select %{{.*}}, %[[B]], %[[PARTNER]] : index
// TURNS: sck.epilogue "O"[%c0, %{{.*}}, %{{.*}}, %[[BATCH]]]
func.func @pairs(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x2000x128xf16>, %v: tensor<?x2x2000x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2000x128xf16>, tensor<?x2x2000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

// Not warp-specialized: nothing to order.
// UNSPLIT-LABEL: func.func private @single_attention0_kernel
// UNSPLIT-NOT: sck.role
// UNSPLIT-NOT: sck.tile_index
// UNSPLIT: sck.load "Q"

// The chained walk (one consumer a candidate, at most 1024 keys): each
// role's tile loop becomes the CTA's walk (sck.walk_size, sck.walk_tile);
// the consumer's pipeline runs across tiles: tile 0's blocks before a loop
// over the others, each of which issues its block 0's Q K^T with the tile
// before's last P V, then stores that tile's O at the coordinates the loop
// carries; the last tile's last P V after it, the whole under the CTA
// having tiles.
// CHAINED-LABEL: func.func private @chained_attention0_kernel
// The producer loads tile 0's Q before the walk and each next tile's after
// block 1 of the tile before (a block into it, not after its last).
// CHAINED: sck.role producer
// CHAINED: %[[PN:.*]] = sck.walk_size
// CHAINED: scf.if
// CHAINED: sck.walk_tile %c0 of
// CHAINED: sck.put %{{.*}}[%c0]
// CHAINED: scf.for %[[PI:.*]] = %c0 to %[[PN]] step %c1 {
// CHAINED-NEXT: sck.walk_tile %[[PI]] of
// CHAINED: scf.for %[[J:.*]] =
// CHAINED: sck.put
// CHAINED: sck.put
// CHAINED: %[[NEXT:.*]] = arith.addi %[[PI]], %c1 : index
// CHAINED: %[[AT:.*]] = arith.cmpi eq, %[[J]], %c1 : index
// CHAINED: scf.if
// CHAINED-NEXT: sck.walk_tile %[[NEXT]] of
// CHAINED: sck.put %{{.*}}[%[[NEXT]]]
// CHAINED: sck.role consumer
// CHAINED: %[[N:.*]] = sck.walk_size
// CHAINED: %[[ANY:.*]] = arith.cmpi ugt, %[[N]], %c0 : index
// CHAINED-NEXT: scf.if %[[ANY]] {
// CHAINED: sck.walk_tile %c0 of
// CHAINED: scf.for
// CHAINED: %[[T:.*]]:6 = scf.for %[[I:.*]] = %c1 to %[[N]] step %c1 iter_args(%[[O:.*]] = %{{.*}}, %[[ST:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[R:.*]] = %{{.*}}, %[[H:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}})
// CHAINED-NEXT: sck.walk_tile %[[I]] of
// CHAINED: sck.get %{{.*}}[%[[I]]]
// CHAINED: %[[DONE:.*]] = sck.mma %[[P]], %{{.*}}, %[[O]]
// CHAINED-NEXT: sck.mma_wait 1
// CHAINED: sck.mma_wait 0
// CHAINED: %[[NORM:.*]] = sck.normalize %[[DONE]], %[[ST]]
// CHAINED-NEXT: sck.epilogue "O"[%c0, %[[R]], %[[H]], %[[B]]], %[[NORM]]
// CHAINED: scf.for
// CHAINED: scf.yield
// CHAINED: sck.mma %[[T]]#2, %{{.*}}, %[[T]]#0
// CHAINED: sck.epilogue "O"[%c0, %[[T]]#3, %[[T]]#4, %[[T]]#5]
func.func @chained(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x1000x128xf16>, %v: tensor<?x2x1000x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x1000x128xf16>, tensor<?x2x1000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}
