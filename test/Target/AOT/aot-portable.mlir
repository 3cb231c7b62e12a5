// RUN: rm -rf %t && sparcast-aot %s -o %t --sm=sm_80 --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/transposed_kernels.ptx
// RUN: rm -rf %t90 && sparcast-aot %s -o %t90 --gemm-schedule=simple 2>&1 | FileCheck %s --check-prefix=REMARK

// sm_80 gets the portable kernel; on sm_90a an op the Hopper path does not
// take (here N = 9: the result's rows are not 16-byte aligned) gets it
// too, with a remark. K = 13 is padded to 16 first: the
// portable kernel reads memory directly, so the padding is materialized.
// CHECK: padded K 13 -> 16 (16-byte rows) on both operands
// CHECK: kernel transposed_copy0: copy arg1 -> ws0 (?x9x16, zero outside the source box)
// CHECK: kernel transposed_copy1: copy arg0 -> ws1 (?x20x16, zero outside the source box)
// CHECK: kernel transposed_gemm2: 20x9x16 f16, portable path (one thread per output, fp32 accumulation), block 256, grid 1x1xB
// PTX: .target sm_80
// PTX-NOT: wgmma
// PTX: ld.global
// REMARK: remark: using the portable GEMM path: TMA needs 16-byte aligned rows: K (16) and N (9) must be multiples of 8 (pad K with sc-pad-k)

func.func @transposed(%a: tensor<?x20x13xf16>, %b: tensor<?x9x13xf16>) -> tensor<?x20x9xf16> {
  %c = sc.batch_matmul %a, %b {transpose_rhs} : tensor<?x20x13xf16>, tensor<?x9x13xf16> -> tensor<?x20x9xf16>
  return %c : tensor<?x20x9xf16>
}
