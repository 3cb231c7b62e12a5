// RUN: sparcast-opt %s -split-input-file -sc-pipeline-multistage -sc-test-gemm-kernel=chip=sm_80 -verify-diagnostics

// Kernel-level IR of another form than the multistage kernel computes is a
// located error, never a different kernel (the pipelined IR lowered by
// sc-convert-sck-to-mma-sync; the tile counts checked against the launch).

func.func @small(%a: tensor<?x200x72xf16>, %b: tensor<?x72x136xf16>) -> tensor<?x200x136xf16> {
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<multistage>, sc.kernel_ir = @small_gemm0_kernel} : tensor<?x200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf16>
  return %c : tensor<?x200x136xf16>
}
func.func private @small_gemm0_kernel(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<multistage>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  sck.tile_loop %batch, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c64 : index
    %n0 = arith.muli %nt, %c128 : index
    // expected-error @below {{multistage-gemm-kernel: a 128x128 or 128x256 f32 accumulator (warps of 64 x 64)}}
    %zero = sck.zero : !sck.acc<64x128xf32>
    %acc = scf.for %kt = %c0 to %c3 step %c1 iter_args(%in = %zero) -> (!sck.acc<64x128xf32>) {
      %k0 = arith.muli %kt, %c32 : index
      %a = sck.load "A"[%k0, %m0, %b] : !sck.box<64x32xf16>
      %bb = sck.load "B"[%n0, %k0, %b] : !sck.box<32x128xf16>
      %out = sck.mma %a, %bb, %in : !sck.box<64x32xf16>, !sck.box<32x128xf16>, !sck.acc<64x128xf32>
      scf.yield %out : !sck.acc<64x128xf32>
    }
    sck.epilogue "C"[%n0, %m0, %b], %acc : !sck.acc<64x128xf32>
  }
  return
}

// -----

func.func @persistent(%a: tensor<?x200x72xf16>, %b: tensor<?x72x136xf16>) -> tensor<?x200x136xf16> {
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<multistage>, sc.kernel_ir = @persistent_gemm0_kernel} : tensor<?x200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf16>
  return %c : tensor<?x200x136xf16>
}
func.func private @persistent_gemm0_kernel(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<multistage>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  // expected-error @below {{sc-convert-sck-to-mma-sync: a grid tile loop (one CTA a tile), not persistent}}
  sck.tile_loop %batch, %c2, %c2 attributes {schedule = #sck.tile_schedule<persistent>} {
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

func.func @counts(%a: tensor<?x200x72xf16>, %b: tensor<?x72x136xf16>) -> tensor<?x200x136xf16> {
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<multistage>, sc.kernel_ir = @counts_gemm0_kernel} : tensor<?x200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf16>
  return %c : tensor<?x200x136xf16>
}
func.func private @counts_gemm0_kernel(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<multistage>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  // expected-error @below {{multistage-gemm-kernel: the kernel runs 2 x 2 tiles of 128 x 128; the kernel-level IR's tile loop differs}}
  sck.tile_loop %batch, %c1, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
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

// The lowering takes a ring of named positions (sc-pipeline-multistage):
// the k loop as sc-lower-to-sck leaves it has none.
func.func @unpipelined(%a: tensor<?x128x32xf16>, %b: tensor<?x32x128xf16>) -> tensor<?x128x128xf16> {
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<multistage>, sc.kernel_ir = @unpipelined_gemm0_kernel} : tensor<?x128x32xf16>, tensor<?x32x128xf16> -> tensor<?x128x128xf16>
  return %c : tensor<?x128x128xf16>
}
// expected-error @below {{multistage-gemm-kernel: one ring and one tile loop at the kernel function's top level (run sc-pipeline-multistage)}}
func.func private @unpipelined_gemm0_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<128x128xf32>
    %a = sck.load "A"[%c0, %c0, %b] : !sck.box<128x32xf16>
    %bb = sck.load "B"[%c0, %c0, %b] : !sck.box<32x128xf16>
    %out = sck.mma %a, %bb, %zero : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
    sck.epilogue "C"[%c0, %c0, %b], %out : !sck.acc<128x128xf32>
  }
  return
}
