// RUN: sparcast-opt %s -split-input-file -sc-test-attention-kernel -verify-diagnostics | FileCheck %s
// RUN: not sparcast-opt %s -split-input-file -sc-test-attention-kernel=chip=sm_80 2>&1 | FileCheck %s --check-prefix=SM80
// SM80: error: the attention kernel needs sm_90a (TMA and wgmma), got sm_80

// Target attention, n_seed = 64, over 2000 keys (more than 1024: pairs):
// CTA x takes candidate x and the partner
// the pairing kernel gave it, of the same request (two consumer warpgroups
// and a producer: 384 threads), or nothing when x is some other
// candidate's partner (entry -1); keys/values at index[x].
// CHECK-LABEL: gpu.func @target_attention0(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[IDX:[a-z0-9]+]]: memref<?xi32>, %[[PAIRS:[a-z0-9]+]]: memref<?xi32>) kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK: gpu.shuffle idx
// CHECK: memref.dim %[[IDX]]
// CHECK: %[[PAIR:.*]] = memref.load %[[PAIRS]]
// CHECK: arith.cmpi sge, %[[PAIR]]
// CHECK: arith.cmpi sgt, %[[PAIR]]
// CHECK: memref.load %[[IDX]]
// CHECK-NOT: memref.load %[[IDX]]
// The kernel's region starts at the first 1024-byte boundary at least 256
// bytes past the dynamic shared memory symbol: the mbarriers lie there.
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[PAST:.*]] = arith.constant 256 : index
// CHECK: %[[FROM:.*]] = arith.addi %[[BASE]], %[[PAST]] : index
// CHECK: arith.remui %[[FROM]], %{{.*}} : index
// CHECK: nvvm.setmaxregister  decrease 40
// Producer: K and V of a block are loaded and freed apart: K into the
// slot once its keys are free (%empty), on %full; V once its values are
// free (%emptyV), on %fullV.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY:.*]][
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL:.*]][%{{.*}}], %{{.*}} :
// CHECK: nvgpu.tma.async.load {{.*}}, %[[FULL]][%{{.*}}] to {{.*}} -> memref<1x1x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTYV:.*]][
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULLV:.*]][%{{.*}}], %{{.*}} :
// CHECK: nvgpu.tma.async.load {{.*}}, %[[FULLV]][%{{.*}}] to {{.*}} -> memref<1x1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.setmaxregister  increase 232
// Software pipelined consumer: block 0's Q K^T and softmax first (its
// turn), then per block t one turn issuing Q K^T (t) and P V (t - 1), the
// softmax of t while P V (t - 1) runs (wait_group 1, after which K (t)
// is freed), then wait_group 0, P (t - 1) kept live to there, V (t - 1)
// freed, O rescaled; the last block's P V after the loop. Q K^T reads K K-major ("col"); the first
// step ignores the accumulator. Turns: named barriers 3 + w / 4 - w,
// 256 threads (wait for my turn, issue, hand over).
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]][
// CHECK: nvvm.barrier id = %[[MINE:.*]] number_of_threads = %[[N256:.*]]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.barrier.arrive id = %[[HIS:.*]] number_of_threads = %[[N256]]
// Keys past S = 2000 are masked in the last block; softmax uses exp2 (ex2.approx.ftz); P
// is packed in pairs as wgmma's A fragments.
// Pairs of candidates take every quad's maximum by shuffles.
// CHECK: arith.select {{.*}} : f32
// CHECK-NOT: nvvm.vote.sync
// CHECK: gpu.shuffle xor
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: llvm.bitcast {{.*}} : vector<2xf16> to i32
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]][
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULLV]][
// CHECK: nvvm.barrier id = %[[MINE]] number_of_threads = %[[N256]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.fence.aligned
// P V reads V N-major (trans-b 1), the O accumulators tied in and out.
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {$0,{{.*}},$63}, {$64, $65, $66, $67}, $68, p, 1, 1, 1; }", "=f,{{.*}},r,r,r,r,l,0,1,{{.*}},63"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.barrier.arrive id = %[[HIS]]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvgpu.mbarrier.arrive %[[EMPTY]][
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "", "r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r"
// CHECK: nvgpu.mbarrier.arrive %[[EMPTYV]][
// CHECK: nvvm.vote.sync any
// CHECK: scf.yield
// The last block's P V.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULLV]][
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.mbarrier.arrive %[[EMPTYV]][
// O times the rows' inverse sums (rcp.approx), packed, into the staging
// tile by stmatrix .x4 (16 columns of the warp's 16 rows a store), out by
// TMA.
// CHECK: llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: nvgpu.tma.async.store
// An idle consumer only waits for and frees the slots: K and V, the
// waits by the whole warp, the releases by lane 0.
// CHECK: } else {
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]][
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity %[[FULLV]][
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[EMPTY]][
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[EMPTYV]][
func.func @target(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x2000x128xf16>,
                  %v: tensor<?x2x2000x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2000x128xf16>, tensor<?x2x2000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

// -----

// A log-linear mask of 128-token blocks: BSR tables compiled into the
// module; the two consumers take the two halves of a 128-row query block
// and walk its kept key blocks.
// Query block 0 keeps 0, 1 (local) and 2, 4 (powers of two); block 1 keeps
// 0, 1, 2 and 3, 5; ... (8 blocks, anchors = [first]).
// CHECK: memref.global "private" constant @loglinear_attention0_offsets : memref<9xi32> = dense<[0, 4, 9, 15, 22, 28, 35, 41, 46]>
// CHECK: memref.global "private" constant @loglinear_attention0_indices : memref<46xi32> = dense<[0, 1, 2, 4, 0, 1, 2, 3, 5,
// CHECK-LABEL: gpu.func @loglinear_attention0(
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK: memref.get_global @loglinear_attention0_offsets
// CHECK: memref.get_global @loglinear_attention0_indices
// Outside the pairs kernel Q K^T takes Q from registers: the consumer reads
// its Q tile once as wgmma A fragments, an ldmatrix .x4 a k16 step (lanes
// address rows of the swizzled tile: 16-byte chunk XOR row modulo 8),
// and every Q K^T step is the register form of wgmma (the first one with
// scale-d false: the accumulator starts at zero; K K-major, not transposed).
// CHECK: arith.xori
// CHECK: %[[QROW:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[QF:.*]] = nvvm.ldmatrix %[[QROW]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: llvm.extractvalue %[[QF]][0]
// CHECK: setp.ne.b32 p, 0, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0,{{.*}},$63}, {$64, $65, $66, $67}, $68, p, 1, 1, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0,{{.*}},$31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;
func.func @loglinear(%q: tensor<2x2x1024x64xbf16>, %k: tensor<2x2x1024x64xbf16>, %v: tensor<2x2x1024x64xbf16>) -> tensor<2x2x1024x64xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128, anchors = [first]>) : tensor<2x2x1024x64xbf16>, tensor<2x2x1024x64xbf16>, tensor<2x2x1024x64xbf16> -> tensor<2x2x1024x64xbf16>
  return %o : tensor<2x2x1024x64xbf16>
}

// -----

// 64-token mask blocks: one consumer per 64-row tile (its own kept list);
// causal keeps blocks j <= i only.
// CHECK: memref.global "private" constant @block64_attention0_offsets : memref<5xi32> = dense<[0, 1, 3, 6, 10]>
// Grid row y runs the y-th heaviest query block (kept counts 1, 2, 3, 4):
// the CTAs that start last, and set the tail, are the lightest.
// CHECK: memref.global "private" constant @block64_attention0_order : memref<4xi32> = dense<[3, 2, 1, 0]>
// One consumer, two CTAs an SM (128 registers a thread at launch): the
// producer gives the consumer its registers (24 + 232 = 2 x 128), which
// the software-pipelined loop needs; no turns to take (no partner).
// CHECK-LABEL: gpu.func @block64_attention0(
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32
// CHECK: %[[ORDER:.*]] = memref.get_global @block64_attention0_order
// CHECK: memref.load %[[ORDER]][%{{.*}}] : memref<4xi32>
// CHECK: nvvm.setmaxregister  decrease 24
// K and V of a block are loaded and freed apart, as with two consumers.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY64:.*]][
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL64:.*]][%{{.*}}], %{{.*}} :
// CHECK: nvgpu.tma.async.load {{.*}}, %[[FULL64]][%{{.*}}] to {{.*}} -> memref<1x1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTYV64:.*]][
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULLV64:.*]][%{{.*}}], %{{.*}} :
// CHECK: nvgpu.tma.async.load {{.*}}, %[[FULLV64]][%{{.*}}] to {{.*}} -> memref<1x1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.setmaxregister  increase 232
// Block 0's Q K^T and softmax, then per block Q K^T (t) with P V (t - 1).
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL64]][
// CHECK: setp.ne.b32 p, 0, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// A row's first block takes no guess (its maximum starts at -1e30). The
// quads' maxima (shuffles) only when some thread's own maximum could move
// its row's running one; else the maxima stay and alpha is 1.
// CHECK-NOT: nvvm.vote.sync all
// CHECK: %[[ANY:.*]] = nvvm.vote.sync any %{{.*}}, %{{.*}} -> i1
// CHECK-NEXT: scf.if %[[ANY]] -> (f32, f32, f32, f32, i1, i1)
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor
// CHECK: } else {
// CHECK-NEXT: arith.constant 1.000000e+00 : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL64]][
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULLV64]][
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}} p, 1, 1, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvgpu.mbarrier.arrive %[[EMPTY64]][
// The loop's softmax guesses that no running maximum moves: P straight
// from the maxima as they are (no row maxima first), kept when every
// thread's partial row sums stay within 2^8 (a warp vote: then alpha is
// 1, the maxima stay); else the plain softmax, the quads' maxima by
// shuffles and the exponentials again.
// CHECK-NOT: arith.maxnumf
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: %[[BOUND:.*]] = arith.constant 2.560000e+02 : f32
// CHECK: arith.cmpf ole, %{{.*}}, %[[BOUND]] : f32
// CHECK: %[[FIT:.*]] = nvvm.vote.sync all %{{.*}}, %{{.*}} -> i1
// CHECK-NEXT: scf.if %[[FIT]] -> (f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NO:false[_0-9]*]], %[[NO]],
// CHECK: } else {
// CHECK: arith.maxnumf
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.mbarrier.arrive %[[EMPTYV64]][
// CHECK: scf.yield
func.func @block64(%q: tensor<1x1x256x128xf16>, %k: tensor<1x1x256x128xf16>, %v: tensor<1x1x256x128xf16>) -> tensor<1x1x256x128xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) : tensor<1x1x256x128xf16>, tensor<1x1x256x128xf16>, tensor<1x1x256x128xf16> -> tensor<1x1x256x128xf16>
  return %o : tensor<1x1x256x128xf16>
}

