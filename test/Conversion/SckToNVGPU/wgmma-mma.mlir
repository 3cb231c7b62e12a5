// RUN: sparcast-opt %S/Inputs/wgmma-pingpong.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// sck.zero is never materialized (an undef accumulator), sck.mma on it is
// four k16 wgmma into each m64n128 half that ignore the accumulator on
// their first step (D <zero>); A's descriptor steps 32 bytes (2 units) a
// k16, B's (N-major) 16 rows of 128 bytes (128 units); one commit group,
// waited for until only it is in flight. In the k loop the halves are
// loop-carried and every wgmma accumulates (D <one>).
// CHECK-LABEL: gpu.func @gather_add(
// CHECK: %[[UNDEF:.*]] = llvm.mlir.undef : !llvm.struct<(f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[UNDEF]], <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-COUNT-3: D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[UNDEF]], <m = 64, n = 128, k = 16>, D[<f32>, <zero>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: %[[ACC:.*]]:2 = scf.for %{{.*}} = %c1 to %c2 step %c1 iter_args(%[[L:.*]] = %{{.*}}, %[[R:.*]] = %{{.*}}) -> (!llvm.struct<(f32
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[L]], <m = 64, n = 128, k = 16>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[R]], <m = 64, n = 128, k = 16>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
