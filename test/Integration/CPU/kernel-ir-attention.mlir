// RUN: sparcast-equiv %s --ref=target --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-test-execute-kernel-ir)' --users=3 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=self_bf16 --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-test-execute-kernel-ir)' --candidates=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=short_query --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-test-execute-kernel-ir)' --candidates=3 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=target --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-test-execute-kernel-ir)' --users=2 --candidates=4 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=target --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --users=3 --candidates=4 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=self_bf16 --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize{stages=3},sc-schedule-attention,sc-test-execute-kernel-ir)' --candidates=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=log_linear64 --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --candidates=1 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=log_linear128 --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-test-execute-kernel-ir)' --candidates=1 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=dynamic_lengths --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --users=2 --candidates=3 --dynamic-size=130 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=dynamic_log_linear64 --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --candidates=1 --dynamic-size=200 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=dynamic_log_linear128 --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-test-execute-kernel-ir)' --candidates=1 --dynamic-size=300 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pairs --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-test-execute-kernel-ir)' --users=3 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pairs --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --users=2 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pairs --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --users=3 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=log_linear128 --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --candidates=1 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=dynamic_log_linear128 --pass-pipeline='builtin.module(sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --candidates=1 --dynamic-size=300 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=chained --pass-pipeline='builtin.module(sc-select-kernel-config,sc-lower-to-sck{attention=1},sc-warp-specialize,sc-test-execute-kernel-ir)' --users=3 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=chained --pass-pipeline='builtin.module(sc-select-kernel-config,sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --users=3 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=chained --pass-pipeline='builtin.module(sc-select-kernel-config{group-candidates=1},sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --users=3 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pairs --pass-pipeline='builtin.module(sc-select-kernel-config{group-candidates=1},sc-lower-to-sck{attention=1},sc-test-execute-kernel-ir)' --users=3 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pairs --pass-pipeline='builtin.module(sc-select-kernel-config{group-candidates=1},sc-lower-to-sck{attention=1},sc-warp-specialize,sc-schedule-attention,sc-test-execute-kernel-ir)' --users=3 --candidates=5 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=target --pass-pipeline='builtin.module(sc-select-kernel-config{chip=sm_80},sc-lower-to-sck{attention=1},sc-pipeline-multistage,sc-test-execute-kernel-ir)' --users=3 --candidates=4 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=self_bf16 --pass-pipeline='builtin.module(sc-select-kernel-config{chip=sm_86},sc-lower-to-sck{attention=1},sc-pipeline-multistage{stages=2},sc-test-execute-kernel-ir)' --candidates=2 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=log_linear64 --pass-pipeline='builtin.module(sc-select-kernel-config{chip=sm_80},sc-lower-to-sck{attention=1},sc-pipeline-multistage,sc-test-execute-kernel-ir)' --candidates=1 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=dynamic_lengths --pass-pipeline='builtin.module(sc-select-kernel-config{chip=sm_80},sc-lower-to-sck{attention=1},sc-pipeline-multistage,sc-test-execute-kernel-ir)' --users=2 --candidates=3 --dynamic-size=130 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=dynamic_log_linear64 --pass-pipeline='builtin.module(sc-select-kernel-config{chip=sm_89},sc-lower-to-sck{attention=1},sc-pipeline-multistage,sc-test-execute-kernel-ir)' --candidates=1 --dynamic-size=200 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=log_linear128 --pass-pipeline='builtin.module(sc-select-kernel-config{chip=sm_80},sc-lower-to-sck{attention=1},sc-pipeline-multistage,sc-test-execute-kernel-ir)' --candidates=1 --rtol=1e-2 | FileCheck %s
// RUN: sparcast-equiv %s --ref=dynamic_log_linear128 --pass-pipeline='builtin.module(sc-select-kernel-config{chip=sm_86},sc-lower-to-sck{attention=1},sc-pipeline-multistage{stages=2},sc-test-execute-kernel-ir)' --candidates=1 --dynamic-size=300 --rtol=1e-2 | FileCheck %s
// RUN: not sparcast-equiv %S/Inputs/attention-values-one-block-late.mlir --ref=late_values --pass-pipeline='builtin.module(sc-test-execute-kernel-ir)' --candidates=2 --trials=1 --rtol=2e-3 | FileCheck %s --check-prefix=LATE
// RUN: not sparcast-equiv %s --ref=wrong_scale --pass-pipeline='builtin.module(sc-test-execute-kernel-ir)' --candidates=2 | FileCheck %s --check-prefix=WRONG

