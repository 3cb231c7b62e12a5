// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config{schedule=pingpong}),sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-test-execute-kernel-ir)' --users=4 --candidates=17 --trials=2 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config{schedule=cooperative}),sc-lower-to-sck,sc-persistent{group=2},sc-warp-specialize{stages=3},sc-test-execute-kernel-ir)' --users=5 --candidates=9 --trials=2 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear_relu --pass-pipeline='builtin.module(sc-lower-to-sck,sc-warp-specialize,sc-test-execute-kernel-ir)' --candidates=3 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=bmm --pass-pipeline='builtin.module(sc-lower-to-sck,sc-persistent,sc-multicast,sc-warp-specialize,sc-test-execute-kernel-ir)' --candidates=2 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config{schedule=transposed}),sc-lower-to-sck,sc-persistent,sc-multicast{shared-rhs-only=1},sc-warp-specialize,sc-test-execute-kernel-ir)' --users=4 --candidates=17 --trials=2 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=shared_lhs --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{schedule=transposed}),sc-lower-to-sck,sc-persistent,sc-multicast{shared-rhs-only=1},sc-warp-specialize,sc-test-execute-kernel-ir)' --candidates=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=flat_rows_residual --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{schedule=cooperative}),sc-lower-to-sck,sc-persistent,sc-multicast,sc-warp-specialize,sc-test-execute-kernel-ir)' --candidates=5 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config{schedule=pingpong}),sc-lower-to-sck,sc-persistent,sc-multicast,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --users=3 --candidates=11 --trials=2 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config{schedule=transposed}),sc-lower-to-sck,sc-persistent,sc-multicast{shared-rhs-only=1},sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --users=4 --candidates=17 --trials=2 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=flat_rows_residual --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{schedule=cooperative}),sc-lower-to-sck,sc-persistent,sc-multicast,sc-warp-specialize{stages=3},sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=5 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear_relu --pass-pipeline='builtin.module(sc-lower-to-sck,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=3 --rtol=1e-2 | FileCheck %s
// RUN: not sparcast-equiv %s --ref=relu_kernel_ir --pass-pipeline='builtin.module(sc-test-execute-kernel-ir)' --candidates=3 | FileCheck %s --check-prefix=WRONG
// RUN: not sparcast-equiv %s --ref=overfull_kernel_ir --pass-pipeline='builtin.module(sc-test-execute-kernel-ir)' --candidates=2 | FileCheck %s --check-prefix=WRONG
// RUN: not sparcast-equiv %s --ref=wrong_position_kernel_ir --pass-pipeline='builtin.module(sc-test-execute-kernel-ir)' --candidates=3 | FileCheck %s --check-prefix=WRONG

// The kernel-level IR keeps each GEMM's meaning: the GEMMs of a model,
// lowered to their kernel functions (sc-lower-to-sck), made persistent
// (sc-persistent) and split into producer and consumer roles around a ring
// (sc-warp-specialize), then run on the host op by op
// (sc-test-execute-kernel-ir), give the model's results on random inputs.
// The LCE after the IKBO pipeline (its candidate GEMM's epilogue gathers
// the request GEMM's result), ping-pong 64-row and cooperative 128-row
// tiles, odd K; a transposed bf16 rhs with a bias + ReLU epilogue; several
// M and N tiles and k-tiles, none full; the transposed schedule (tiles of
// the result transposed, E^T W^T, both boxes read transposed; its N tiles
// in CTA pairs) on the LCE and on a shared lhs of two 152-row M tiles and
// two N tiles. A batched lhs times a shared rhs tiled across its batch
// elements (flat rows: 5 x 50 rows in 128-row tiles that straddle batch
// elements, in CTA pairs), its epilogue reading a residual at [b, m, n].
// The same with each ring position named (sc-schedule-wgmma: the CPU keeps
// every put at its position, so a get or release at a wrong one reads
// another k-tile), the first k-tile peeled, releases one k-tile late and
// ping-pong turns; in CTA pairs a dead tile's work under a condition.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @linear_relu(%x: tensor<?x70x100xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<300x100xbf16>, %bias: tensor<300xf32>) -> tensor<?x70x300xbf16> {
  %o = sc.batch_matmul %x, %w epilogue_ins(%bias : tensor<300xf32>) {transpose_rhs} : tensor<?x70x100xbf16>, tensor<300x100xbf16> -> tensor<?x70x300xbf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<300xf32>):
    %v = tensor.extract %bs[%n] : tensor<300xf32>
    %s = arith.addf %acc, %v : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    sc.yield %t : bf16
  }
  return %o : tensor<?x70x300xbf16>
}

func.func @flat_rows_residual(%x: tensor<?x50x72xf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<72x136xf16>, %r: tensor<?x50x136xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x50x136xf16> {
  %o = sc.batch_matmul %x, %w epilogue_ins(%r : tensor<?x50x136xf32>) : tensor<?x50x72xf16>, tensor<72x136xf16> -> tensor<?x50x136xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %res: tensor<?x50x136xf32>):
    %v = tensor.extract %res[%b, %m, %n] : tensor<?x50x136xf32>
    %s = arith.addf %acc, %v : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %o : tensor<?x50x136xf16>
}

