// RUN: sparcast-opt %s -split-input-file -sc-split-k=splits=4 -verify-diagnostics
// RUN: not sparcast-opt %s -split-input-file -sc-split-k=splits=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not sparcast-opt %s -split-input-file -sc-split-k=splits=17 -o /dev/null 2>&1 | FileCheck %s --check-prefix=MANY

// Splits must be 0 (auto) or 2 to 16.
// ONE: error: sc-split-k: splits must be 0 (auto) or 2 to 16, got 1
// MANY: error: sc-split-k: splits must be 0 (auto) or 2 to 16, got 17

func.func private @many_parts(%acc: !sck.acc<64x8xf32>, %t: index, %s: index, %n: index) {
  %c1 = arith.constant 1 : index
  %c17 = arith.constant 17 : index
  sck.tile_loop %n, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %m: index, %j: index):
    // expected-error @below {{splits must be 1 to 16, got 17}}
    %sum, %last = sck.reduce_splits %acc into "C"[%t] split %s of %c17 : !sck.acc<64x8xf32>
  }
  return
}

// -----

// A count known only at run time: the buffer's size must be bounded.
func.func private @unbounded(%acc: !sck.acc<64x8xf32>, %t: index, %s: index, %n: index, %parts: index) {
  %c1 = arith.constant 1 : index
  sck.tile_loop %n, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %m: index, %j: index):
    // expected-error @below {{a part count computed at run time needs max_parts}}
    %sum, %last = sck.reduce_splits %acc into "C"[%t] split %s of %parts : !sck.acc<64x8xf32>
  }
  return
}

// -----

func.func private @outside(%acc: !sck.acc<64x8xf32>, %t: index, %s: index) {
  %c2 = arith.constant 2 : index
  // expected-error @below {{only in a kernel's tile loop}}
  %sum, %last = sck.reduce_splits %acc into "C"[%t] split %s of %c2 : !sck.acc<64x8xf32>
  return
}

// -----

func.func private @producer(%acc: !sck.acc<64x8xf32>, %t: index, %s: index, %n: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  sck.role producer attributes {regs = 40 : i64} {
    sck.tile_loop %n, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %m: index, %j: index):
      // expected-error @below {{only in a consumer role}}
      %sum, %last = sck.reduce_splits %acc into "C"[%t] split %s of %c2 : !sck.acc<64x8xf32>
    }
  }
  return
}

// -----

// A k loop that does not start at 0.
func.func private @k_from_one(%n: index) attributes {sck.consumers = 1 : i64, sck.schedule = #sck.kernel_schedule<hybrid>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  sck.tile_loop %n, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %m: index, %j: index):
    %z = sck.zero : !sck.acc<64x8xf32>
    // expected-error @below {{sc-split-k: a k loop from 0 by 1}}
    %acc = scf.for %k = %c1 to %c64 step %c1 iter_args(%a = %z) -> (!sck.acc<64x8xf32>) {
      scf.yield %a : !sck.acc<64x8xf32>
    }
    sck.epilogue "C"[%c0, %c0, %b] transposed, %acc : !sck.acc<64x8xf32>
  }
  return
}

// -----

// More parts than k-tiles.
func.func private @too_many(%n: index) attributes {sck.consumers = 1 : i64, sck.schedule = #sck.kernel_schedule<hybrid>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // expected-error @below {{sc-split-k: 4 splits of 3 k-tiles}}
  sck.tile_loop %n, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %m: index, %j: index):
    %z = sck.zero : !sck.acc<64x8xf32>
    %acc = scf.for %k = %c0 to %c3 step %c1 iter_args(%a = %z) -> (!sck.acc<64x8xf32>) {
      scf.yield %a : !sck.acc<64x8xf32>
    }
    sck.epilogue "C"[%c0, %c0, %b] transposed, %acc : !sck.acc<64x8xf32>
  }
  return
}

// -----

// A persistent loop (sc-persistent ran first).
func.func private @persistent(%n: index) attributes {sck.consumers = 1 : i64, sck.schedule = #sck.kernel_schedule<hybrid>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{sc-split-k: a grid tile loop (run it before sc-persistent)}}
  sck.tile_loop %n, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %m: index, %j: index):
    %z = sck.zero : !sck.acc<64x8xf32>
    sck.epilogue "C"[%c0, %c0, %b] transposed, %z : !sck.acc<64x8xf32>
  }
  return
}
