// RUN: sparcast-opt %s -sc-lower-to-sck="attention=1 report=1" -canonicalize -verify-diagnostics | FileCheck %s
// RUN: sparcast-opt %s -sc-lower-to-sck | FileCheck %s --check-prefix=OFF
// RUN: sparcast-opt %s -sc-lower-to-sck=attention=1 -sc-warp-specialize=report=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=WS
// RUN: sparcast-opt %s -sc-lower-to-sck=attention=1 -sc-warp-specialize -canonicalize | FileCheck %s --check-prefix=WSIR
// RUN: not sparcast-opt %s -sc-lower-to-sck=attention=1 -sc-warp-specialize=order=pingpong -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: sparcast-opt %s -sc-lower-to-sck=attention=1 -sc-persistent=report=1 -sc-multicast -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHED
// RUN: not sparcast-opt %s -sc-lower-to-sck=attention=1 "-sc-warp-specialize=producer-regs=24 consumer-regs=240" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET

// sc-lower-to-sck{attention=1}: an indexed target attention (n_seed 64,
// head dim 128, S = 2000) becomes a tile loop over candidates x one 64-row
// query tile x 2 heads. The history is longer than 1024 keys, so the
// generator runs two candidates of one request a CTA: which ones comes from
// the index's values, in the table of the pairing kernel, an argument here
// (sck.candidate_pairs: partner + 1, 0 alone, -1 some other's partner).
// Tile b runs only when b leads (entry >= 0): candidate b and its partner
// (or b again, stored once, when alone), each with its Q in two 64-column
// boxes; per 128-key block (ceil(2000 / 128) = 16 blocks) the K boxes of
// the request index[b], read transposed, shared by both; per candidate its
// S, online-softmax step and P times the one V box into its O; O / row sums
// to the result at [0, q, h, candidate].
// CHECK-LABEL: func.func @target(
// CHECK: sc.attention {{.*}} {sc.kernel_ir = @target_attention0_kernel}
// CHECK-LABEL: func.func private @target_attention0_kernel(
// CHECK-SAME: %[[BATCH:.*]]: index, %[[IDX:.*]]: tensor<?xi32>, %[[PAIRS:.*]]: tensor<?xi32> {sck.candidate_pairs}) attributes {sck.consumers = 2 : i64, sck.op = "target/attention0"}
// CHECK: sck.tile_loop %[[BATCH]], %{{.*}}, %{{.*}} attributes {schedule = #sck.tile_schedule<grid>}
// CHECK: ^bb0(%[[B:.*]]: index, %[[T:.*]]: index, %[[H:.*]]: index):
// CHECK: %[[ENTRY:.*]] = tensor.extract %[[PAIRS]][%[[B]]] : tensor<?xi32>
// CHECK: %[[LEADS:.*]] = arith.cmpi sge, %[[ENTRY]], %{{.*}} : i32
// CHECK: scf.if %[[LEADS]] {
// CHECK: %[[HAS:.*]] = arith.cmpi sgt, %[[ENTRY]], %{{.*}} : i32
// CHECK: %[[PARTNER:.*]] = arith.select %[[HAS]], %{{.*}}, %[[B]] : index
// CHECK: %[[USER:.*]] = tensor.extract %[[IDX]][%[[B]]] : tensor<?xi32>
// CHECK: %[[KVB:.*]] = arith.index_cast %[[USER]] : i32 to index
// CHECK: %[[Q0:.*]] = sck.load "Q"[%{{.*}}, %{{.*}}, %[[H]], %[[B]]] : !sck.box<64x64xf16>
// CHECK: %[[Q1:.*]] = sck.load "Q"[%{{.*}}, %{{.*}}, %[[H]], %[[B]]] : !sck.box<64x64xf16>
// CHECK: sck.load "Q"[%{{.*}}, %{{.*}}, %[[H]], %[[PARTNER]]] : !sck.box<64x64xf16>
// CHECK: sck.load "Q"[%{{.*}}, %{{.*}}, %[[H]], %[[PARTNER]]] : !sck.box<64x64xf16>
// CHECK: sck.softmax_init : !sck.acc<64x2xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16 step
// CHECK: %[[K0:.*]] = sck.load "K"[%{{.*}}, %{{.*}}, %[[H]], %[[KVB]]] {transposed} : !sck.box<64x128xf16>
// CHECK: %[[K1:.*]] = sck.load "K"[%{{.*}}, %{{.*}}, %[[H]], %[[KVB]]] {transposed} : !sck.box<64x128xf16>
// CHECK: sck.mma %[[Q0]], %[[K0]]
// CHECK: %[[S:.*]] = sck.mma %[[Q1]], %[[K1]]
// CHECK: %[[P:.*]], %[[ST:.*]] = sck.softmax %[[S]], %[[ST0:.*]] at {{.*}} of %c2000 {scale = 0.0883883461 : f32}
// CHECK: sck.softmax
// CHECK: %[[V:.*]] = sck.load "V"[%{{.*}}, %{{.*}}, %[[H]], %[[KVB]]] : !sck.box<128x128xf16>
// CHECK: %[[O:.*]] = sck.rescale %{{.*}}, %[[ST0]] to %[[ST]]
// CHECK: sck.mma %[[P]], %[[V]], %[[O]] : !sck.frag<64x128xf16>, !sck.box<128x128xf16>, !sck.acc<64x128xf32>
// CHECK: %[[N:.*]] = sck.normalize
// CHECK: sck.epilogue "O"[%{{.*}}, %{{.*}}, %[[H]], %[[B]]], %[[N]] : !sck.acc<64x128xf32>
// CHECK: %[[N1:.*]] = sck.normalize
// CHECK: scf.if %[[HAS]] {
// CHECK-NEXT: sck.epilogue "O"[%{{.*}}, %{{.*}}, %[[H]], %[[PARTNER]]], %[[N1]] : !sck.acc<64x128xf32>
// sc-persistent leaves attention tile loops one CTA per tile (the
// persistent attention measured slower); sc-multicast (a GEMM's shared B)
// leaves them alone.
// SCHED: remark: tile loop: grid (an attention kernel: one CTA per tile)
// SCHED-NOT: multicast pairs CTAs
// SCHED-NOT: persistent
// Off by default (sparcast-aot --warp-specialize turns it on).
// OFF-NOT: sck.
// sc-warp-specialize: one ring per block that loads (Q once per tile: both
// candidates' boxes; K and V per key block), inside the tile's scf.if; the consumers free the Q slot after the key
// loop (their last Q K^T), the K/V slot at the end of each block.
// WS: remark: warp-specialized: producer (4 + 3 box(es) per pass through their blocks (one ring each), 40 registers) + 2 consumer(s) (turns, 232 registers), ring of as many slots as fit
// The generator's one-consumer attention (sc-lower-to-sck records the
// count as sck.consumers) runs two CTAs an SM: 128 registers a thread at
// launch, so the producer's default is 24 (24 + 232 = 2 x 128).
// WS: remark: warp-specialized: producer (1 + 2 box(es) per pass through their blocks (one ring each), 24 registers) + 1 consumer(s) (232 registers), ring of as many slots as fit
// Its budget is two CTAs' worth of an SM: 24 + 240 does not fit 2 x 128
// (24 + 2 x 240 fits the two-consumer kernels' 3 x 168).
// BUDGET: error: registers: producer 24 + 1 x 240 exceeds the launch budget of 2 x 128 (two CTAs an SM)
// WSIR-LABEL: func.func private @target_attention0_kernel(
// WSIR: %[[QR:.*]] = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.box<64x64xf16>, !sck.box<64x64xf16>>
// WSIR: %[[KVR:.*]] = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x128xf16>, !sck.box<64x128xf16>, !sck.box<128x128xf16>>
// WSIR: sck.role producer
// WSIR: sck.put %[[QR]]
// WSIR: scf.for
// WSIR: sck.put %[[KVR]]
// WSIR-NOT: sck.softmax
// Two attention consumers take turns on a pair of query tiles that read
// the same keys (here two candidates of one request), sharing each K/V box:
// order "turns", which the attention generator requires; a GEMM's order
// asked for explicitly is refused.
// ORDER: error: an attention kernel's two consumers take turns on tiles sharing their K/V; order 'pingpong' is for GEMMs
// WSIR: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<turns>, regs = 232 : i64}
// WSIR: %[[Q:.*]]:4 = sck.get %[[QR]]
// WSIR: scf.for
// WSIR: %[[KV:.*]]:3 = sck.get %[[KVR]]
// WSIR: sck.mma %[[Q]]#0, %[[KV]]#0
// WSIR: sck.softmax
// WSIR: sck.rescale
// WSIR-NEXT: sck.mma %{{.*}}, %[[KV]]#2
// WSIR-NEXT: sck.rescale
// WSIR-NEXT: sck.mma %{{.*}}, %[[KV]]#2
// WSIR-NEXT: sck.release %[[KVR]]
// WSIR: }
// WSIR-NEXT: sck.release %[[QR]]
// WSIR-NEXT: sck.normalize
// WSIR: sck.epilogue "O"
func.func @target(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x2000x128xf16>,
                  %v: tensor<?x2x2000x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2000x128xf16>, tensor<?x2x2000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

// One consumer per 64-row tile in the generator (at most 64 query rows,
// no index): 64-key blocks, the op's scale.
// CHECK-LABEL: func.func private @short_attention0_kernel(
// CHECK-SAME: %{{.*}}: index) attributes {sck.consumers = 1 : i64
// CHECK: sck.softmax {{.*}} of %c100 {scale = 5.000000e-01 : f32} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
func.func @short(%q: tensor<2x1x40x64xf16>, %k: tensor<2x1x100x64xf16>, %v: tensor<2x1x100x64xf16>) -> tensor<2x1x40x64xf16> {
  %o = sc.attention %q, %k, %v {scale = 0.5 : f32} : tensor<2x1x40x64xf16>, tensor<2x1x100x64xf16>, tensor<2x1x100x64xf16> -> tensor<2x1x40x64xf16>
  return %o : tensor<2x1x40x64xf16>
}

// A block mask: its kept key blocks as BSR tables, constants of the
// kernel (512 tokens in 4 causal blocks of 128 with local width 0 and the
// first block as anchor: block i keeps 0, i - 2^k for k >= 1 and i:
// [0], [0, 1], [0, 2], [0, 1, 3]). Two consumers, as the generator runs
// them: a tile is a 128-row query block of two 64-row halves (4 tiles),
// which walk its kept blocks together: the K and V boxes of a block are
// loaded once for both halves, each half its own S, softmax step and O.
// The second half stores only rows before the query length.
// CHECK-LABEL: func.func private @masked_attention0_kernel(
// CHECK-DAG: %[[OFFSETS:.*]] = arith.constant dense<[0, 1, 3, 5, 8]> : tensor<5xi32>
// CHECK-DAG: %[[IND:.*]] = arith.constant dense<[0, 0, 1, 0, 2, 0, 1, 3]> : tensor<8xi32>
// CHECK: sck.tile_loop %{{.*}}, %c4, %c1
// CHECK: %[[ROW0:.*]] = arith.muli %{{.*}}, %c128 : index
// CHECK: %[[ROW1:.*]] = arith.addi %[[ROW0]], %c64 : index
// CHECK: %[[OWN:.*]] = arith.cmpi ult, %[[ROW1]], %c512 : index
// CHECK: %[[QA:.*]] = sck.load "Q"[%c0, %[[ROW0]],
// CHECK: %[[QB:.*]] = sck.load "Q"[%c0, %[[ROW1]],
// CHECK: %[[QBLOCK:.*]] = arith.divui %[[ROW0]], %c128 : index
// CHECK: tensor.extract %[[OFFSETS]][%[[QBLOCK]]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step {{.*}} iter_args({{.*}}) -> (!sck.acc<64x64xf32>, !sck.acc<64x2xf32>, !sck.acc<64x64xf32>, !sck.acc<64x2xf32>)
// CHECK: tensor.extract %[[IND]][%[[T]]]
// CHECK: %[[K:.*]] = sck.load "K"
// CHECK-NOT: sck.load "K"
// CHECK: sck.mma %[[QA]], %[[K]]
// CHECK: sck.softmax {{.*}} -> !sck.frag<64x128xbf16>
// CHECK: sck.mma %[[QB]], %[[K]]
// CHECK: sck.softmax {{.*}} -> !sck.frag<64x128xbf16>
// CHECK: %[[V:.*]] = sck.load "V"
// CHECK-NOT: sck.load
// CHECK: sck.mma %{{.*}}, %[[V]]
// CHECK: sck.mma %{{.*}}, %[[V]]
// CHECK: scf.yield
// CHECK: sck.epilogue "O"[%c0, %[[ROW0]],
// CHECK: scf.if %[[OWN]] {
// CHECK-NEXT: sck.epilogue "O"[%c0, %[[ROW1]],
func.func @masked(%q: tensor<1x1x512x64xbf16>, %k: tensor<1x1x512x64xbf16>, %v: tensor<1x1x512x64xbf16>) -> tensor<1x1x512x64xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128, local_width = 0, anchors = [first], causal = true>) : tensor<1x1x512x64xbf16>, tensor<1x1x512x64xbf16>, tensor<1x1x512x64xbf16> -> tensor<1x1x512x64xbf16>
  return %o : tensor<1x1x512x64xbf16>
}

