// RUN: sparcast-opt %s -sc-select-kernel-config=schedule=cooperative -sc-lower-to-sck -sc-split-k=dense=1 -sc-persistent -sc-warp-specialize -sc-schedule-wgmma -sc-test-gemm-kernel | FileCheck %s
// RUN: sparcast-opt %s -sc-select-kernel-config=schedule=pingpong -sc-lower-to-sck -sc-split-k=dense=1 -sc-persistent -sc-warp-specialize -sc-schedule-wgmma -sc-test-gemm-kernel | FileCheck %s --check-prefix=PP

// sck.reduce_splits of a dense cooperative GEMM (sc-split-k dense), lowered
// warpgroup by warpgroup: the kernel takes the parts' partial sums (f32)
// and the arrival counts (i32) after C's map. Only where the kernel runs
// more than one part: each thread stores its 128 accumulator words
// coalesced, fences them, the warpgroup meets on its named barrier, its
// thread 0 counts the arrival, and bar.red.or tells every thread of the
// warpgroup whether this part came last; the last fences again and adds
// every part's words in part order (a loop over the parts), and its
// epilogue runs under the same condition. With one part the accumulator
// goes through unchanged.
// CHECK-LABEL: gpu.func @tower_gemm0(
// CHECK-SAME: %[[PARTIALS:[a-z0-9]+]]: memref<?xf32>, %[[ARRIVALS:[a-z0-9]+]]: memref<?xi32>) kernel
// CHECK: %[[SEVERAL:.*]] = arith.cmpi ugt, %[[PARTS:.*]], %c1{{.*}} : index
// CHECK: scf.if %[[SEVERAL]] -> ({{.*}}, i1) {
// CHECK-COUNT-128: memref.store %{{.*}}, %[[PARTIALS]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: %[[COUNT:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[ARRIVALS]][%{{.*}}] : (i32, memref<?xi32>) -> i32
// CHECK: nvvm.inline_ptx "{ .reg .pred p, q; setp.ne.u32 p, $2, 0; bar.red.or.pred q, $1, 128, p; selp.u32 $0, 1, 0, q; }" ro(%{{.*}}, %[[COUNT]] : i32, i32) -> i32
// CHECK: %[[SUM:.*]]:2 = scf.if %{{.*}} -> ({{.*}}) {
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[PARTS]] step %c1{{.*}} iter_args
// CHECK-COUNT-128: memref.load %[[PARTIALS]]
// CHECK: } else {
// CHECK: scf.yield %{{.*}}, %{{.*}}, %true
// CHECK: scf.if
// CHECK: nvgpu.tma.async.store
// Ping-pong: each consumer's 64 x 256 tile is a tile of its own (its
// arrivals counted at the tile's index), 128 words a thread as well.
// PP-LABEL: gpu.func @tower_gemm0(
// PP-SAME: memref<?xf32>, %{{.*}}: memref<?xi32>) kernel
// PP-COUNT-128: memref.store %{{.*}} : memref<?xf32>
// PP: bar.red.or.pred
// PP: nvgpu.tma.async.store
func.func @tower(%x: tensor<?x1x2048xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<1024x2048xbf16>) -> tensor<?x1x1024xbf16> {
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x2048xbf16>, tensor<1024x2048xbf16> -> tensor<?x1x1024xbf16>
  return %y : tensor<?x1x1024xbf16>
}
