// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %t/suite --report > %t/suite.txt
// RUN: FileCheck %s < %t/suite.txt
// RUN: FileCheck %s --check-prefix=DEFAULT-SUITE < %t/suite.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/suite/shared_w_f16_kernels.ptx
// RUN: FileCheck %s --check-prefix=EPILOGUE < %t/suite/odd_bias_relu_f16_kernels.ptx
// RUN: FileCheck %s --check-prefix=KMAJOR < %t/suite/transposed_bf16_kernels.ptx
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/lce --ws-group=0 --report | FileCheck %s --check-prefix=GRID
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/lce-default --gemm-schedule=pingpong --report | FileCheck %s --check-prefix=DEFAULT
// RUN: FileCheck %s --check-prefix=PREFETCH < %t/lce-default/lce_kernels.ptx
// RUN: sparcast-aot %sparcast_src_root/examples/gemm.mlir -o %t/gemm --gemm-schedule=pingpong --gemm-multicast --report | FileCheck %s --check-prefix=CLUSTERS
// RUN: FileCheck %s --check-prefix=CLUSTERS-PTX < %t/gemm/gemm_gather_add_kernels.ptx
// RUN: sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %t/suite-transposed --gemm-schedule=transposed --report | FileCheck %s --check-prefix=TRANSPOSED
// RUN: sparcast-aot %sparcast_src_root/bench/lce_odd.mlir -o %t/lce-odd-pairs --gemm-schedule=cooperative --gemm-multicast --report | FileCheck %s --check-prefix=CLUSTERS-ODD

// sck-to-nvgpu: every warp-specialized GEMM kernel (ping-pong, cooperative,
// the transposed tile; persistent or a grid; alone or in CTA pairs; N- or
// K-major rhs, flat rows) is written op by op from its kernel-level IR,
// and so is its launch. ptxas accepts every kernel with no spills.
// CHECK: epilogue operand #0 ('tensor<?x433x256xf16>') read at [g(b), m, n]: prefetched as a '!sck.box<64x256xf16>' per tile
// CHECK: kernel shared_w_f16_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// CHECK: kernel bmm_f16_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// The cooperative schedule too (both consumers on one 128-row tile, 64
// rows each, no turns).
// CHECK: kernel square_bf16_gemm0: {{.*}} cooperative{{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// Epilogue regions (bias + relu, a scale, gelu + silu) too: each element
// through the device function built from the IR's sck.epilogue region; and
// a K of one k-tile (no k loop in the IR).
// CHECK: kernel odd_bias_relu_f16_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// CHECK: kernel odd_scale_bf16_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// CHECK: kernel gelu_silu_f16_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// A K-major rhs (B's boxes read transposed, wgmma's B col-major).
// CHECK: kernel transposed_bf16_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// A batched lhs times a shared rhs: flat rows.
// CHECK: kernel transposed_shared_f16_gemm0: {{.*}}; lhs batch elements as one matrix of B x 70 rows, tiles across them; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// The gather-add (the request result's tile prefetched, f16 here: the
// remark comes first, from the pass).
// CHECK: kernel gather_add_f16_user_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores

// The kernel: the roles' register split, TMA loads into the ring and
// full/empty mbarriers, wgmma on the slots, ping-pong turns (named
// barriers), the epilogue through staging by TMA stores.
// PTX: .maxntid 384, 1, 1
// PTX: mbarrier.init.shared
// PTX: setmaxnreg.dec.sync.aligned.u32 {{.*}}40;
// PTX: mbarrier.try_wait.parity
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 {{.*}}232;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.wait_group.sync.aligned {{.*}}1;
// PTX: bar.arrive
// PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group

// A grid tile loop (sc-persistent not run): a pair of tiles a CTA; the
// dispatched transposed tile too.
// GRID: kernel lce_gemm1: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// GRID: kernel lce_gemm3: {{.*}} transposed ping-pong: {{.*}} epilogue in chunks of 32 rows{{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// GRID: kernel lce_gemm4: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu

