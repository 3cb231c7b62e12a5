// RUN: rm -rf %t && sparcast-aot %S/Inputs/autotune-bmm.mlir -o %t --autotune --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: not sparcast-aot %s -o %t/bad 2>&1 | FileCheck %s --check-prefix=BAD

// --autotune: each GEMM nothing else chose for is compiled for every
// schedule it can take, one tune group of alternatives; the default's
// kernels (the heuristics' schedule) run until the runtime has measured
// the call's shape bucket, the others only when chosen (fallback false).
// CHECK: GEMM schedules tuned at run time: pingpong (default), cooperative
// CHECK: kernel bmm_gemm{{[0-9]+}}: {{.*}} ping-pong: {{.*}} (tuning alternative 0, the default)
// CHECK: kernel bmm_gemm{{[0-9]+}}: {{.*}} cooperative: {{.*}} (tuning alternative 1)
// MANIFEST: "tune": {
// MANIFEST-NEXT: "choice": 0,
// MANIFEST-NEXT: "group": 0
// MANIFEST-NEXT: }
// MANIFEST: "tune": {
// MANIFEST-NEXT: "choice": 1,
// MANIFEST-NEXT: "fallback": false,
// MANIFEST-NEXT: "group": 0

// A switch that is not a tuning group's (on the batch, not on 0) is
// refused with a located error.
// BAD: aot-autotune.mlir:[[# @LINE + 5]]:8: error: sparcast-aot: only tuning alternatives are supported
func.func @bad(%a: tensor<?x64x64xf16> {sc.lineage = #sc.lineage<candidate>},
               %b: tensor<?x64x64xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x64x64xf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x64x64xf16>
  %r = scf.index_switch %n -> tensor<?x64x64xf16>
  case 1 {
    %t = sc.batch_matmul %a, %b : tensor<?x64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
    scf.yield %t : tensor<?x64x64xf16>
  }
  default {
    %t = sc.batch_matmul %b, %a : tensor<?x64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16>
    scf.yield %t : tensor<?x64x64xf16>
  }
  return %r : tensor<?x64x64xf16>
}
