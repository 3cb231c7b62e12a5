// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %t --report | FileCheck %s
// RUN: rm -rf %tt && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %tt --gemm-schedule=transposed --report 2>&1 | FileCheck %s
// RUN: rm -rf %trows && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %trows --rows-by-threads --report 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: rm -rf %t80 && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %t80 --sm=sm_80 --report | FileCheck %s --check-prefix=SM80
// RUN: rm -rf %t80w && sparcast-aot %sparcast_src_root/bench/gemm_suite.mlir -o %t80w --sm=sm_80 --ampere-gemm-tile-cols=256 --report | FileCheck %s --check-prefix=SM80-WIDE

// ptxas -v accepts every generated kernel with no spills, on both paths
// (and with rows copied and stored by threads: no padding copies), and the
// artifact ships a cubin next to the PTX.
// CHECK-COUNT-27: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: spill stores
// ROWS-COUNT-19: 0 bytes spill stores, 0 bytes spill loads
// ROWS-NOT: spill stores
// SM80-COUNT-17: multistage (sm_80/86/89)
// SM80: Compiling entry function 'shared_w_f16_gemm0' for 'sm_80'
// SM80-COUNT-17: 0 bytes spill stores, 0 bytes spill loads
// SM80-WIDE-COUNT-17: multistage (sm_80/86/89): 128x256 tiles of 8 warps
// SM80-WIDE: Compiling entry function 'shared_w_f16_gemm0' for 'sm_80'
// SM80-WIDE-COUNT-17: 0 bytes spill stores, 0 bytes spill loads
// RUN: FileCheck %s --check-prefix=CUBIN < %t/manifest.json
// CUBIN: "chip": "sm_90a",
// CUBIN: "cubin": "bmm_f16_kernels.sm_90a.cubin",
