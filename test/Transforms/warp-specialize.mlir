// RUN: sparcast-opt %s -split-input-file -sc-warp-specialize | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-warp-specialize='order=cooperative stages=3 producer-regs=24 consumer-regs=240' | FileCheck %s --check-prefix=COOP
// RUN: sparcast-opt %s -split-input-file -sc-warp-specialize=report=1 2>&1 | FileCheck %s --check-prefix=REPORT

// A tiled GEMM: the producer keeps the loads (and the k loop, now without
// the accumulator) and puts both boxes of each k-tile into the ring; the
// consumers get them where the first load was, free the slot after the
// MMA, and keep the epilogue.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[R:.*]] = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
// CHECK: sck.role producer attributes {regs = 40 : i64} {
// CHECK-NEXT: sck.tile_loop
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[T:.*]]: index, %{{.*}}: index):
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[A:.*]] = sck.load "A"[%[[K]], %[[T]]]
// CHECK-NEXT: %[[B:.*]] = sck.load "B"[%[[T]], %[[K]]]
// CHECK-NEXT: sck.put %[[R]], %[[A]], %[[B]]
// CHECK-NEXT: }
// CHECK-NOT: sck.mma
// CHECK-NOT: sck.epilogue
// CHECK: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64} {
// CHECK: %[[Z:.*]] = sck.zero
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]])
// CHECK-NEXT: %[[G:.*]]:2 = sck.get %[[R]]
// CHECK-NEXT: %[[N:.*]] = sck.mma %[[G]]#0, %[[G]]#1, %[[ACC]]
// CHECK-NEXT: sck.release %[[R]]
// CHECK-NEXT: scf.yield %[[N]]
// CHECK-NOT: sck.load
// CHECK: sck.epilogue "C"
// COOP: sck.ring {stages = 3 : i64}
// COOP: sck.role producer attributes {regs = 24 : i64}
// COOP: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 240 : i64}
// REPORT: remark: warp-specialized: producer (2 box(es) per k-tile, 40 registers) + 2 consumer(s) (pingpong, 232 registers), ring of as many slots as fit
func.func @gemm(%tiles: index, %kTiles: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<persistent>, group = 8} {
  ^bb0(%tb: index, %t: index, %tn: index):
    %zero = sck.zero : !sck.acc<64x256xf32>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%a = %zero) -> (!sck.acc<64x256xf32>) {
      %ba = sck.load "A"[%k, %t] : !sck.box<64x64xf16>
      %bb = sck.load "B"[%t, %k] : !sck.box<64x256xf16>
      %n = sck.mma %ba, %bb, %a : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
      scf.yield %n : !sck.acc<64x256xf32>
    }
    sck.epilogue "C"[%t], %acc : !sck.acc<64x256xf32>
  }
  return
}

// -----

// Coordinates only the loads use stay with the producer; the consumers do
// not compute them.
// CHECK-LABEL: func.func @coordinates
// CHECK: sck.role producer
// CHECK: arith.muli
// CHECK: sck.load
// CHECK: sck.role consumer
// CHECK-NOT: arith.muli
// CHECK: sck.get
func.func @coordinates(%tiles: index) {
  %c64 = arith.constant 64 : index
  sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%tb: index, %t: index, %tn: index):
    %row = arith.muli %t, %c64 : index
    %ba = sck.load "A"[%row] : !sck.box<64x64xf16>
    %bb = sck.load "B"[%row] : !sck.box<64x64xf16>
    %zero = sck.zero : !sck.acc<64x64xf32>
    %n = sck.mma %ba, %bb, %zero : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
    sck.epilogue "C"[%t], %n : !sck.acc<64x64xf32>
  }
  return
}

// -----

// Tile loops already in roles are left alone.
// CHECK-LABEL: func.func @done
// CHECK: sck.ring {stages = 2
// CHECK-NOT: sck.ring {
// CHECK-NOT: sck.role consumer
func.func @done(%tiles: index) {
  %r = sck.ring {stages = 2} : !sck.ring<!sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%tb: index, %t: index, %tn: index):
      %a = sck.load "A"[%t] : !sck.box<64x64xf16>
      sck.put %r, %a : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
    }
  }
  return
}

// -----

// Two tile loops in one block: one ring, one producer running both loops'
// loads in sequence, one set of consumers running both loops' MMAs and
// epilogues.
// CHECK-LABEL: func.func @stages
// CHECK: %[[R:.*]] = sck.ring
// CHECK-NOT: = sck.ring
// CHECK: sck.role producer
// CHECK: sck.tile_loop
// CHECK: sck.put %[[R]]
// CHECK: sck.tile_loop
// CHECK: sck.put %[[R]]
// CHECK-NOT: sck.epilogue
// CHECK: sck.role consumer
// CHECK: sck.tile_loop
// CHECK: sck.get %[[R]]
// CHECK: sck.epilogue "C1"
// CHECK: sck.tile_loop
// CHECK: sck.get %[[R]]
// CHECK: sck.epilogue "C"
// CHECK-NOT: sck.role
// REPORT: remark: warp-specialized: 2 tile loops in sequence, producer (1 box(es) per k-tile
func.func @stages(%t1: index, %t2: index) {
  sck.tile_loop %t1, %t1, %t1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A1"[%m, %b] : !sck.box<64x64xf16>
    %zero = sck.zero : !sck.acc<64x64xf32>
    %r = sck.mma %a, %a, %zero : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
    sck.epilogue "C1"[%n, %m, %b], %r : !sck.acc<64x64xf32>
  }
  sck.tile_loop %t2, %t2, %t2 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %b] : !sck.box<64x64xf16>
    %zero = sck.zero : !sck.acc<64x64xf32>
    %r = sck.mma %a, %a, %zero : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
    sck.epilogue "C"[%n, %m, %b], %r : !sck.acc<64x64xf32>
  }
  return
}
