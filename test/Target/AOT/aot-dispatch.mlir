// RUN: rm -rf %t && sparcast-aot %S/Inputs/dispatch-ge.mlir -o %t --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: not sparcast-aot %S/Inputs/dispatch-unsupported.mlir -o %t/bad 2>&1 | FileCheck %s --check-prefix=BAD

// A dispatch on the call's dims (an scf.if over tensor.dim, constants,
// products and a >= or < comparison): each branch's kernels are launched
// under its condition, and both write the entry's one result.
// CHECK: kernel ge_gemm0: {{.*}} cooperative: {{.*}} (launched when B >= 16)
// CHECK: kernel ge_gemm1: {{.*}} ping-pong: {{.*}} (launched when B < 16)
// MANIFEST: "kernel": "ge_gemm0",
// MANIFEST: "tensor": "result0"
// MANIFEST: "when": {
// MANIFEST-NEXT: "cmp": ">=",
// MANIFEST-NEXT: "lhs": "B",
// MANIFEST-NEXT: "rhs": 16
// MANIFEST: "kernel": "ge_gemm1",
// MANIFEST: "tensor": "result0"
// MANIFEST: "when": {
// MANIFEST-NEXT: "cmp": "<",
// MANIFEST: "results": [
// MANIFEST: "name": "result0",
// MANIFEST-NOT: "name": "result1"
// BAD: dispatch-unsupported.mlir:7:10: error: sparcast-aot: only dims compared by >= or < are supported
