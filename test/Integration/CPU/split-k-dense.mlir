// RUN: sparcast-equiv %s --ref=flat_rows_bias_relu --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{schedule=cooperative}),sc-lower-to-sck,sc-split-k{dense=1},sc-test-execute-kernel-ir)' --candidates=5 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=flat_rows_bias_relu --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{schedule=cooperative}),sc-lower-to-sck,sc-split-k{dense=1},sc-persistent,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=5 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=flat_rows_bias_relu --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{schedule=cooperative}),sc-lower-to-sck,sc-split-k{dense=1},sc-persistent,sc-multicast,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=7 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=batched_four_parts --pass-pipeline='builtin.module(func.func(sc-select-kernel-config{schedule=pingpong}),sc-lower-to-sck,sc-split-k{dense=1},sc-persistent,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=3 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-opt %s -sc-lower-to-sck -sc-split-k=dense=1 -sc-persistent -sc-warp-specialize -sc-schedule-wgmma -canonicalize | FileCheck %s --check-prefix=IR

// Split-K of the dense warp-specialized GEMMs keeps each GEMM's meaning:
// the kernel computes its part count from its tile count (here 1 to 3
// tiles of 1,024 or 2,048-deep K: 2 or 4 parts), each part runs its share
// of the k-tiles, and the last part to arrive adds every part's sum before
// the epilogue, whose ReLU would be wrong on any partial sum. Run on the
// host op by op after the kernel is made persistent, split into roles and
// its ring positions named (tile x K / S + k), it gives the reference's
// results: flat rows (5 x 50 rows in 128-row cooperative tiles; 7 x 50
// in CTA pairs sharing B, the pair's parts walking the same k-tiles, the
// last pair's second tile dead), and batched 64-row ping-pong tiles in
// four parts.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

// The part count from the tiles; the ring positions from the share.
// IR-LABEL: func.func private @flat_rows_bias_relu_gemm0_kernel
// IR: %[[FIT:.*]] = arith.cmpi ule, %{{.*}}, %c132
// IR: %[[PARTS:.*]] = arith.select %[[FIT]], %c2, %c1
// IR: %[[SHARE:.*]] = arith.divui %c16, %[[PARTS]]
// IR: sck.role consumer
// IR: %[[TILE:.*]] = sck.tile_index
// IR: arith.muli %[[TILE]], %[[SHARE]]
// IR: sck.reduce_splits %{{.*}} split %{{.*}} of %[[PARTS]] {max_parts = 132 : i64}
// IR: scf.if
// IR: sck.epilogue
func.func @flat_rows_bias_relu(%x: tensor<?x50x1024xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<136x1024xbf16>, %bias: tensor<136xf32>) -> tensor<?x50x136xbf16> {
  %o = sc.batch_matmul %x, %w epilogue_ins(%bias : tensor<136xf32>) {transpose_rhs} : tensor<?x50x1024xbf16>, tensor<136x1024xbf16> -> tensor<?x50x136xbf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<136xf32>):
    %v = tensor.extract %bs[%n] : tensor<136xf32>
    %s = arith.addf %acc, %v : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    sc.yield %t : bf16
  }
  return %o : tensor<?x50x136xbf16>
}

func.func @batched_four_parts(%x: tensor<?x70x2048xf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<?x2048x40xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x70x40xf32> {
  %o = sc.batch_matmul %x, %w : tensor<?x70x2048xf16>, tensor<?x2048x40xf16> -> tensor<?x70x40xf32>
  return %o : tensor<?x70x40xf32>
}