// -----

// Target attention over 1024 keys, two heads: chained (resident CTAs, each
// walking its share of the candidates head by head). The producer loads
// the CTA's first item's Q before its key blocks, and each next item's Q
// from within the item before, a block in (once the consumer has that
// one's Q in its registers: %qfree), not after its last block.
// CTA c of C takes the candidate tiles c, c + C, ... ((T + C - 1 - c) / C
// of them), each head by head (items); an item's tile is c + (item /
// heads) C.
// CHECK-LABEL: gpu.func @chained_attention0(
// CHECK: %[[CTA:.*]] = gpu.block_id x
// CHECK-NEXT: %[[CTAS:.*]] = gpu.grid_dim x
// CHECK: %[[UP:.*]] = arith.addi %[[TILES:.*]], %[[CTAS]] : index
// CHECK: %[[UP1:.*]] = arith.subi %[[UP]], %{{.*}} : index
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %[[UP1]], %[[CTA]] : index
// CHECK-NEXT: %[[MINE:.*]] = arith.divui %[[LEFT]], %[[CTAS]] : index
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: scf.for %[[ITEM:.*]] = %{{.*}} to %[[ITEMS:.*]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[DONE:.*]] = %{{.*}}) -> (index, index)
// CHECK-NEXT: %[[K:.*]] = arith.divui %[[ITEM]], %{{.*}} : index
// CHECK-NEXT: %[[KS:.*]] = arith.muli %[[K]], %[[CTAS]] : index
// CHECK-NEXT: arith.addi %[[CTA]], %[[KS]] : index
// CHECK-NOT: nvgpu.mbarrier.try_wait.parity
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[ITEM]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[QBAR:.*]][%{{.*}}], %{{.*}} :
// CHECK: nvgpu.tma.async.load {{.*}}, %[[QBAR]][%{{.*}}] to
// CHECK: nvgpu.tma.async.load {{.*}}, %[[QBAR]][%{{.*}}] to
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[NKB:.*]] step
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY:.*]][
// CHECK: nvgpu.tma.async.load
// CHECK: %[[LAST:.*]] = arith.subi %[[NKB]], %{{.*}} : index
// CHECK: %[[AT:.*]] = arith.minui %[[LAST]], %{{.*}} : index
// CHECK: %[[HERE:.*]] = arith.cmpi eq, %[[T]], %[[AT]] : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[ITEM]], %{{.*}} : index
// CHECK: %[[ANY:.*]] = arith.cmpi ult, %[[NEXT]], %[[ITEMS]] : index
// CHECK: %[[LOAD:.*]] = arith.andi %[[HERE]], %[[ANY]] : i1
// CHECK-NEXT: scf.if %[[LOAD]] {
// CHECK: %[[PAR:.*]] = arith.remui %[[DONE]], %{{.*}} : index
// CHECK-NEXT: %[[PARI:.*]] = arith.index_cast %[[PAR]] : index to i1
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity %[[QFREE:.*]][%{{.*}}], %[[PARI]], %{{.*}} :
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[QBAR]][%{{.*}}], %{{.*}} :
// CHECK: nvgpu.tma.async.load {{.*}}, %[[QBAR]][%{{.*}}] to
// CHECK: nvgpu.tma.async.load {{.*}}, %[[QBAR]][%{{.*}}] to
// CHECK: nvvm.setmaxregister  increase 232
// The consumer frees its Q once it is in its registers.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[QBAR]][
// CHECK: nvgpu.mbarrier.arrive %[[QFREE]][
func.func @chained(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x1024x128xf16>,
                   %v: tensor<?x2x1024x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

// -----

// Dynamic lengths are kernel parameters: the number of key blocks and the
// tail mask come from the key length; the split form takes any query length.
// CHECK-LABEL: gpu.func @dynamic_attention0(
// CHECK-SAME: %{{.*}}: memref<?xi32>, %[[L:.*]]: index, %[[S:.*]]: index) kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK: arith.cmpi ult, %{{.*}}, %[[L]] : index
// CHECK: arith.addi %[[S]], %{{.*}} : index
// CHECK: arith.divui
func.func @dynamic(%q: tensor<?x2x?x128xf16>, %k: tensor<?x2x?x128xf16>, %v: tensor<?x2x?x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x?x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?xi32> -> tensor<?x2x?x128xf16>
  return %o : tensor<?x2x?x128xf16>
}

// -----

func.func @f32_operands(%q: tensor<?x2x64x128xf32>, %k: tensor<?x2x64x128xf32>, %v: tensor<?x2x64x128xf32>) -> tensor<?x2x64x128xf32> {
  // expected-error @+1 {{the attention kernel takes f16 or bf16, got 'f32'}}
  %o = sc.attention %q, %k, %v : tensor<?x2x64x128xf32>, tensor<?x2x64x128xf32>, tensor<?x2x64x128xf32> -> tensor<?x2x64x128xf32>
  return %o : tensor<?x2x64x128xf32>
}

// -----

func.func @head_dim_96(%q: tensor<?x2x64x96xf16>, %k: tensor<?x2x64x96xf16>, %v: tensor<?x2x64x96xf16>) -> tensor<?x2x64x96xf16> {
  // expected-error @+1 {{the attention kernel takes head dims 64 and 128, got 96}}
  %o = sc.attention %q, %k, %v : tensor<?x2x64x96xf16>, tensor<?x2x64x96xf16>, tensor<?x2x64x96xf16> -> tensor<?x2x64x96xf16>
  return %o : tensor<?x2x64x96xf16>
}

// -----

func.func @dynamic_heads(%q: tensor<?x?x64x128xf16>, %k: tensor<?x?x64x128xf16>, %v: tensor<?x?x64x128xf16>) -> tensor<?x?x64x128xf16> {
  // expected-error @+1 {{the attention kernel needs static heads and head dim}}
  %o = sc.attention %q, %k, %v : tensor<?x?x64x128xf16>, tensor<?x?x64x128xf16>, tensor<?x?x64x128xf16> -> tensor<?x?x64x128xf16>
  return %o : tensor<?x?x64x128xf16>
}

// -----

// A log-linear mask over a dynamic length: the runtime builds the tables
// for each call's lengths and passes them (offsets, then key blocks).
// CHECK-LABEL: gpu.func @loglinear_dynamic_attention0(
// CHECK-SAME: %[[L:.*]]: index, %[[S:.*]]: index, %[[T:.*]]: memref<?xi32>) kernel
// CHECK: memref.load %[[T]]
// CHECK: memref.load %[[T]]
// CHECK: memref.load %[[T]]
func.func @loglinear_dynamic(%q: tensor<1x2x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128, causal = true>) : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16> -> tensor<1x2x?x64xf16>
  return %o : tensor<1x2x?x64xf16>
}

// -----

func.func @block32(%q: tensor<1x1x256x64xf16>, %k: tensor<1x1x256x64xf16>, %v: tensor<1x1x256x64xf16>) -> tensor<1x1x256x64xf16> {
  // expected-error @+1 {{the attention kernel takes mask blocks of 64 or 128 tokens, got 32}}
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 32>) : tensor<1x1x256x64xf16>, tensor<1x1x256x64xf16>, tensor<1x1x256x64xf16> -> tensor<1x1x256x64xf16>
  return %o : tensor<1x1x256x64xf16>
}
