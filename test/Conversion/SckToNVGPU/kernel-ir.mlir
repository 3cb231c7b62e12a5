// RUN: sparcast-opt %s -split-input-file -sc-schedule-wgmma -sc-test-gemm-kernel -verify-diagnostics | FileCheck %s

// A GEMM with a kernel-level function (sc.kernel_ir): the kernel is written
// from that function, its epilogue from the function's sck.epilogue, not
// the op's. Here the kernel-level epilogue adds a ReLU the op's region
// does not have, on the gathered operand's prefetched box.
// CHECK-LABEL: gpu.func @relu_gemm0(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<?x128x256xf16>, %{{.*}}: memref<?x128x256xf32>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK: func.func private @relu_gemm0_epilogue(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f32) -> f16
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[S]], %[[Z]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK-NEXT: return %[[T]] : f16
func.func @relu(%w: tensor<128x64xf16>, %e: tensor<?x64x256xf16>, %bias: tensor<?x128x256xf32>) -> tensor<?x128x256xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%bias : tensor<?x128x256xf32>) {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.kernel_ir = @relu_kernel} : tensor<128x64xf16>, tensor<?x64x256xf16> -> tensor<?x128x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %x: tensor<?x128x256xf32>):
    %v = tensor.extract %x[%b, %m, %n] : tensor<?x128x256xf32>
    %s = arith.addf %acc, %v : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x128x256xf16>
}
func.func private @relu_kernel(%batch: index, %bias: tensor<?x128x256xf32>) attributes {sck.schedule = #sck.kernel_schedule<pingpong>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %ring = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
  sck.role producer attributes {regs = 40 : i64} {
    sck.tile_loop %batch, %c2, %c1 attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %mt: index, %nt: index):
      %m0 = arith.muli %mt, %c64 : index
      %n0 = arith.muli %nt, %c256 : index
      %a = sck.load "A"[%c0, %m0] : !sck.box<64x64xf16>
      %bb = sck.load "B"[%n0, %c0, %b] : !sck.box<64x256xf16>
      sck.put %ring, %a, %bb : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>, !sck.box<64x64xf16>, !sck.box<64x256xf16>
    }
  }
  sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64} {
    sck.tile_loop %batch, %c2, %c1 attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %mt: index, %nt: index):
      %m0 = arith.muli %mt, %c64 : index
      %n0 = arith.muli %nt, %c256 : index
      %x = sck.prefetch %bias[%n0, %m0, %b] : tensor<?x128x256xf32> -> !sck.box<64x256xf32>
      %zero = sck.zero : !sck.acc<64x256xf32>
      %got:2 = sck.get %ring : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
      %acc = sck.mma %got#0, %got#1, %zero : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
      sck.release %ring : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
      sck.epilogue "C"[%n0, %m0, %b], %acc ins(%x : !sck.box<64x256xf32>) : !sck.acc<64x256xf32> {
      ^bb0(%v: f32, %bb: index, %m: index, %n: index, %xv: f32):
        %s = arith.addf %v, %xv : f32
        %zf = arith.constant 0.0 : f32
        %r = arith.maximumf %s, %zf : f32
        %t = arith.truncf %r : f32 to f16
        sck.yield %t : f16
      }
    }
  }
  return
}

// -----

// The warp-specialized kernels are written from roles around a ring: a
// tile loop that sc-warp-specialize has not split is refused.
func.func @no_roles(%w: tensor<128x64xf16>, %e: tensor<?x64x256xf16>) -> tensor<?x128x256xf16> {
  %c = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.kernel_ir = @no_roles_kernel} : tensor<128x64xf16>, tensor<?x64x256xf16> -> tensor<?x128x256xf16>
  return %c : tensor<?x128x256xf16>
}
// expected-error @below {{sck-to-nvgpu does not lower a tile loop outside roles (sc-warp-specialize did not run)}}
func.func private @no_roles_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  sck.tile_loop %batch, %c2, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c64 : index
    %n0 = arith.muli %nt, %c256 : index
    %zero = sck.zero : !sck.acc<64x256xf32>
    %a = sck.load "A"[%c0, %m0] : !sck.box<64x64xf16>
    %bb = sck.load "B"[%n0, %c0, %b] : !sck.box<64x256xf16>
    %r = sck.mma %a, %bb, %zero : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
    sck.epilogue "C"[%n0, %m0, %b], %r : !sck.acc<64x256xf32>
  }
  return
}

