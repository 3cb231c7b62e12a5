// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %t --report | FileCheck %s
// RUN: rm -rf %ts && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %ts --gemm-schedule=simple --report 2>&1 | FileCheck %s --check-prefix=SIMPLE
// RUN: rm -rf %t80 && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %t80 --sm=sm_80 --report | FileCheck %s --check-prefix=SM80

// ptxas -v accepts every generated kernel with no spills, on both paths,
// and the artifact ships a cubin next to the PTX.
// CHECK-COUNT-11: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: spill stores
// The simple schedule takes every GEMM of the suite, the three with the
// rhs transposed (K-major B) too, with TMA and wgmma.
// SIMPLE-NOT: portable
// SIMPLE: kernel transposed_bf16_gemm0: 200x264x136 bf16, tile 128x256x64, 2 warpgroup(s)
// SIMPLE: kernel transposed_shared_f16_gemm0: 70x48x40 f16, tile 128x128x64, 1 warpgroup(s)
// SIMPLE: kernel linear_f16_gemm0: 433x256x872 f16, tile 128x256x64, 2 warpgroup(s)
// SIMPLE-COUNT-11: 0 bytes spill stores, 0 bytes spill loads
// SIMPLE-NOT: spill stores
// SM80-COUNT-11: portable path
// SM80: Compiling entry function 'shared_w_f16_gemm0' for 'sm_80'
// SM80-COUNT-11: 0 bytes spill stores, 0 bytes spill loads
// RUN: FileCheck %s --check-prefix=CUBIN < %t/manifest.json
// CUBIN: "chip": "sm_90a",
// CUBIN: "cubin": "bmm_f16_kernels.sm_90a.cubin",
