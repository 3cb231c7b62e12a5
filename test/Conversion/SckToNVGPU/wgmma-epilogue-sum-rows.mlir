// RUN: sparcast-opt %S/Inputs/wgmma-sum-rows.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.epilogue with sum_rows = 200: each element through the region's
// device function (which yields f16: the element as it would be stored),
// extended to f32 and masked to 0 on rows at or past 200 (computed at
// the last row), the thread's two rows summed per column, then a butterfly
// over the warp's eight lane quads (xor 4, 8, 16) and, on the first quad's
// lanes for columns below 136, two atomic adds into C[b, 0, n]. Nothing is
// staged: no proxy fence and no TMA store.
// CHECK-LABEL: gpu.func @gather_add(
// CHECK-SAME: %[[C:[^:]*]]: memref<?x1x136xf32>,
// CHECK: %[[ROW0:.*]] = arith.cmpi ult, %{{.*}}, %c200 : index
// CHECK: %[[ROW1:.*]] = arith.cmpi ult, %{{.*}}, %c200 : index
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: %[[E0:.*]] = func.call @gather_add_epilogue({{.*}}) : (f32, index, index, index, f32) -> f16
// CHECK: %[[W0:.*]] = arith.extf %[[E0]] : f16 to f32
// CHECK: arith.select %[[ROW0]], %[[W0]], %cst : f32
// CHECK: func.call @gather_add_epilogue
// CHECK: arith.select %[[ROW1]], %{{.*}}, %cst : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: %[[N:.*]] = arith.addi
// CHECK: %[[QUAD0:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK: %[[INN:.*]] = arith.cmpi ult, %[[N]], %c136 : index
// CHECK: %[[ADD:.*]] = arith.andi %[[QUAD0]], %[[INN]] : i1
// CHECK: scf.if %[[ADD]] {
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[C]][%{{.*}}, %c0, %{{.*}}] : (f32, memref<?x1x136xf32>) -> f32
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[C]][%{{.*}}, %c0, %{{.*}}] : (f32, memref<?x1x136xf32>) -> f32
// CHECK-NOT: nvvm.fence.proxy
// CHECK-NOT: nvgpu.tma.async.store
// CHECK: func.func private @gather_add_epilogue(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: f32) -> f16
