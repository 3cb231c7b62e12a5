// RUN: sparcast-opt %s -split-input-file -sc-multicast='shared-rhs-only=1 report=1' -verify-diagnostics | FileCheck %s

// shared-rhs-only (sparcast-aot's default): only a cooperative or ping-pong
// GEMM whose A is batched and whose B is not (x @ w) gets CTA pairs; anything else is
// left alone, grid loops without an error.

// CHECK-LABEL: func.func @shared_rhs
// CHECK: sck.tile_loop {{.*}} attributes {cluster = 2 : i64, group = 8 : i64, schedule = #sck.tile_schedule<persistent>}
func.func @shared_rhs(%t: index) attributes {sck.schedule = #sck.kernel_schedule<cooperative>} {
  // expected-remark @below {{tile loop: CTA pairs on pairs of M tiles, B shared by TMA multicast}}
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>, group = 8} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %m, %b] : !sck.box<128x64xf16>
    %w = sck.load "B"[%m, %n] {transposed} : !sck.box<256x64xf16>
  }
  return
}

// -----

// Ping-pong too (x @ w^T: 0.797 -> 0.469 ms with the pairs, H200 session
// 19; cooperative with pairs, the default for x @ w, 0.379).
// CHECK-LABEL: func.func @shared_rhs_pingpong
// CHECK: sck.tile_loop {{.*}} attributes {cluster = 2 : i64, group = 8 : i64, schedule = #sck.tile_schedule<persistent>}
func.func @shared_rhs_pingpong(%t: index) attributes {sck.schedule = #sck.kernel_schedule<pingpong>} {
  // expected-remark @below {{tile loop: CTA pairs on pairs of M tiles, B shared by TMA multicast}}
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>, group = 8} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %m, %b] : !sck.box<64x64xf16>
    %w = sck.load "B"[%m, %n] {transposed} : !sck.box<256x64xf16>
  }
  return
}

// -----

// Both batched (the LCE's candidate GEMM is W @ E[b]: A shared, B batched).
// CHECK-LABEL: func.func @batched_rhs
// CHECK-NOT: cluster
func.func @batched_rhs(%t: index) attributes {sck.schedule = #sck.kernel_schedule<cooperative>} {
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>, group = 8} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %m] : !sck.box<128x64xf16>
    %e = sck.load "B"[%n, %m, %b] : !sck.box<64x256xf16>
  }
  return
}

// -----

// One CTA per tile: no pairs (they would wait on each other), no error.
// CHECK-LABEL: func.func @grid
// CHECK-NOT: cluster
func.func @grid(%t: index) attributes {sck.schedule = #sck.kernel_schedule<cooperative>} {
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %m, %b] : !sck.box<128x64xf16>
    %w = sck.load "B"[%m, %n] {transposed} : !sck.box<256x64xf16>
  }
  return
}

// -----

// B's boxes copied by threads (rows that are no TMA stride) cannot be
// multicast: no pairs.
// CHECK-LABEL: func.func @rhs_by_threads
// CHECK-NOT: cluster
func.func @rhs_by_threads(%t: index) attributes {sck.schedule = #sck.kernel_schedule<cooperative>} {
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>, group = 8} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %m, %b] : !sck.box<128x64xf16>
    %w = sck.load "B"[%m, %n] {by_threads} : !sck.box<64x256xf16>
  }
  return
}
