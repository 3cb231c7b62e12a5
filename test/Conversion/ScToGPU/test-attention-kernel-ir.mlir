// RUN: sparcast-opt %s -split-input-file -sc-test-attention-kernel -verify-diagnostics

// The attention generator refuses a kernel-level IR it would not follow:
// a persistent tile loop (it runs one CTA per tile), boxes other than its
// tiling, a consumer count other than the op's.

func.func @persistent(%q: tensor<2x1x128x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x128x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @persistent_kernel} : tensor<2x1x128x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x128x64xf16>
  return %o : tensor<2x1x128x64xf16>
}
func.func private @persistent_kernel(%batch: index) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{the attention kernel runs one CTA per tile; the kernel-level IR asks for a persistent tile loop}}
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %t: index, %h: index):
  }
  return
}

// -----

func.func @k_as_stored(%q: tensor<2x1x128x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x128x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @k_kernel} : tensor<2x1x128x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x128x64xf16>
  return %o : tensor<2x1x128x64xf16>
}
func.func private @k_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{the attention kernel loads K in 64x128 boxes read transposed; the kernel-level IR asks for '!sck.box<64x128xf16>'}}
  %k = sck.load "K"[%c0, %c0, %c0, %c0] : !sck.box<64x128xf16>
  return
}

// -----

func.func @v_blocks(%q: tensor<2x1x128x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x128x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @v_kernel} : tensor<2x1x128x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x128x64xf16>
  return %o : tensor<2x1x128x64xf16>
}
func.func private @v_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{the attention kernel loads V in 128x64 boxes; the kernel-level IR asks for '!sck.box<64x64xf16>'}}
  %v = sck.load "V"[%c0, %c0, %c0, %c0] : !sck.box<64x64xf16>
  return
}

// -----

func.func @one_consumer(%q: tensor<2x1x128x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x128x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @one_consumer_kernel} : tensor<2x1x128x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x128x64xf16>
  return %o : tensor<2x1x128x64xf16>
}
func.func private @one_consumer_kernel(%batch: index) {
  // expected-error @below {{the attention kernel runs 2 consumer warpgroup(s) for this op; the kernel-level IR asks for 1}}
  sck.role consumer attributes {regs = 232 : i64, count = 1 : i64, order = #sck.consumer_order<pingpong>} {
  }
  return
}

// -----

// Two consumers on the halves of a 128-row query block: a tile is both
// halves (two Q boxes at head dim 64), not one 64-row tile.
func.func @split_tile(%q: tensor<2x1x128x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x128x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @split_tile_kernel} : tensor<2x1x128x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x128x64xf16>
  return %o : tensor<2x1x128x64xf16>
}
func.func private @split_tile_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-error @below {{the attention kernel's tile is 2 x 64 query rows (2 Q boxes); the kernel-level IR loads 1}}
  sck.tile_loop %batch, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %t: index, %h: index):
    %q = sck.load "Q"[%c0, %t, %h, %b] : !sck.box<64x64xf16>
  }
  return
}

// -----

// Two consumers take turns on query tiles that share their K/V: a GEMM's
// order is not what the kernel does.
func.func @pingpong_consumers(%q: tensor<2x1x128x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x128x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @pingpong_consumers_kernel} : tensor<2x1x128x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x128x64xf16>
  return %o : tensor<2x1x128x64xf16>
}
func.func private @pingpong_consumers_kernel(%batch: index) {
  // expected-error @below {{the attention kernel's two consumers take turns on query tiles sharing their K/V; the kernel-level IR asks for order 'pingpong'}}
  sck.role consumer attributes {regs = 232 : i64, count = 2 : i64, order = #sck.consumer_order<pingpong>} {
  }
  return
}

// -----

