// RUN: sparcast-equiv %s --ref=bmm_bias --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_80}),sc-lower-to-sck,sc-test-execute-kernel-ir)' --candidates=3 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear_flat_rows --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_86}),sc-lower-to-sck,sc-test-execute-kernel-ir)' --candidates=5 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=shared_lhs --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_89}),sc-lower-to-sck,sc-test-execute-kernel-ir)' --candidates=2 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=bmm_bias --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_80}),sc-lower-to-sck,sc-pipeline-multistage,sc-test-execute-kernel-ir)' --candidates=3 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=bmm_bias --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_80}),sc-lower-to-sck,sc-pipeline-multistage{stages=2},sc-test-execute-kernel-ir)' --candidates=3 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear_flat_rows --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_86}),sc-lower-to-sck,sc-pipeline-multistage,sc-test-execute-kernel-ir)' --candidates=5 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=shared_lhs --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_89}),sc-lower-to-sck,sc-pipeline-multistage{stages=4},sc-test-execute-kernel-ir)' --candidates=2 --trials=2 | FileCheck %s
// RUN: not sparcast-equiv %S/Inputs/multistage-ring-overrun.mlir --ref=bmm --pass-pipeline='builtin.module(sc-test-execute-kernel-ir)' --candidates=2 --trials=1 | FileCheck %s --check-prefix=TOO-FAR
// RUN: sparcast-opt %s -sc-select-kernel-config=chip=sm_80 -sc-lower-to-sck | FileCheck %s --check-prefix=IR
// RUN: sparcast-equiv %s --ref=bmm_bias --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_80}),sc-lower-to-sck{multistage-tile-cols=256},sc-pipeline-multistage,sc-test-execute-kernel-ir)' --candidates=3 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear_flat_rows --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{chip=sm_86}),sc-lower-to-sck{multistage-tile-cols=256},sc-pipeline-multistage,sc-test-execute-kernel-ir)' --candidates=5 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-opt %s -sc-select-kernel-config=chip=sm_80 -sc-lower-to-sck=multistage-tile-cols=256 | FileCheck %s --check-prefix=WIDE
// RUN: not sparcast-opt %s -sc-select-kernel-config=chip=sm_80 -sc-lower-to-sck=multistage-tile-cols=192 2>&1 | FileCheck %s --check-prefix=BAD-COLS

// The multistage schedule's kernel-level IR (sm_80 / sm_86 / sm_89: 128 x
// 128 tiles in k-tiles of 32, one CTA a tile) keeps each GEMM's meaning,
// executed on the CPU against the op on random data: M, N and K past a
// tile's edge (130 x 136 x 72: two M and two N tiles, the last k-tile
// half full), an epilogue reading a bias, a K-major rhs over the rows of
// all batch elements (flat rows: 5 x 50 rows), and a shared lhs.
// The same pipelined by sc-pipeline-multistage (2, 3 and 4 ring slots):
// the CPU keeps only the ring's slots, position p in slot p mod stages, so
// a put over a slot not yet read would show as a mismatch, as it does
// for a kernel whose puts run one k-tile too far ahead (TOO-FAR).
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// TOO-FAR: NOT EQUIVALENT
// IR-COUNT-3: sck.schedule = #sck.kernel_schedule<multistage>
// The 128 x 256 tile (8 warps, multistage-tile-cols=256): the same
// meaning, N past the tile's edge (136 of 256) included.
// WIDE: sck.zero : !sck.acc<128x256xf32>
// WIDE: sck.load "B"{{.*}} : !sck.box<32x256xf16>
// BAD-COLS: error: sc-lower-to-sck: multistage-tile-cols is 128 or 256 (0 chooses), not 192

func.func @bmm_bias(%a: tensor<?x130x72xf16> {sc.lineage = #sc.lineage<candidate>}, %b: tensor<?x72x136xf16> {sc.lineage = #sc.lineage<candidate>}, %bias: tensor<136xf32>) -> tensor<?x130x136xf32> {
  %o = sc.batch_matmul %a, %b epilogue_ins(%bias : tensor<136xf32>) : tensor<?x130x72xf16>, tensor<?x72x136xf16> -> tensor<?x130x136xf32> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bs: tensor<136xf32>):
    %v = tensor.extract %bs[%n] : tensor<136xf32>
    %s = arith.addf %acc, %v : f32
    sc.yield %s : f32
  }
  return %o : tensor<?x130x136xf32>
}

func.func @linear_flat_rows(%x: tensor<?x50x40xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<264x40xbf16>) -> tensor<?x50x264xbf16> {
  %o = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x50x40xbf16>, tensor<264x40xbf16> -> tensor<?x50x264xbf16>
  return %o : tensor<?x50x264xbf16>
}

func.func @shared_lhs(%w: tensor<100x48xf16>, %e: tensor<?x48x24xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x100x24xf16> {
  %o = sc.batch_matmul %w, %e : tensor<100x48xf16>, tensor<?x48x24xf16> -> tensor<?x100x24xf16>
  return %o : tensor<?x100x24xf16>
}
