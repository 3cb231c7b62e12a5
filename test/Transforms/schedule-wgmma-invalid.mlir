// RUN: sparcast-opt %s -split-input-file -sc-schedule-wgmma -verify-diagnostics

// Kernel-level IR of a warp-specialized GEMM that sc-schedule-wgmma does not
// take: each refusal is a located error.

func.func private @put_at_position(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<pingpong>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      %a = sck.load "A"[%c0, %m] : !sck.box<64x64xf16>
      // expected-error @below {{sc-schedule-wgmma: a put at a named position already}}
      sck.put %ring[%c0], %a : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
    }
  }
  sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
    }
  }
  return
}

// -----

func.func private @k_loop_from_one(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<cooperative>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
  sck.role producer attributes {regs = 40 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      // expected-error @below {{sc-schedule-wgmma: one k loop a tile, from 0 by 1 to a count the same for every tile}}
      scf.for %k = %c1 to %c3 step %c1 {
        %a = sck.load "A"[%k, %m] : !sck.box<128x64xf16>
        %bb = sck.load "B"[%n, %k, %b] : !sck.box<64x256xf16>
        sck.put %ring, %a, %bb : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
      }
    }
  }
  sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
    }
  }
  return
}

// -----

func.func private @mma_of_other_boxes(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<cooperative>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
  sck.role producer attributes {regs = 40 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      %a = sck.load "A"[%c0, %m] : !sck.box<128x64xf16>
      %bb = sck.load "B"[%n, %c0, %b] : !sck.box<64x256xf16>
      sck.put %ring, %a, %bb : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
    }
  }
  sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
    // expected-error @below {{sc-schedule-wgmma: a consumer k-tile of one get, one MMA of its boxes and one release}}
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      %zero = sck.zero : !sck.acc<128x256xf32>
      %g:2 = sck.get %ring : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>> -> !sck.box<128x64xf16>, !sck.box<64x256xf16>
      %a = sck.load "A"[%c0, %m] : !sck.box<128x64xf16>
      %acc = sck.mma %a, %g#1, %zero : !sck.box<128x64xf16>, !sck.box<64x256xf16>, !sck.acc<128x256xf32>
      sck.release %ring : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
      sck.epilogue "C"[%n, %m, %b], %acc : !sck.acc<128x256xf32>
    }
  }
  return
}

// -----

func.func private @k_loop_from_an_accumulator(%batch: index, %start: !sck.acc<128x256xf32>) attributes {sck.schedule = #sck.kernel_schedule<cooperative>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
  sck.role producer attributes {regs = 40 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      scf.for %k = %c0 to %c2 step %c1 {
        %a = sck.load "A"[%k, %m] : !sck.box<128x64xf16>
        %bb = sck.load "B"[%n, %k, %b] : !sck.box<64x256xf16>
        sck.put %ring, %a, %bb : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
      }
    }
  }
  sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      // expected-error @below {{sc-schedule-wgmma: a k loop accumulating its MMAs from zero}}
      %acc = scf.for %k = %c0 to %c2 step %c1 iter_args(%x = %start) -> (!sck.acc<128x256xf32>) {
        %g:2 = sck.get %ring : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>> -> !sck.box<128x64xf16>, !sck.box<64x256xf16>
        %r = sck.mma %g#0, %g#1, %x : !sck.box<128x64xf16>, !sck.box<64x256xf16>, !sck.acc<128x256xf32>
        sck.release %ring : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
        scf.yield %r : !sck.acc<128x256xf32>
      }
      sck.epilogue "C"[%n, %m, %b], %acc : !sck.acc<128x256xf32>
    }
  }
  return
}

// -----

// A hybrid k-tile whose weight ring is released before its MMA's case: not
// the form sc-warp-specialize leaves.
func.func private @hybrid_release_outside_case(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<hybrid>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x8xf16>>
  %w = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x128xf16>>
  sck.role producer attributes {regs = 128 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %m: index, %n: index):
    }
  }
  sck.role consumer attributes {regs = 128 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %m: index, %n: index):
      %z = sck.zero : !sck.acc<64x8xf32>
      // expected-error @below {{sc-schedule-wgmma: a hybrid k-tile of one get of the tokens, one hybrid_tile, a switch on its kind (each MMA case releasing its weight ring after its MMA) and the tokens' release}}
      %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %z) -> (!sck.acc<64x8xf32>) {
        %t = sck.get %x : !sck.ring<!sck.box<128x8xf16>> -> !sck.box<128x8xf16>
        %kind, %slot = sck.hybrid_tile "B"[%n, %k]
        sck.release %w : !sck.ring<!sck.box<64x128xf16>>
        %next = scf.index_switch %kind -> !sck.acc<64x8xf32>
        case 1 {
          %d = sck.get %w : !sck.ring<!sck.box<64x128xf16>> -> !sck.box<64x128xf16>
          %y = sck.mma %d, %t, %acc : !sck.box<64x128xf16>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
          scf.yield %y : !sck.acc<64x8xf32>
        }
        default {
          scf.yield %acc : !sck.acc<64x8xf32>
        }
        sck.release %x : !sck.ring<!sck.box<128x8xf16>>
        scf.yield %next : !sck.acc<64x8xf32>
      }
      sck.epilogue "C"[%c0, %m, %b] transposed, %r : !sck.acc<64x8xf32>
    }
  }
  return
}

// -----

func.func private @k_count_by_tile(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<cooperative>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
  sck.role producer attributes {regs = 40 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      %count = arith.addi %m, %c3 : index
      // (A count that depends on the tile: ring positions tile x count + k
      // would collide.)
      // expected-error @below {{sc-schedule-wgmma: one k loop a tile, from 0 by 1 to a count the same for every tile}}
      scf.for %k = %c0 to %count step %c1 {
        %a = sck.load "A"[%k, %m] : !sck.box<128x64xf16>
        %bb = sck.load "B"[%n, %k, %b] : !sck.box<64x256xf16>
        sck.put %ring, %a, %bb : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
      }
    }
  }
  sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
    }
  }
  return
}