// Attention at the kernel level keeps the op's meaning: each sc.attention
// lowered to its kernel function (sc-lower-to-sck{attention=1}: query
// tiles of 64 rows, key blocks, an online-softmax step per block) and run
// on the host op by op gives the op's results on random inputs. A target
// attention reading K/V through a shuffled index (two 64-row query tiles
// of the same candidate: 100 query rows), head dim 128 and keys that fill
// no block (300 of 128-key blocks); a bf16 self-attention of head dim 64
// (128-key blocks, 130 keys; bf16 P and output rounding alone give
// ~2.5e-3 relative error); a short query (40 rows, 64-key blocks). Also
// warp-specialized (sc-warp-specialize: a ring for Q,
// taken once per tile, and one for each key block's K and V) and
// scheduled (sc-schedule-attention: each consumer its own rows, K and V
// rings at named positions, the key blocks software-pipelined); with
// the candidates in request order (group-candidates: the tiles walk
// positions of an order the runner sorts by request, the pairs table by
// position); on sm_80 / sm_86 / sm_89 (sc-pipeline-multistage: Q through
// a ring of its own into registers, K and V through a ring of 2 or 3
// slots, a block put two ahead of its MMAs, block masks and dynamic
// lengths included, a 128-token mask block as two 64-key blocks); a
// scheduled kernel whose pipelined loop reads V one block late is caught
// (the execution reads each slot at the position its get names).
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// LATE: MISMATCH
// LATE: NOT EQUIVALENT

func.func @target(%q: tensor<?x2x100x128xf16> {sc.lineage = #sc.lineage<candidate>},
                  %k: tensor<?x2x300x128xf16> {sc.lineage = #sc.lineage<request>},
                  %v: tensor<?x2x300x128xf16> {sc.lineage = #sc.lineage<request>},
                  %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x100x128xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x100x128xf16>, tensor<?x2x300x128xf16>, tensor<?x2x300x128xf16>, tensor<?xi32> -> tensor<?x2x100x128xf16>
  return %o : tensor<?x2x100x128xf16>
}

// Candidates of one request two a tile (n_seed 64 over 1100 keys, the
// generator's pairs kernel): the kernel-level function takes the pairs
// table, which the CPU runner makes from the index's values as the pairing
// kernel does; odd counts leave a candidate alone.
func.func @pairs(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
                 %k: tensor<?x2x1100x128xf16> {sc.lineage = #sc.lineage<request>},
                 %v: tensor<?x2x1100x128xf16> {sc.lineage = #sc.lineage<request>},
                 %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x64x128xf16>, tensor<?x2x1100x128xf16>, tensor<?x2x1100x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @self_bf16(%q: tensor<?x1x130x64xbf16>, %k: tensor<?x1x130x64xbf16>,
                     %v: tensor<?x1x130x64xbf16>) -> tensor<?x1x130x64xbf16> {
  %o = sc.attention %q, %k, %v
      : tensor<?x1x130x64xbf16>, tensor<?x1x130x64xbf16>, tensor<?x1x130x64xbf16> -> tensor<?x1x130x64xbf16>
  return %o : tensor<?x1x130x64xbf16>
}

func.func @short_query(%q: tensor<?x3x40x64xf16>, %k: tensor<?x3x70x64xf16>,
                       %v: tensor<?x3x70x64xf16>) -> tensor<?x3x40x64xf16> {
  %o = sc.attention %q, %k, %v {scale = 0.25 : f32}
      : tensor<?x3x40x64xf16>, tensor<?x3x70x64xf16>, tensor<?x3x70x64xf16> -> tensor<?x3x40x64xf16>
  return %o : tensor<?x3x40x64xf16>
}

// The runner is not blind: a kernel whose softmax scale differs from the
// op's gives other results.
// WRONG: MISMATCH
// WRONG: NOT EQUIVALENT
func.func @wrong_scale(%q: tensor<?x1x64x64xf16>, %k: tensor<?x1x64x64xf16>,
                       %v: tensor<?x1x64x64xf16>) -> tensor<?x1x64x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @wrong_scale_kernel}
      : tensor<?x1x64x64xf16>, tensor<?x1x64x64xf16>, tensor<?x1x64x64xf16> -> tensor<?x1x64x64xf16>
  return %o : tensor<?x1x64x64xf16>
}
func.func private @wrong_scale_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %t: index, %h: index):
    %q = sck.load "Q"[%c0, %c0, %h, %b] : !sck.box<64x64xf16>
    %o0 = sck.zero : !sck.acc<64x64xf32>
    %st0 = sck.softmax_init : !sck.acc<64x2xf32>
    %k = sck.load "K"[%c0, %c0, %h, %b] {transposed} : !sck.box<64x64xf16>
    %z = sck.zero : !sck.acc<64x64xf32>
    %s = sck.mma %q, %k, %z : !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
    %keys64 = arith.constant 64 : index
    %p, %st1 = sck.softmax %s, %st0 at %c0 of %keys64 {scale = 1.0 : f32} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
    %o1 = sck.rescale %o0, %st0 to %st1 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
    %v = sck.load "V"[%c0, %c0, %h, %b] : !sck.box<64x64xf16>
    %o2 = sck.mma %p, %v, %o1 : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
    %out = sck.normalize %o2, %st1 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
    sck.epilogue "O"[%c0, %c0, %h, %b], %out : !sck.acc<64x64xf32>
  }
  return
}

// Block masks: the kept key blocks from the kernel's BSR tables (a causal
// log-linear mask of 64-token blocks, 300 tokens: the last block partial;
// a non-causal one of 128-token blocks, two 64-row query tiles per block).
func.func @log_linear64(%q: tensor<?x2x300x64xf16>, %k: tensor<?x2x300x64xf16>,
                        %v: tensor<?x2x300x64xf16>) -> tensor<?x2x300x64xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>)
      : tensor<?x2x300x64xf16>, tensor<?x2x300x64xf16>, tensor<?x2x300x64xf16> -> tensor<?x2x300x64xf16>
  return %o : tensor<?x2x300x64xf16>
}

