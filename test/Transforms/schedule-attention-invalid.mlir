// RUN: sparcast-opt %s -split-input-file -sc-schedule-attention -verify-diagnostics

// Kernel-level IR the schedule does not take is a located error (a
// warp-specialized attention of one CTA a tile, as sc-warp-specialize
// leaves it: Q got once, per key block a K/V slot, S = Q K^T, a softmax
// step, O rescaled plus P V).

func.func private @pingpong_consumers(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %qr = sck.ring {stages = 0} : !sck.ring<!sck.box<64x64xf16>>
  %kv = sck.ring {stages = 0} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %t: index, %h: index):
      %q = sck.load "Q"[%c0, %c0, %h, %b] : !sck.box<64x64xf16>
      sck.put %qr, %q : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
      scf.for %i = %c0 to %c2 step %c1 {
        %k0 = arith.muli %i, %c64 : index
        %k = sck.load "K"[%c0, %k0, %h, %b] {transposed} : !sck.box<64x64xf16>
        %v = sck.load "V"[%c0, %k0, %h, %b] : !sck.box<64x64xf16>
        sck.put %kv, %k, %v : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>, !sck.box<64x64xf16>, !sck.box<64x64xf16>
      }
    }
  }
  // expected-error @below {{sc-schedule-attention: one consumer, or two taking turns}}
  sck.role consumer attributes {count = 2, order = #sck.consumer_order<pingpong>, regs = 232} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %t: index, %h: index):
      %q = sck.get %qr : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
      %o0 = sck.zero : !sck.acc<64x64xf32>
      %st0 = sck.softmax_init : !sck.acc<64x2xf32>
      %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%o = %o0, %st = %st0) -> (!sck.acc<64x64xf32>, !sck.acc<64x2xf32>) {
        %k0 = arith.muli %i, %c64 : index
        %g:2 = sck.get %kv : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>> -> !sck.box<64x64xf16>, !sck.box<64x64xf16>
        %z = sck.zero : !sck.acc<64x64xf32>
        %s = sck.mma %q, %g#0, %z : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        %p, %st2 = sck.softmax %s, %st at %k0 of %c100 {scale = 1.0 : f32} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
        %o2 = sck.rescale %o, %st to %st2 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
        %o3 = sck.mma %p, %g#1, %o2 : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        sck.release %kv : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
        scf.yield %o3, %st2 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
      }
      sck.release %qr : !sck.ring<!sck.box<64x64xf16>>
      %n = sck.normalize %r#0, %r#1 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
      sck.epilogue "O"[%c0, %c0, %h, %b], %n : !sck.acc<64x64xf32>
    }
  }
  return
}

// -----

func.func private @scheduled_already(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %qr = sck.ring {stages = 0} : !sck.ring<!sck.box<64x64xf16>>
  %kv = sck.ring {stages = 0} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %t: index, %h: index):
      %q = sck.load "Q"[%c0, %c0, %h, %b] : !sck.box<64x64xf16>
      sck.put %qr, %q : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
      scf.for %i = %c0 to %c2 step %c1 {
        %k0 = arith.muli %i, %c64 : index
        %k = sck.load "K"[%c0, %k0, %h, %b] {transposed} : !sck.box<64x64xf16>
        %v = sck.load "V"[%c0, %k0, %h, %b] : !sck.box<64x64xf16>
        sck.put %kv, %k, %v : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>, !sck.box<64x64xf16>, !sck.box<64x64xf16>
      }
    }
  }
  sck.role consumer attributes {regs = 232} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %t: index, %h: index):
      %q = sck.get %qr [%c0] : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
      %o0 = sck.zero : !sck.acc<64x64xf32>
      %st0 = sck.softmax_init : !sck.acc<64x2xf32>
      // expected-error @below {{sc-schedule-attention: a tile not scheduled yet (its slots at no named position)}}
      %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%o = %o0, %st = %st0) -> (!sck.acc<64x64xf32>, !sck.acc<64x2xf32>) {
        %k0 = arith.muli %i, %c64 : index
        %g:2 = sck.get %kv : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>> -> !sck.box<64x64xf16>, !sck.box<64x64xf16>
        %z = sck.zero : !sck.acc<64x64xf32>
        %s = sck.mma %q, %g#0, %z : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        %p, %st2 = sck.softmax %s, %st at %k0 of %c100 {scale = 1.0 : f32} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
        %o2 = sck.rescale %o, %st to %st2 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
        %o3 = sck.mma %p, %g#1, %o2 : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        sck.release %kv : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
        scf.yield %o3, %st2 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
      }
      sck.release %qr : !sck.ring<!sck.box<64x64xf16>>
      %n = sck.normalize %r#0, %r#1 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
      sck.epilogue "O"[%c0, %c0, %h, %b], %n : !sck.acc<64x64xf32>
    }
  }
  return
}

