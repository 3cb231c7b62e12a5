// RUN: rm -rf %t && sparcast-aot %s -o %t --sm=sm_80 --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/transposed_kernels.ptx
// RUN: FileCheck %s --check-prefix=PORTABLE < %t/f32_operands_kernels.ptx
// RUN: rm -rf %t90 && sparcast-aot %s -o %t90 --report 2>&1 | FileCheck %s --check-prefix=REMARK

// sm_80 gets the multistage kernel (cp.async, mma.sync) for 16-bit GEMMs:
// K = 13 is padded to 16 first, and N = 9 to 16 with the result sliced
// back (16-byte rows for cp.async); the kernel reads memory directly, so
// the padding is materialized by copy kernels. f32 operands take the
// portable kernel (one thread an output). On sm_90a the GEMM is the TMA +
// wgmma kernel.
// CHECK: padded K 13 -> 16 (16-byte rows) on both operands
// CHECK: padded N 9 -> 16 (16-byte rows), the result sliced back
// CHECK: kernel transposed_copy0: copy arg1 -> ws0 (?x16x16, zero outside the source box)
// CHECK: kernel transposed_copy1: copy arg0 -> ws1 (?x20x16, zero outside the source box)
// CHECK: kernel transposed_gemm2: 20x16x16 f16, multistage (sm_80/86/89): 128x128 tiles of 4 warps, 3-stage cp.async ring (k-tiles of 32), ldmatrix + mma.sync m16n8k16 (fp32 accumulation), B K-major
// CHECK: kernel transposed_copy3: copy ws2 -> result0 (?x20x9, zero outside the source box)
// CHECK: kernel f32_operands_gemm2: 17x11x12 f32, portable path (one thread per output, fp32 accumulation)
// PTX: .target sm_80
// PTX-NOT: wgmma
// PTX: cp.async.cg.shared.global
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PORTABLE: .target sm_80
// PORTABLE-NOT: mma.sync
// PORTABLE: ld.global
// REMARK-NOT: portable path
// REMARK: kernel transposed_gemm2: 20x16x16 f16
// REMARK-NOT: multistage

func.func @transposed(%a: tensor<?x20x13xf16>, %b: tensor<?x9x13xf16>) -> tensor<?x20x9xf16> {
  %c = sc.batch_matmul %a, %b {transpose_rhs} : tensor<?x20x13xf16>, tensor<?x9x13xf16> -> tensor<?x20x9xf16>
  return %c : tensor<?x20x9xf16>
}

func.func @f32_operands(%a: tensor<?x17x9xf32>, %b: tensor<9x11xf32>) -> tensor<?x17x11xf32> {
  %c = sc.batch_matmul %a, %b : tensor<?x17x9xf32>, tensor<9x11xf32> -> tensor<?x17x11xf32>
  return %c : tensor<?x17x11xf32>
}
