// RUN: sparcast-opt %s -sc-select-kernel-config="chip=sm_80 report=1" -verify-diagnostics | FileCheck %s
// RUN: sparcast-opt %s -sc-select-kernel-config=chip=sm_86 -sc-lower-to-sck -canonicalize | FileCheck %s --check-prefix=SCK
// RUN: sparcast-opt %s -sc-select-kernel-config=chip=sm_80 -sc-lower-to-sck -sc-persistent=report=1 -sc-multicast -sc-warp-specialize=report=1 -sc-prefetch-epilogue-operands -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOPPER
// RUN: not sparcast-opt %s -sc-select-kernel-config=chip=sm_70 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not sparcast-opt %s -sc-select-kernel-config=schedule=multistage -o /dev/null 2>&1 | FileCheck %s --check-prefix=ASKED

// On sm_80 / sm_86 / sm_89 a 16-bit GEMM with 16-byte rows gets the
// multistage schedule (a schedule pinned for Hopper cannot run there);
// what it cannot take keeps no schedule (the portable kernel) and says why.
// CHECK-LABEL: func.func @gemm
// CHECK: sc.gemm_schedule = #sc.gemm_schedule<multistage>
// CHECK-LABEL: func.func @pinned
// CHECK: sc.gemm_schedule = #sc.gemm_schedule<multistage>
// CHECK-LABEL: func.func @f32
// CHECK-NOT: sc.gemm_schedule
// CHECK-LABEL: func.func @odd_k
// CHECK-NOT: sc.gemm_schedule
// CHECK: return
func.func @gemm(%a: tensor<?x200x72xf16>, %b: tensor<?x72x136xf16>, %bias: tensor<136xf32>) -> tensor<?x200x136xf32> {
  // expected-remark @below {{GEMM schedule multistage (sm_80: cp.async ring, mma.sync)}}
  %c = sc.batch_matmul %a, %b epilogue_ins(%bias : tensor<136xf32>)
      : tensor<?x200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf32> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bs: tensor<136xf32>):
    %x = tensor.extract %bs[%n] : tensor<136xf32>
    %s = arith.addf %acc, %x : f32
    sc.yield %s : f32
  }
  return %c : tensor<?x200x136xf32>
}

func.func @pinned(%x: tensor<?x300x128xbf16>, %w: tensor<512x128xbf16>) -> tensor<?x300x512xbf16> {
  // expected-remark @below {{GEMM schedule multistage}}
  %c = sc.batch_matmul %x, %w {transpose_rhs, sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<?x300x128xbf16>, tensor<512x128xbf16> -> tensor<?x300x512xbf16>
  return %c : tensor<?x300x512xbf16>
}

func.func @f32(%a: tensor<?x8x8xf32>, %b: tensor<?x8x8xf32>) -> tensor<?x8x8xf32> {
  // expected-remark @below {{no tensor-core kernel on sm_80: mma.sync takes f16/bf16 operands here}}
  %c = sc.batch_matmul %a, %b : tensor<?x8x8xf32>, tensor<?x8x8xf32> -> tensor<?x8x8xf32>
  return %c : tensor<?x8x8xf32>
}

func.func @odd_k(%a: tensor<?x16x13xf16>, %b: tensor<?x13x16xf16>) -> tensor<?x16x16xf16> {
  // expected-remark @below {{no tensor-core kernel on sm_80: cp.async copies 16-byte rows: K (13) must be a multiple of 8 (pad K with sc-pad-k)}}
  %c = sc.batch_matmul %a, %b : tensor<?x16x13xf16>, tensor<?x13x16xf16> -> tensor<?x16x16xf16>
  return %c : tensor<?x16x16xf16>
}

func.func @odd_n(%a: tensor<?x16x16xf16>, %b: tensor<?x16x13xf16>) -> tensor<?x16x13xf16> {
  // expected-remark @below {{no tensor-core kernel on sm_80: N (13) must be even (pad N with sc-pad-n)}}
  %c = sc.batch_matmul %a, %b : tensor<?x16x16xf16>, tensor<?x16x13xf16> -> tensor<?x16x13xf16>
  return %c : tensor<?x16x13xf16>
}

// sc-lower-to-sck then tiles 128 x 256 past 128 columns (8 warps; 128 x
// 128 up to them) in k-tiles of 32 (ceil(72 / 32) = 3), one CTA a tile; a
// shared rhs over batched rows: flat rows.
// SCK-LABEL: func.func private @gemm_gemm0_kernel(
// SCK-SAME: sck.schedule = #sck.kernel_schedule<multistage>
// SCK-DAG: %[[C1:.*]] = arith.constant 1 : index
// SCK-DAG: %[[C2:.*]] = arith.constant 2 : index
// SCK-DAG: %[[C3:.*]] = arith.constant 3 : index
// SCK: sck.tile_loop %{{.*}}, %[[C2]], %[[C1]] attributes {schedule = #sck.tile_schedule<grid>}
// SCK: scf.for %{{.*}} = %{{.*}} to %[[C3]]
// SCK: sck.load "A"[%{{.*}}, %{{.*}}, %{{.*}}] : !sck.box<128x32xf16>
// SCK: sck.load "B"[%{{.*}}, %{{.*}}, %{{.*}}] : !sck.box<32x256xf16>
// SCK: sck.mma {{.*}} : !sck.box<128x32xf16>, !sck.box<32x256xf16>, !sck.acc<128x256xf32>
// SCK: sck.epilogue "C"
// SCK-LABEL: func.func private @pinned_gemm0_kernel(
// SCK: sck.load "A"[%{{.*}}, %{{.*}}] : !sck.box<128x32xbf16>
// SCK: sck.load "B"[%{{.*}}, %{{.*}}] {transposed} : !sck.box<32x256xbf16>
// SCK-NOT: @f32_gemm0_kernel
// The Hopper passes leave a multistage kernel alone.
// HOPPER: remark: tile loop: grid (a multistage kernel: one CTA per tile)
// HOPPER: remark: not warp-specialized: a multistage kernel (every warp loads and computes)
// HOPPER-NOT: multicast
// CHIP: error: sc-select-kernel-config: unknown chip 'sm_70', expected sm_90a, sm_80, sm_86 or sm_89
// ASKED: error: sc-select-kernel-config: unknown GEMM schedule 'multistage', expected auto, cooperative, pingpong or transposed
