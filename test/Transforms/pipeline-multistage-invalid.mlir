// RUN: sparcast-opt %s -split-input-file -sc-pipeline-multistage -verify-diagnostics

// What the pipelining cannot move ahead of its MMA is refused where it is.

func.func private @box_read_elsewhere(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<multistage>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<128x128xf32>
    %acc = scf.for %kt = %c0 to %c1 step %c1 iter_args(%in = %zero) -> (!sck.acc<128x128xf32>) {
      // expected-error @below {{sc-pipeline-multistage: a box read by other than the k-tile's MMA}}
      %a = sck.load "A"[%kt, %c0, %b] : !sck.box<128x32xf16>
      %bb = sck.load "B"[%c0, %kt, %b] : !sck.box<32x128xf16>
      %out = sck.mma %a, %bb, %in : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      %again = sck.mma %a, %bb, %out : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      scf.yield %again : !sck.acc<128x128xf32>
    }
    sck.epilogue "C"[%c0, %c0, %b], %acc : !sck.acc<128x128xf32>
  }
  return
}

// -----

func.func private @k_from_one(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<multistage>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<128x128xf32>
    // expected-error @below {{sc-pipeline-multistage: a k loop from 0 by 1 with one accumulator}}
    %acc = scf.for %kt = %c1 to %c3 step %c1 iter_args(%in = %zero) -> (!sck.acc<128x128xf32>) {
      %a = sck.load "A"[%kt, %c0, %b] : !sck.box<128x32xf16>
      %bb = sck.load "B"[%c0, %kt, %b] : !sck.box<32x128xf16>
      %out = sck.mma %a, %bb, %in : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      scf.yield %out : !sck.acc<128x128xf32>
    }
    sck.epilogue "C"[%c0, %c0, %b], %acc : !sck.acc<128x128xf32>
  }
  return
}

// -----

// expected-error @below {{sc-pipeline-multistage: a multistage kernel of other than one tile loop}}
func.func private @two_loops(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<multistage>} {
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
  }
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
  }
  return
}
