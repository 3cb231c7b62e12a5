// RUN: sparcast-opt %S/Inputs/wgmma-by-threads.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.get of a slot the producer's threads filled: the full barrier's wait,
// then a proxy fence (their copies were generic-proxy writes; wgmma reads
// through the async proxy).
// sck.epilogue {direct_stores}: C's rows (250 f16) are no TMA stride, so
// each thread stores its pairs itself where their row and columns lie in
// C (rows <= 199, columns <= 249: N is even, a pair is in or out whole),
// 4-byte aligned; no staging, no TMA store, no tensor map of C.
// CHECK-LABEL: gpu.func @unaligned(
// CHECK-SAME: %[[C:[^:]*]]: memref<?x200x250xf16>)
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL:.*]][
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[ROW:.*]] = arith.cmpi ule, %{{.*}}, %c199 : index
// CHECK: %[[N:.*]] = arith.addi %{{.*}}, %c0 : index
// CHECK: %[[COL:.*]] = arith.cmpi ule, %[[N]], %c249 : index
// CHECK: %[[IN:.*]] = arith.andi %[[ROW]], %[[COL]] : i1
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: vector.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}, %[[N]]] {alignment = 4 : i64} : memref<?x200x250xf16>, vector<2xf16>
// CHECK-NOT: nvgpu.tma.async.store
// CHECK-NOT: nvvm.fence.proxy
// CHECK: gpu.return