// -----

// A GEMM on a warp-specialized schedule without a kernel-level function
// has no kernel.
func.func @no_kernel_ir(%w: tensor<128x64xf16>, %e: tensor<?x64x256xf16>) -> tensor<?x128x256xf16> {
  // expected-error @below {{the warp-specialized GEMM kernels are written from the kernel-level IR: run sc-lower-to-sck and sc-warp-specialize first}}
  %c = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<128x64xf16>, tensor<?x64x256xf16> -> tensor<?x128x256xf16>
  return %c : tensor<?x128x256xf16>
}

// -----

// The kernel-level epilogue must read the op's epilogue operands (the
// kernel's parameters are the op's).
func.func @other_ins(%w: tensor<128x64xf16>, %e: tensor<?x64x256xf16>, %bias: tensor<?x128x256xf32>) -> tensor<?x128x256xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%bias : tensor<?x128x256xf32>) {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.kernel_ir = @other_ins_kernel} : tensor<128x64xf16>, tensor<?x64x256xf16> -> tensor<?x128x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %x: tensor<?x128x256xf32>):
    %t = arith.truncf %acc : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x128x256xf16>
}
func.func private @other_ins_kernel(%batch: index) {
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<64x256xf32>
    // expected-error @below {{the kernel-level epilogue reads other tensors than the op's epilogue operands}}
    sck.epilogue "C"[%nt, %mt, %b], %zero : !sck.acc<64x256xf32>
  }
  return
}

// -----

// The kernel-level IR must tile as the GPU kernel does (64x256 ping-pong
// tiles, 64-wide k-tiles): other boxes are refused, not ignored.
func.func @other_tiles(%w: tensor<128x64xf16>, %e: tensor<?x64x256xf16>) -> tensor<?x128x256xf16> {
  %c = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.kernel_ir = @other_tiles_kernel} : tensor<128x64xf16>, tensor<?x64x256xf16> -> tensor<?x128x256xf16>
  return %c : tensor<?x128x256xf16>
}
func.func private @other_tiles_kernel(%batch: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  sck.tile_loop %batch, %c2, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<64x128xf32>
    %a = sck.load "A"[%mt, %b] : !sck.box<64x32xf16>
    %bb = sck.load "B"[%nt, %b] : !sck.box<32x128xf16>
    // expected-error @below {{the pingpong GPU kernel multiplies 64x64 by 64x256 boxes of 'f16' into 64x256 accumulators; the kernel-level IR asks for '!sck.box<64x32xf16>' by '!sck.box<32x128xf16>' into '!sck.acc<64x128xf32>'}}
    %r = sck.mma %a, %bb, %zero : !sck.box<64x32xf16>, !sck.box<32x128xf16>, !sck.acc<64x128xf32>
    sck.epilogue "C"[%nt, %mt, %b], %r : !sck.acc<64x128xf32>
  }
  return
}

// -----

// ... and read each operand in the op's layout.
func.func @layout(%w: tensor<128x64xf16>, %e: tensor<?x64x256xf16>) -> tensor<?x128x256xf16> {
  %c = sc.batch_matmul %w, %e {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.kernel_ir = @layout_kernel} : tensor<128x64xf16>, tensor<?x64x256xf16> -> tensor<?x128x256xf16>
  return %c : tensor<?x128x256xf16>
}
func.func private @layout_kernel(%batch: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  sck.tile_loop %batch, %c2, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<64x256xf32>
    %a = sck.load "A"[%mt, %b] : !sck.box<64x64xf16>
    // expected-error @below {{the GPU kernel reads operand B as stored; the kernel-level IR says otherwise}}
    %bb = sck.load "B"[%nt, %b] {transposed} : !sck.box<64x256xf16>
    %r = sck.mma %a, %bb, %zero : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
    sck.epilogue "C"[%nt, %mt, %b], %r : !sck.acc<64x256xf32>
  }
  return
}
