// RUN: sparcast-opt %s -split-input-file -sc-persistent | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-persistent=group=4 | FileCheck %s --check-prefix=G4
// RUN: sparcast-opt %s -split-input-file -sc-persistent='group=4 report=1' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not sparcast-opt %s -split-input-file -sc-persistent=group=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sparcast-opt %s -split-input-file -sc-persistent=group=99999999999 2>&1 | FileCheck %s --check-prefix=HUGE

// A grid tile loop (one CTA per tile) becomes persistent, M tiles in groups
// of 8 by default; the body is untouched (the loop owns the order).
// CHECK-LABEL: func.func @grid
// CHECK: sck.tile_loop %{{.*}}, %{{.*}}, %{{.*}} attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index):
// CHECK-NEXT: sck.load "A"[%[[M]], %[[B]]]
// CHECK-NEXT: sck.load "B"[%[[N]], %[[B]]]
// REPORT: remark: tile loop: persistent, M tiles in groups of 4
// G4-LABEL: func.func @grid
// G4: sck.tile_loop {{.*}} attributes {group = 4 : i64, schedule = #sck.tile_schedule<persistent>}
// BAD: error: sc-persistent: group must lie in [1, 65536], got 0
// HUGE: error: sc-persistent: group must lie in [1, 65536], got 99999999999
func.func @grid(%batches: index, %mTiles: index, %nTiles: index) {
  sck.tile_loop %batches, %mTiles, %nTiles attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %b] : !sck.box<64x64xf16>
    %w = sck.load "B"[%n, %b] : !sck.box<64x256xf16>
  }
  return
}

// -----

// A loop already persistent keeps its group.
// CHECK-LABEL: func.func @persistent
// CHECK: sck.tile_loop {{.*}} attributes {group = 2 : i64, schedule = #sck.tile_schedule<persistent>}
// REPORT: remark: tile loop: persistent, M tiles in groups of 2
func.func @persistent(%batches: index, %mTiles: index, %nTiles: index) {
  sck.tile_loop %batches, %mTiles, %nTiles attributes {schedule = #sck.tile_schedule<persistent>, group = 2} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %b] : !sck.box<64x64xf16>
  }
  return
}

// -----

// Inside roles (after sc-warp-specialize) every copy of the loop changes
// alike.
// CHECK-LABEL: func.func @roles
// CHECK: sck.role producer
// CHECK: sck.tile_loop {{.*}} attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>}
// CHECK: sck.role consumer
// CHECK: sck.tile_loop {{.*}} attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>}
func.func @roles(%t: index) {
  %r = sck.ring {stages = 2} : !sck.ring<!sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %m: index, %n: index):
      %a = sck.load "A"[%m, %b] : !sck.box<64x64xf16>
      sck.put %r, %a : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
    }
  }
  sck.role consumer attributes {regs = 232, count = 2, order = #sck.consumer_order<pingpong>} {
    sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %m: index, %n: index):
      %a = sck.get %r : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
      sck.release %r : !sck.ring<!sck.box<64x64xf16>>
    }
  }
  return
}
