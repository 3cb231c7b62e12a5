// RUN: sparcast-opt %s -split-input-file -sc-warp-specialize -verify-diagnostics
// RUN: not sparcast-opt %s -split-input-file -sc-warp-specialize='consumer-regs=240' 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not sparcast-opt %s -sc-warp-specialize='order=alternate' 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not sparcast-opt %s -sc-warp-specialize='consumers=3' 2>&1 | FileCheck %s --check-prefix=OPTIONS
// RUN: not sparcast-opt %s -sc-warp-specialize='producer-regs=42' 2>&1 | FileCheck %s --check-prefix=OPTIONS
// RUN: not sparcast-opt %s -sc-warp-specialize='stages=1' 2>&1 | FileCheck %s --check-prefix=OPTIONS

// REGS: error: registers: producer 40 + 2 x 240 exceeds the launch budget of 3 x 168
// ORDER: error: unknown order 'alternate', expected auto, pingpong or cooperative
// OPTIONS: error: sc-warp-specialize: 1 or 2 consumers, registers multiples of 8 in [24, 256] (producer: or 0, the kernel's default), stages 0 (as many as fit) or >= 2

func.func @nothing(%tiles: index) {
  // expected-error @below {{nothing to produce: the tile loop loads no box}}
  sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%tb: index, %t: index, %tn: index):
    %zero = sck.zero : !sck.acc<64x64xf32>
    sck.epilogue "C"[%t], %zero : !sck.acc<64x64xf32>
  }
  return
}

// -----

func.func @two_blocks(%tiles: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%tb: index, %t: index, %tn: index):
    %a = sck.load "A"[%t] : !sck.box<64x64xf16>
    scf.for %k = %c0 to %n step %c1 {
      // expected-error @below {{loads in more than one block}}
      %b = sck.load "B"[%k] : !sck.box<64x64xf16>
      %zero = sck.zero : !sck.acc<64x64xf32>
      %m = sck.mma %a, %b, %zero : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
      sck.epilogue "C"[%t], %m : !sck.acc<64x64xf32>
    }
  }
  return
}

// -----

func.func @escapes(%tiles: index, %n: index, %init: !sck.box<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%tb: index, %t: index, %tn: index):
    %last = scf.for %k = %c0 to %n step %c1 iter_args(%prev = %init) -> (!sck.box<64x64xf16>) {
      // expected-error @below {{a box is used outside the pass through its block that loads it}}
      %b = sck.load "B"[%k] : !sck.box<64x64xf16>
      scf.yield %b : !sck.box<64x64xf16>
    }
  }
  return
}

// -----

func.func @budget(%tiles: index) {
  sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%tb: index, %t: index, %tn: index):
    %a = sck.load "A"[%t] : !sck.box<64x64xf16>
    %zero = sck.zero : !sck.acc<64x64xf32>
    %m = sck.mma %a, %a, %zero : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
    sck.epilogue "C"[%t], %m : !sck.acc<64x64xf32>
  }
  return
}

// -----

func.func @stages_other_boxes(%t: index) {
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A1"[%m, %b] : !sck.box<64x64xf16>
  }
  // expected-error @below {{the tile loops of one kernel share its ring: this one loads other boxes than the first}}
  sck.tile_loop %t, %t, %t attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %m: index, %n: index):
    %a = sck.load "A"[%m, %b] : !sck.box<128x64xf16>
  }
  return
}
