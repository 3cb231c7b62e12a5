// RUN: rm -rf %t && sparcast-aot %s -o %t --sm=sm_80 --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/transposed_kernels.ptx
// RUN: rm -rf %t90 && sparcast-aot %s -o %t90 --report 2>&1 | FileCheck %s --check-prefix=REMARK

// sm_80 gets the portable kernel. K = 13 is padded to 16 first: the
// portable kernel reads memory directly, so the padding is materialized.
// On sm_90a N = 9 (rows not 16-byte aligned for TMA) is padded to 16 and
// the result sliced back, so the GEMM stays on the tensor cores.
// CHECK: padded K 13 -> 16 (16-byte rows) on both operands
// CHECK: kernel transposed_copy0: copy arg1 -> ws0 (?x9x16, zero outside the source box)
// CHECK: kernel transposed_copy1: copy arg0 -> ws1 (?x20x16, zero outside the source box)
// CHECK: kernel transposed_gemm2: 20x9x16 f16, portable path (one thread per output, fp32 accumulation), block 256, grid 1x1xB
// PTX: .target sm_80
// PTX-NOT: wgmma
// PTX: ld.global
// REMARK-NOT: portable path
// REMARK: kernel transposed_gemm2: 20x16x16 f16
// REMARK-NOT: portable path

func.func @transposed(%a: tensor<?x20x13xf16>, %b: tensor<?x9x13xf16>) -> tensor<?x20x9xf16> {
  %c = sc.batch_matmul %a, %b {transpose_rhs} : tensor<?x20x13xf16>, tensor<?x9x13xf16> -> tensor<?x20x9xf16>
  return %c : tensor<?x20x9xf16>
}