// What has no kernel-level form yet says why (with report).
func.func @mask32(%q: tensor<1x1x256x64xbf16>, %k: tensor<1x1x256x64xbf16>, %v: tensor<1x1x256x64xbf16>) -> tensor<1x1x256x64xbf16> {
  // expected-remark @below {{no kernel-level form: block masks of 64 or 128 tokens only}}
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 32>) : tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16> -> tensor<1x1x256x64xbf16>
  return %o : tensor<1x1x256x64xbf16>
}

// A configuration pinned on the op that cannot run it is refused with the
// reason, not followed.
func.func @unfit_config(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x256x64xbf16>, %v: tensor<1x2x256x64xbf16>) -> tensor<1x2x64x64xbf16> {
  // expected-remark @below {{no kernel-level form: its kernel configuration cannot run it: a chained walk needs an indexed (target) attention}}
  %o = sc.attention %q, %k, %v {sc.attention_config = #sc.attention_config<walk = chained, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = false>} : tensor<1x2x64x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}

// A block mask over lengths known only at launch: its BSR tables are the
// kernel's last argument, marked with the mask they encode (the runtime
// builds them at launch): offsets at the query block, kept key blocks
// after the ceil(L / 64) + 1 offsets.
// CHECK-LABEL: func.func private @masked_dynamic_attention0_kernel(
// CHECK-SAME: %{{.*}}: index, %[[QLEN:[^:]*]]: index, %[[KLEN:[^:]*]]: index, %[[TABLES:[^:]*]]: tensor<?xi32> {sck.mask_tables = #sc.log_linear<block_size = 64>})
// CHECK: %[[UP:.*]] = arith.addi %[[QLEN]], %c63 : index
// CHECK: %[[NQB:.*]] = arith.divui %[[UP]], %c64 : index
// CHECK: %[[BASE:.*]] = arith.addi %[[NQB]], %c1 : index
// CHECK: tensor.extract %[[TABLES]][
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %[[I]] : index
// CHECK: tensor.extract %[[TABLES]][%[[AT]]]
// CHECK: sck.softmax {{.*}} of %[[KLEN]]
func.func @masked_dynamic(%q: tensor<1x1x?x64xf16>, %k: tensor<1x1x?x64xf16>, %v: tensor<1x1x?x64xf16>) -> tensor<1x1x?x64xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64>) : tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16> -> tensor<1x1x?x64xf16>
  return %o : tensor<1x1x?x64xf16>
}