func.func @bmm(%a: tensor<?x130x150xf16> {sc.lineage = #sc.lineage<candidate>}, %b: tensor<?x150x40xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x130x40xf32> {
  %o = sc.batch_matmul %a, %b : tensor<?x130x150xf16>, tensor<?x150x40xf16> -> tensor<?x130x40xf32>
  return %o : tensor<?x130x40xf32>
}

// The runner is not blind: a kernel-level epilogue that adds a ReLU the
// op's region lacks gives other results.
// WRONG: MISMATCH
// WRONG: NOT EQUIVALENT
func.func @relu_kernel_ir(%w: tensor<64x64xf16>, %e: tensor<?x64x256xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x64x256xf16> {
  %c = sc.batch_matmul %w, %e {sc.kernel_ir = @relu_kernel} : tensor<64x64xf16>, tensor<?x64x256xf16> -> tensor<?x64x256xf16>
  return %c : tensor<?x64x256xf16>
}
func.func private @relu_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<64x256xf32>
    %a = sck.load "A"[%c0, %c0] : !sck.box<64x64xf16>
    %bb = sck.load "B"[%c0, %c0, %b] : !sck.box<64x256xf16>
    %r = sck.mma %a, %bb, %zero : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
    sck.epilogue "C"[%c0, %c0, %b], %r : !sck.acc<64x256xf32> {
    ^bb0(%v: f32, %bi: index, %m: index, %n: index):
      %z = arith.constant 0.0 : f32
      %p = arith.maximumf %v, %z : f32
      %t = arith.truncf %p : f32 to f16
      sck.yield %t : f16
    }
  }
  return
}


// A kernel that puts more boxes than a GEMM of this shape has k-tiles, and
// stores nothing: in bounds on the host (the queue's last slot is reused),
// and every element left unwritten (NaN) shows.
func.func @overfull_kernel_ir(%w: tensor<64x64xf16>, %e: tensor<?x64x256xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x64x256xf16> {
  %c = sc.batch_matmul %w, %e {sc.kernel_ir = @overfull_kernel} : tensor<64x64xf16>, tensor<?x64x256xf16> -> tensor<?x64x256xf16>
  return %c : tensor<?x64x256xf16>
}
func.func private @overfull_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %r = sck.ring {stages = 2} : !sck.ring<!sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%b: index, %mt: index, %nt: index):
      scf.for %k = %c0 to %c9 step %c1 {
        %a = sck.load "A"[%c0, %c0] : !sck.box<64x64xf16>
        sck.put %r, %a : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
      }
    }
  }
  return
}

// -----

func.func @shared_lhs(%w: tensor<300x100xf16>, %e: tensor<?x100x250xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x300x250xf16> {
  %o = sc.batch_matmul %w, %e : tensor<300x100xf16>, tensor<?x100x250xf16> -> tensor<?x300x250xf16>
  return %o : tensor<?x300x250xf16>
}

// Named ring positions are checked: a consumer that gets the positions of
// the next tile in its walk (t + 1 instead of t) multiplies another batch
// element's boxes (or a slot never put, past the last tile).
func.func @wrong_position_kernel_ir(%w: tensor<64x128xf16>, %e: tensor<?x128x256xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x64x256xf16> {
  %c = sc.batch_matmul %w, %e {sc.kernel_ir = @wrong_position_kernel} : tensor<64x128xf16>, tensor<?x128x256xf16> -> tensor<?x64x256xf16>
  return %c : tensor<?x64x256xf16>
}
func.func private @wrong_position_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %r = sck.ring {stages = 4} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %mt: index, %nt: index):
      %t = sck.tile_index
      %base = arith.muli %t, %c2 : index
      scf.for %k = %c0 to %c2 step %c1 {
        %k0 = arith.muli %k, %c64 : index
        %a = sck.load "A"[%k0, %c0] : !sck.box<64x64xf16>
        %bb = sck.load "B"[%c0, %k0, %b] : !sck.box<64x256xf16>
        %p = arith.addi %base, %k : index
        sck.put %r[%p], %a, %bb : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>, !sck.box<64x64xf16>, !sck.box<64x256xf16>
      }
    }
  }
  sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
    sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %mt: index, %nt: index):
      %t = sck.tile_index
      %next = arith.addi %t, %c1 : index
      %base = arith.muli %next, %c2 : index
      %zero = sck.zero : !sck.acc<64x256xf32>
      %acc = scf.for %k = %c0 to %c2 step %c1 iter_args(%x = %zero) -> (!sck.acc<64x256xf32>) {
        %p = arith.addi %base, %k : index
        %g:2 = sck.get %r[%p] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
        %y = sck.mma %g#0, %g#1, %x : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
        sck.release %r[%p] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
        scf.yield %y : !sck.acc<64x256xf32>
      }
      sck.epilogue "C"[%c0, %c0, %b], %acc : !sck.acc<64x256xf32>
    }
  }
  return
}