// One consumer runs two CTAs an SM (128 registers a thread at launch):
// setmaxnreg cannot give a 40-register producer and a 232-register
// consumer.
func.func @one_consumer_regs(%q: tensor<1x1x256x128xf16>, %k: tensor<1x1x256x128xf16>, %v: tensor<1x1x256x128xf16>) -> tensor<1x1x256x128xf16> {
  // expected-error @below {{the kernel-level IR asks for a producer of 40 registers and 1 consumer(s) of 232; the CTA has 2 x 128}}
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) {sc.kernel_ir = @one_consumer_regs_kernel} : tensor<1x1x256x128xf16>, tensor<1x1x256x128xf16>, tensor<1x1x256x128xf16> -> tensor<1x1x256x128xf16>
  return %o : tensor<1x1x256x128xf16>
}
func.func private @one_consumer_regs_kernel(%batch: index) {
  sck.role producer attributes {regs = 40 : i64, count = 1 : i64} {
  }
  sck.role consumer attributes {regs = 232 : i64, count = 1 : i64, order = #sck.consumer_order<pingpong>} {
  }
  return
}

// -----

// And its ring gets half an SM's shared memory: Q (16 KB) and three
// 32 KB slots of 64-key K/V blocks do not fit 113 KB.
func.func @one_consumer_slots(%q: tensor<1x1x256x128xf16>, %k: tensor<1x1x256x128xf16>, %v: tensor<1x1x256x128xf16>) -> tensor<1x1x256x128xf16> {
  // expected-error @below {{the kernel-level IR asks for 3 key/value ring slots; 2 fit in shared memory (two CTAs an SM)}}
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) {sc.kernel_ir = @one_consumer_slots_kernel} : tensor<1x1x256x128xf16>, tensor<1x1x256x128xf16>, tensor<1x1x256x128xf16> -> tensor<1x1x256x128xf16>
  return %o : tensor<1x1x256x128xf16>
}
func.func private @one_consumer_slots_kernel(%batch: index) {
  %ring = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.box<64x128xf16>>
  return
}

// -----

func.func @missing(%q: tensor<2x1x128x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x128x64xf16> {
  // expected-error @below {{no kernel-level function @nowhere}}
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @nowhere} : tensor<2x1x128x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x128x64xf16>
  return %o : tensor<2x1x128x64xf16>
}

// -----

// Candidates of one request two a CTA (index, 64 rows, more than 1024
// keys): which ones is in the pairing kernel's table, which the
// kernel-level function must take (sck.candidate_pairs).
func.func @pairs_table(%q: tensor<?x1x64x64xf16>, %k: tensor<?x1x2048x64xf16>, %v: tensor<?x1x2048x64xf16>, %idx: tensor<?xi32>) -> tensor<?x1x64x64xf16> {
  %o = sc.attention %q, %k, %v index %idx {sc.kernel_ir = @pairs_table_kernel} : tensor<?x1x64x64xf16>, tensor<?x1x2048x64xf16>, tensor<?x1x2048x64xf16>, tensor<?xi32> -> tensor<?x1x64x64xf16>
  return %o : tensor<?x1x64x64xf16>
}
// expected-error @below {{the attention kernel pairs candidates of one request; the kernel-level IR takes no pairs table (sck.candidate_pairs)}}
func.func private @pairs_table_kernel(%batch: index, %idx: tensor<?xi32>) {
  return
}

// -----

// A block-masked attention runs one CTA per tile: an IR asking for a
// persistent tile loop is refused, not silently not followed.
func.func @persistent_ir(%q: tensor<2x1x256x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x256x64xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) {sc.kernel_ir = @persistent_ir_kernel} : tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x256x64xf16>
  return %o : tensor<2x1x256x64xf16>
}
func.func private @persistent_ir_kernel(%batch: index) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{the attention kernel runs one CTA per tile; the kernel-level IR asks for a persistent tile loop}}
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %t: index, %h: index):
  }
  return
}

// -----

// A configuration that cannot run the op: refused with the reason.
func.func @unfit_config(%q: tensor<2x1x256x64xf16>, %k: tensor<2x1x256x64xf16>, %v: tensor<2x1x256x64xf16>) -> tensor<2x1x256x64xf16> {
  // expected-error @below {{the attention's kernel configuration #sc.attention_config<walk = grid, consumers = 2, key_block = 64, group_candidates = false, p_in_f16 = false> cannot run it: key blocks of 64 under a mask of 128-token blocks}}
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) {sc.attention_config = #sc.attention_config<walk = grid, consumers = 2, key_block = 64, group_candidates = false, p_in_f16 = false>} : tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16>, tensor<2x1x256x64xf16> -> tensor<2x1x256x64xf16>
  return %o : tensor<2x1x256x64xf16>
}