// The default: the kernels it takes written from the IR, the LCE's
// candidate GEMM with its request tile prefetched (sc-prefetch-epilogue-
// operands): the index read at the tile's start, the f32 tile by TMA in
// 64-row x 128-byte subtiles, eight a tile, two buffers a consumer, read
// back from shared memory in the epilogue.
// DEFAULT: epilogue operand #0 ('tensor<?x433x256xf32>') read at [g(b), m, n]: prefetched as a '!sck.box<64x256xf32>' per tile
// DEFAULT: kernel lce_gemm1: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// DEFAULT: kernel lce_gemm3: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// DEFAULT-NOT: spill stores, {{[1-9]}}
// PREFETCH-LABEL: .visible .entry lce_gemm3(
// PREFETCH: ld.global.b32
// PREFETCH-COUNT-2: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{.*}}], [{{.*}}, {{{.*}}, {{.*}}, {{.*}}}], [{{.*}}];
// PREFETCH: wgmma.mma_async
// PREFETCH: mbarrier.try_wait.parity
// PREFETCH: ld.shared.v2.b32
// PREFETCH: bar.sync {{.*}}, 128;
// PREFETCH: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PREFETCH-LABEL: lce_gemm3_epilogue(
// DEFAULT-SUITE: kernel shared_w_f16_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// DEFAULT-SUITE: kernel square_bf16_gemm0: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// Off (--kernels-from-ir=false, or=false): the
// templates.
// EPILOGUE: .visible .entry odd_bias_relu_f16_gemm0
// EPILOGUE: max.{{(NaN.)?}}f32
// EPILOGUE: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// CTA pairs (sc-multicast: the tile loop's cluster = 2): the pair walks
// pairs of M tiles, each CTA loading half of B's box into both (multicast,
// mask 0b11), every consumer freeing a slot in both CTAs (a remote arrive
// through mapa), the barrier inits fenced and the pair synchronized at the
// start and before it exits; the f32 request tile still prefetched.
// CLUSTERS: prefetched as a '!sck.box<64x256xf32>' per tile
// CLUSTERS: kernel gemm_gather_add_gemm0: {{.*}} clusters of 2 CTAs on pairs of M tiles sharing B by TMA multicast{{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// CLUSTERS-NOT: spill stores, {{[1-9]}}
// CLUSTERS-PTX: .reqnctapercluster 2, 1, 1
// CLUSTERS-PTX: %cluster_ctarank
// CLUSTERS-PTX: fence.mbarrier_init.release.cluster
// CLUSTERS-PTX: barrier.cluster.arrive
// CLUSTERS-PTX: barrier.cluster.wait
// CLUSTERS-PTX: multicast::cluster
// CLUSTERS-PTX: mapa.shared::cluster.u32
// CLUSTERS-PTX: mbarrier.arrive.shared::cluster.b64
// CLUSTERS-PTX: barrier.cluster.arrive
// CLUSTERS-PTX-NEXT: barrier.cluster.wait
// An odd number of M tiles (7 rows: one tile, its pair's second past M)
// and the cooperative schedule.
// CLUSTERS-ODD: kernel lce_odd_gemm1: {{.*}} cooperative{{.*}} clusters of 2 CTAs{{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// KMAJOR: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, 1, 1, 0, 0;
// The transposed tile (--gemm-schedule=transposed) from the IR too, at
// 433 x 256 (tiles of 152 rows m), 8192^3 and 333 x 264 (odd M and N); an
// f16 request tile read in place (the transposed tile streams f32 chunks
// only). No kernel spills.
// TRANSPOSED: epilogue operand #0 read in place: the transposed tile's epilogue streams f32 operands only
// TRANSPOSED: kernel shared_w_f16_gemm0: {{.*}} transposed ping-pong: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// TRANSPOSED: kernel square_bf16_gemm0: {{.*}} transposed ping-pong: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// TRANSPOSED: kernel odd_scale_bf16_gemm0: {{.*}} transposed ping-pong: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// TRANSPOSED: kernel gather_add_f16_user_gemm0: {{.*}} transposed ping-pong: {{.*}}; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu
// TRANSPOSED-NOT: spill stores, {{[1-9]}}