// A key length known only at launch: an argument of the kernel, giving the
// number of key blocks and the softmax's key length.
// CHECK-LABEL: func.func private @dynamic_keys_attention0_kernel(
// CHECK-SAME: %{{.*}}: index, %[[KEYS:.*]]: index)
// CHECK: %[[UP:.*]] = arith.addi %[[KEYS]], %c63 : index
// CHECK: %[[BLOCKS:.*]] = arith.divui %[[UP]], %c64 : index
// CHECK: scf.for %{{.*}} = %c0 to %[[BLOCKS]] step
// CHECK: sck.softmax {{.*}} of %[[KEYS]] {scale
func.func @dynamic_keys(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x?x64xf16>, %v: tensor<1x1x?x64xf16>) -> tensor<1x1x64x64xf16> {
  %o = sc.attention %q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16> -> tensor<1x1x64x64xf16>
  return %o : tensor<1x1x64x64xf16>
}

func.func @f32_attention(%q: tensor<1x1x64x64xf32>, %k: tensor<1x1x64x64xf32>, %v: tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32> {
  // expected-remark @below {{no kernel-level form: 16-bit operands only}}
  %o = sc.attention %q, %k, %v : tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32> -> tensor<1x1x64x64xf32>
  return %o : tensor<1x1x64x64xf32>
}
