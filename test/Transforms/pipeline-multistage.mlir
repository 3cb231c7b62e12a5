// RUN: sparcast-opt %s -split-input-file -sc-pipeline-multistage | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-pipeline-multistage=stages=2 | FileCheck %s --check-prefix=TWO
// RUN: not sparcast-opt %s -split-input-file -sc-pipeline-multistage=stages=9 2>&1 | FileCheck %s --check-prefix=BAD

// A multistage kernel's k loop: its boxes through a ring of 3 slots, put
// two k-tiles ahead of the MMA. k-tiles 0 and 1 are put before the loop,
// iteration k gets k-tile k and puts k-tile k + 2 (coordinates computed
// again from it) before its MMA; every put and get names its position.
// CHECK-LABEL: func.func private @gemm_kernel(
// CHECK: %[[RING:.*]] = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
// CHECK: sck.tile_loop
// CHECK: %[[ZERO:.*]] = sck.zero
// CHECK: %[[P0:.*]] = arith.constant 0 : index
// CHECK: %[[K0:.*]] = arith.muli %[[P0]], %{{.*}} : index
// CHECK: %[[A0:.*]] = sck.load "A"[%[[K0]], %{{.*}}, %{{.*}}]
// CHECK: %[[B0:.*]] = sck.load "B"[%{{.*}}, %[[K0]], %{{.*}}]
// CHECK: sck.put %[[RING]][%[[P0]]], %[[A0]], %[[B0]]
// CHECK: %[[P1:.*]] = arith.constant 1 : index
// CHECK: sck.put %[[RING]][%[[P1]]]
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK-NEXT: %[[GOT:.*]]:2 = sck.get %[[RING]][%[[K]]]
// CHECK-NEXT: %[[AHEAD:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[K]], %[[AHEAD]] : index
// CHECK-NEXT: %[[KN:.*]] = arith.muli %[[NEXT]], %{{.*}} : index
// CHECK-NEXT: %[[AN:.*]] = sck.load "A"[%[[KN]], %{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[BN:.*]] = sck.load "B"[%{{.*}}, %[[KN]], %{{.*}}]
// CHECK-NEXT: sck.put %[[RING]][%[[NEXT]]], %[[AN]], %[[BN]]
// CHECK-NEXT: %[[R:.*]] = sck.mma %[[GOT]]#0, %[[GOT]]#1, %[[ACC]]
// CHECK-NEXT: scf.yield %[[R]]
// CHECK-NOT: sck.load
// CHECK: sck.epilogue
// Two slots: one k-tile put ahead.
// TWO-LABEL: func.func private @gemm_kernel(
// TWO: sck.ring {stages = 2 : i64}
// TWO-COUNT-1: sck.put %{{.*}}[%c0
// TWO: sck.get
// TWO-NEXT: arith.constant 1 : index
// BAD: error: sc-pipeline-multistage: stages must be 2 to 8, got 9
func.func private @gemm_kernel(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<multistage>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  sck.tile_loop %batch, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c128 : index
    %n0 = arith.muli %nt, %c128 : index
    %zero = sck.zero : !sck.acc<128x128xf32>
    %acc = scf.for %kt = %c0 to %c3 step %c1 iter_args(%in = %zero) -> (!sck.acc<128x128xf32>) {
      %k0 = arith.muli %kt, %c32 : index
      %a = sck.load "A"[%k0, %m0, %b] : !sck.box<128x32xf16>
      %bb = sck.load "B"[%n0, %k0, %b] : !sck.box<32x128xf16>
      %out = sck.mma %a, %bb, %in : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      scf.yield %out : !sck.acc<128x128xf32>
    }
    sck.epilogue "C"[%n0, %m0, %b], %acc : !sck.acc<128x128xf32>
  }
  return
}

// -----

// Kernels of other schedules (Hopper's, whose rings sc-warp-specialize
// builds) are left alone.
// CHECK-LABEL: func.func private @hopper_kernel(
// CHECK-NOT: sck.ring
// CHECK: sck.load "A"
func.func private @hopper_kernel(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<pingpong>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<64x256xf32>
    %acc = scf.for %kt = %c0 to %c1 step %c1 iter_args(%in = %zero) -> (!sck.acc<64x256xf32>) {
      %a = sck.load "A"[%kt, %c0] : !sck.box<64x64xf16>
      %bb = sck.load "B"[%c0, %kt, %b] : !sck.box<64x256xf16>
      %out = sck.mma %a, %bb, %in : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
      scf.yield %out : !sck.acc<64x256xf32>
    }
    sck.epilogue "C"[%c0, %c0, %b], %acc : !sck.acc<64x256xf32>
  }
  return
}