// -----

func.func private @scores_of_other_boxes(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %qr = sck.ring {stages = 0} : !sck.ring<!sck.box<64x64xf16>>
  %kv = sck.ring {stages = 0} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %t: index, %h: index):
      %q = sck.load "Q"[%c0, %c0, %h, %b] : !sck.box<64x64xf16>
      sck.put %qr, %q : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
      scf.for %i = %c0 to %c2 step %c1 {
        %k0 = arith.muli %i, %c64 : index
        %k = sck.load "K"[%c0, %k0, %h, %b] {transposed} : !sck.box<64x64xf16>
        %v = sck.load "V"[%c0, %k0, %h, %b] : !sck.box<64x64xf16>
        sck.put %kv, %k, %v : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>, !sck.box<64x64xf16>, !sck.box<64x64xf16>
      }
    }
  }
  sck.role consumer attributes {regs = 232} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %t: index, %h: index):
      %q = sck.get %qr : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
      %o0 = sck.zero : !sck.acc<64x64xf32>
      %st0 = sck.softmax_init : !sck.acc<64x2xf32>
      // expected-error @below {{sc-schedule-attention: each consumer's Q boxes times the slot's K boxes}}
      %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%o = %o0, %st = %st0) -> (!sck.acc<64x64xf32>, !sck.acc<64x2xf32>) {
        %k0 = arith.muli %i, %c64 : index
        %g:2 = sck.get %kv : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>> -> !sck.box<64x64xf16>, !sck.box<64x64xf16>
        %z = sck.zero : !sck.acc<64x64xf32>
        %s = sck.mma %q, %g#1, %z : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        %p, %st2 = sck.softmax %s, %st at %k0 of %c100 {scale = 1.0 : f32} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
        %o2 = sck.rescale %o, %st to %st2 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
        %o3 = sck.mma %p, %g#1, %o2 : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        sck.release %kv : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
        scf.yield %o3, %st2 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
      }
      sck.release %qr : !sck.ring<!sck.box<64x64xf16>>
      %n = sck.normalize %r#0, %r#1 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
      sck.epilogue "O"[%c0, %c0, %h, %b], %n : !sck.acc<64x64xf32>
    }
  }
  return
}

// -----

func.func private @o_not_rescaled(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %qr = sck.ring {stages = 0} : !sck.ring<!sck.box<64x64xf16>>
  %kv = sck.ring {stages = 0} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %t: index, %h: index):
      %q = sck.load "Q"[%c0, %c0, %h, %b] : !sck.box<64x64xf16>
      sck.put %qr, %q : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
      scf.for %i = %c0 to %c2 step %c1 {
        %k0 = arith.muli %i, %c64 : index
        %k = sck.load "K"[%c0, %k0, %h, %b] {transposed} : !sck.box<64x64xf16>
        %v = sck.load "V"[%c0, %k0, %h, %b] : !sck.box<64x64xf16>
        sck.put %kv, %k, %v : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>, !sck.box<64x64xf16>, !sck.box<64x64xf16>
      }
    }
  }
  sck.role consumer attributes {regs = 232} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %t: index, %h: index):
      %q = sck.get %qr : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
      %o0 = sck.zero : !sck.acc<64x64xf32>
      %st0 = sck.softmax_init : !sck.acc<64x2xf32>
      // expected-error @below {{sc-schedule-attention: O rescaled to each step's maxima plus P V}}
      %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%o = %o0, %st = %st0) -> (!sck.acc<64x64xf32>, !sck.acc<64x2xf32>) {
        %k0 = arith.muli %i, %c64 : index
        %g:2 = sck.get %kv : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>> -> !sck.box<64x64xf16>, !sck.box<64x64xf16>
        %z = sck.zero : !sck.acc<64x64xf32>
        %s = sck.mma %q, %g#0, %z : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        %p, %st2 = sck.softmax %s, %st at %k0 of %c100 {scale = 1.0 : f32} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
        %o2 = sck.rescale %o, %st to %st2 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
        %o3 = sck.mma %p, %g#1, %o : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        sck.release %kv : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>>
        scf.yield %o3, %st2 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
      }
      sck.release %qr : !sck.ring<!sck.box<64x64xf16>>
      %n = sck.normalize %r#0, %r#1 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
      sck.epilogue "O"[%c0, %c0, %h, %b], %n : !sck.acc<64x64xf32>
    }
  }
  return
}
