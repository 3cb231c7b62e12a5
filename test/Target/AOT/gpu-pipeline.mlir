// RUN: sparcast-opt --sc-gpu-pipeline %sparcast_src_root/examples/gemm.mlir | FileCheck %s
// RUN: sparcast-opt --sc-gpu-pipeline="gemm-schedule=pingpong ws-group=0" %sparcast_src_root/examples/gemm.mlir | FileCheck %s --check-prefix=OPTIONS
// RUN: sparcast-opt --sc-gpu-pipeline %sparcast_src_root/examples/gemm.mlir | sparcast-translate --mlir-to-ptx | FileCheck %s --check-prefix=PTX
// RUN: sparcast-opt %s -split-input-file -sc-build-kernels -verify-diagnostics

// sparcast-opt reproduces what sparcast-aot builds: the kernel pipeline,
// then sc-build-kernels puts each public function's kernels in a gpu.module
// next to it and its manifest entry (tensors and launches, the JSON the
// artifact's manifest.json lists) on it; sparcast-translate compiles the
// kernels to the PTX the artifact ships.
// CHECK: func.func @gemm_gather_add(
// CHECK-SAME: sc.manifest_entry = "{{.*}}launches{{.*}}gemm_gather_add_gemm0
// CHECK: gpu.module @gemm_gather_add_kernels
// CHECK-DAG: gpu.func @gemm_gather_add_gemm0(
// CHECK-DAG: gpu.func @gemm_gather_add_gemm1(
// CHECK-DAG: func.func private @gemm_gather_add_gemm0_epilogue(
// The pipeline's options are sparcast-aot's flags.
// OPTIONS: sc.manifest_entry = "{{.*}}B*7/2
// OPTIONS: gpu.func @gemm_gather_add_gemm0(
// OPTIONS-NOT: gpu.func @gemm_gather_add_gemm1(
// PTX: .visible .entry gemm_gather_add_gemm0(
// PTX: .visible .entry gemm_gather_add_gemm1(

// What has no kernel is a located error.
func.func @zero_dim(%x: tensor<?x0x128xf16>) -> tensor<?x0x128xf16> {
  // expected-error @above {{entry argument #0 has a zero-sized dim: 'tensor<?x0x128xf16>'}}
  return %x : tensor<?x0x128xf16>
}