func.func @log_linear128(%q: tensor<?x1x640x64xbf16>, %k: tensor<?x1x640x64xbf16>,
                         %v: tensor<?x1x640x64xbf16>) -> tensor<?x1x640x64xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>)
      : tensor<?x1x640x64xbf16>, tensor<?x1x640x64xbf16>, tensor<?x1x640x64xbf16> -> tensor<?x1x640x64xbf16>
  return %o : tensor<?x1x640x64xbf16>
}

// Lengths known only at launch: the kernel takes them as arguments (the
// tile loop's query tiles, the key blocks and the softmax's key length).
func.func @dynamic_lengths(%q: tensor<?x2x?x64xf16> {sc.lineage = #sc.lineage<candidate>},
                           %k: tensor<?x2x?x64xf16> {sc.lineage = #sc.lineage<request>},
                           %v: tensor<?x2x?x64xf16> {sc.lineage = #sc.lineage<request>},
                           %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x?x64xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?xi32> -> tensor<?x2x?x64xf16>
  return %o : tensor<?x2x?x64xf16>
}

// A block mask over lengths known only at launch: the kernel takes the
// mask's BSR tables as an argument (the runtime builds them at launch; the
// CPU runner from the mask's definition, for the lengths of the call): a
// causal log-linear mask of 64-token blocks over 200 tokens (the last block
// partial), and a non-causal one of 128-token blocks over 300. The batch
// is static: the runner gives a dynamic batch the --dynamic-size too.
func.func @dynamic_log_linear64(%q: tensor<2x2x?x64xf16>, %k: tensor<2x2x?x64xf16>,
                                %v: tensor<2x2x?x64xf16>) -> tensor<2x2x?x64xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>)
      : tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16> -> tensor<2x2x?x64xf16>
  return %o : tensor<2x2x?x64xf16>
}

func.func @dynamic_log_linear128(%q: tensor<3x1x?x64xbf16>, %k: tensor<3x1x?x64xbf16>,
                                 %v: tensor<3x1x?x64xbf16>) -> tensor<3x1x?x64xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>)
      : tensor<3x1x?x64xbf16>, tensor<3x1x?x64xbf16>, tensor<3x1x?x64xbf16> -> tensor<3x1x?x64xbf16>
  return %o : tensor<3x1x?x64xbf16>
}

// One consumer a candidate over at most 1024 keys: the chained walk (each
// CTA's tiles head by head, the pipeline running on from one to the next;
// sc-schedule-attention makes the walk a loop carrying the tile before's
// last P V and coordinates).
func.func @chained(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
                   %k: tensor<?x2x1000x128xf16> {sc.lineage = #sc.lineage<request>},
                   %v: tensor<?x2x1000x128xf16> {sc.lineage = #sc.lineage<request>},
                   %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x64x128xf16>, tensor<?x2x1000x128xf16>, tensor<?x2x1000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}
