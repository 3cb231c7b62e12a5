// RUN: sparcast-equiv %s --ref=linear --pass-pipeline='builtin.module(sc-lower-to-sck,sc-test-execute-kernel-ir)' --candidates=2 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear --pass-pipeline='builtin.module(sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-test-execute-kernel-ir)' --candidates=3 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear_bias_relu --pass-pipeline='builtin.module(sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=2 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=prefill --pass-pipeline='builtin.module(sc-lower-to-sck,sc-persistent,sc-multicast{hybrid-pairs=1},sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=1 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear --pass-pipeline='builtin.module(sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=3 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=one_k_tile --pass-pipeline='builtin.module(sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=2 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear --pass-pipeline='builtin.module(sc-lower-to-sck,sc-split-k{splits=2},sc-test-execute-kernel-ir)' --candidates=3 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear --pass-pipeline='builtin.module(sc-lower-to-sck,sc-split-k{splits=2},sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=2 --trials=2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=linear_bias_relu --pass-pipeline='builtin.module(sc-lower-to-sck,sc-split-k{splits=3},sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=2 --trials=2 --rtol=1e-2 | FileCheck %s
// RUN: not sparcast-equiv %s --ref=skips_sparse_tiles --pass-pipeline='builtin.module(sc-test-execute-kernel-ir)' --candidates=2 | FileCheck %s --check-prefix=WRONG

// The hybrid-tiled GEMM's kernel-level IR keeps the GEMM's meaning: y = x
// W^T with W given by its packed buffers (sc.assemble_hybrid; random
// packings of zero, dense and 2:4 tiles with random metadata, made by
// sparcast-equiv), lowered to its kernel function (per 64-row band of W a
// loop over W's tile columns dispatching on each tile's kind), made
// persistent and split into roles around three rings (tokens, dense
// tiles, 2:4 tiles), its slots released after each k-tile's wait (sc-schedule-wgmma),
// then run op by op on the host, gives the reference
// lowering's result (the unpacked weight multiplied). Tiles of 128 rows
// (two bands a tile), odd token counts, a bias + ReLU epilogue; at 130
// tokens (a token tile of 256) tiles of 128 rows run as one band of two
// consumers; a weight of one tile column (no k loop). Split-K
// (sc-split-k: each tile's k-tiles in parts whose partial sums the last
// part adds before the epilogue; 3 parts of 3 k-tiles under bias + ReLU,
// which would be wrong on any partial sum). A kernel that skips the 2:4
// tiles is caught.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// WRONG: MISMATCH

#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @linear(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x256xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x5x128xf32> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf32>
  return %y : tensor<?x5x128xf32>
}

#w128 = #sc.hybrid_tiles<tile = [128, 128], grid = [2, 3], kinds = "">
func.func @linear_bias_relu(%k: tensor<2x3xi8>, %s: tensor<2x3xi32>, %d: tensor<?x128x128xbf16>, %sp: tensor<?x128x64xbf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x19x384xbf16> {sc.lineage = #sc.lineage<candidate>}, %bias: tensor<256xf32>) -> tensor<?x19x256xbf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x3xi8>, tensor<2x3xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<256x384xbf16, #w128>
  %y = sc.batch_matmul %x, %w epilogue_ins(%bias : tensor<256xf32>) {transpose_rhs} : tensor<?x19x384xbf16>, tensor<256x384xbf16, #w128> -> tensor<?x19x256xbf16> {
  ^bb0(%acc: f32, %b: index, %i: index, %j: index, %bs: tensor<256xf32>):
    %v = tensor.extract %bs[%j] : tensor<256xf32>
    %a = arith.addf %acc, %v : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    %t = arith.truncf %r : f32 to bf16
    sc.yield %t : bf16
  }
  return %y : tensor<?x19x256xbf16>
}

#w128f = #sc.hybrid_tiles<tile = [128, 128], grid = [2, 2], kinds = "">
func.func @prefill(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x128x128xf16>, %sp: tensor<?x128x64xf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x130x256xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x130x256xf32> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<256x256xf16, #w128f>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x130x256xf16>, tensor<256x256xf16, #w128f> -> tensor<?x130x256xf32>
  return %y : tensor<?x130x256xf32>
}

// A kernel-level function that treats 2:4 tiles as zero tiles: wrong.
func.func @skips_sparse_tiles(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x256xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x5x128xf32> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs, sc.kernel_ir = @dense_only_kernel} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf32>
  return %y : tensor<?x5x128xf32>
}
func.func private @dense_only_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  sck.tile_loop %batch, %c1, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c8 : index
    %n0 = arith.muli %nt, %c64 : index
    %zero = sck.zero : !sck.acc<64x8xf32>
    %acc = scf.for %kt = %c0 to %c2 step %c1 iter_args(%a = %zero) -> (!sck.acc<64x8xf32>) {
      %k0 = arith.muli %kt, %c128 : index
      %xb = sck.load "A"[%k0, %m0, %b] {transposed} : !sck.box<128x8xf16>
      %kind, %slot = sck.hybrid_tile "B"[%nt, %kt]
      %r = scf.index_switch %kind -> !sck.acc<64x8xf32>
      case 1 {
        %wb = sck.load "B.dense"[%c0, %c0, %slot] : !sck.box<64x128xf16>
        %n = sck.mma %wb, %xb, %a : !sck.box<64x128xf16>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
        scf.yield %n : !sck.acc<64x8xf32>
      }
      default {
        scf.yield %a : !sck.acc<64x8xf32>
      }
      scf.yield %r : !sck.acc<64x8xf32>
    }
    sck.epilogue "C"[%n0, %m0, %b] transposed, %acc : !sck.acc<64x8xf32>
  }
  return
}

#w1 = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 1], kinds = "">
func.func @one_k_tile(%k: tensor<2x1xi8>, %s: tensor<2x1xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x128xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x5x128xf32> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x1xi8>, tensor<2x1xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x128xf16, #w1>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x128xf16>, tensor<128x128xf16, #w1> -> tensor<?x5x128xf32>
  return %y : tensor<?x5x128xf32>
}
