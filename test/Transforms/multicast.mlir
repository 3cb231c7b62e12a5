// RUN: sparcast-opt %s -split-input-file -sc-multicast=report=1 -verify-diagnostics | FileCheck %s

// A persistent tile loop gets CTA pairs sharing B (cluster = 2); the body
// is untouched.
// CHECK-LABEL: func.func @persistent
// CHECK: sck.tile_loop {{.*}} attributes {cluster = 2 : i64, group = 8 : i64, schedule = #sck.tile_schedule<persistent>}
// CHECK-NEXT: ^bb0
// CHECK-NEXT: sck.load "A"
func.func @persistent(%t: index) {
  // expected-remark @below {{tile loop: CTA pairs on pairs of M tiles, B shared by TMA multicast}}
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>, group = 8} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %b] : !sck.box<64x64xf16>
  }
  return
}

// -----

// Tile loops that share a block are not paired.
// CHECK-LABEL: func.func @stages
// CHECK-NOT: cluster
func.func @stages(%t: index) {
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A1"[%m, %b] : !sck.box<64x64xf16>
  }
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %b] : !sck.box<64x64xf16>
  }
  return
}

// -----

func.func @grid(%t: index) {
  // expected-error @below {{multicast pairs CTAs that wait on each other: the tile loop must be persistent (run sc-persistent)}}
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %b] : !sck.box<64x64xf16>
  }
  return
}
