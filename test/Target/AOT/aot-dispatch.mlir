// RUN: rm -rf %t && sparcast-aot %S/Inputs/dispatch-ge.mlir -o %t --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: not sparcast-aot %S/Inputs/dispatch-unsupported.mlir -o %t/bad 2>&1 | FileCheck %s --check-prefix=BAD
// The LCE's dispatch thresholds: by default 64 candidates per user and
// 2048 candidates, both must hold (a conjunction: the other kernel runs
// unless both hold); 8 per user at any B; or no dispatch (0).
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/lce --report | FileCheck %s --check-prefix=BOTH
// RUN: FileCheck %s --check-prefix=BOTH-MANIFEST < %t/lce/manifest.json
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/lce8 --dispatch-min-candidates-per-user=8 --dispatch-min-batch=0 --report | FileCheck %s --check-prefix=EIGHT
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/lce0 --dispatch-min-candidates-per-user=0 --report | FileCheck %s --check-prefix=NONE
// RUN: not sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/lcem --dispatch-min-candidates-per-user=-2 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// A dispatch on the call's dims (an scf.if over tensor.dim, constants,
// products and a >= or < comparison): each branch's kernels are launched
// under its condition, and both write the entry's one result. The
// branches are the alternatives of one tune group (choices 0 and 1), which
// the runtime may choose by measuring (scSetTuning).
// CHECK: kernel ge_gemm0: {{.*}} cooperative: {{.*}} (launched when B >= 16)
// CHECK: kernel ge_gemm1: {{.*}} ping-pong: {{.*}} (launched when B < 16)
// MANIFEST: "kernel": "ge_gemm0",
// MANIFEST: "tensor": "result0"
// MANIFEST: "tune": {
// MANIFEST-NEXT: "choice": 0,
// MANIFEST-NEXT: "group": 0
// MANIFEST: "when": {
// MANIFEST-NEXT: "cmp": ">=",
// MANIFEST-NEXT: "lhs": "B",
// MANIFEST-NEXT: "rhs": 16
// MANIFEST: "kernel": "ge_gemm1",
// MANIFEST: "tensor": "result0"
// MANIFEST: "tune": {
// MANIFEST-NEXT: "choice": 1,
// MANIFEST-NEXT: "group": 0
// MANIFEST: "when": {
// MANIFEST-NEXT: "cmp": "<",
// MANIFEST: "results": [
// MANIFEST: "name": "result0",
// MANIFEST-NOT: "name": "result1"
// BAD: dispatch-unsupported.mlir:7:10: error: sparcast-aot: only dims compared by >= or < are supported
// BOTH: GEMM schedule dispatched at run time: transposed when B >= 64 x the users (the request tiles then stay in L2) and B >= 2048, else pingpong
// BOTH: kernel lce_gemm3: {{.*}} transposed ping-pong: {{.*}} (launched when B >= U*64 and B >= 2048)
// BOTH: kernel lce_gemm4: {{.*}} ping-pong: {{.*}} (launched when not (B >= U*64 and B >= 2048))
// BOTH-MANIFEST: "kernel": "lce_gemm3",
// BOTH-MANIFEST: "when": [
// BOTH-MANIFEST-NEXT: {
// BOTH-MANIFEST-NEXT: "cmp": ">=",
// BOTH-MANIFEST-NEXT: "lhs": "B",
// BOTH-MANIFEST-NEXT: "rhs": "U*64"
// BOTH-MANIFEST: "cmp": ">=",
// BOTH-MANIFEST-NEXT: "lhs": "B",
// BOTH-MANIFEST-NEXT: "rhs": 2048
// BOTH-MANIFEST: "kernel": "lce_gemm4",
// BOTH-MANIFEST: "unless": [
// BOTH-MANIFEST-NEXT: {
// BOTH-MANIFEST-NEXT: "cmp": ">=",
// BOTH-MANIFEST-NEXT: "lhs": "B",
// BOTH-MANIFEST-NEXT: "rhs": "U*64"
// EIGHT: GEMM schedule dispatched at run time: transposed when B >= 8 x the users
// EIGHT-NOT: and B >=
// EIGHT: kernel lce_gemm3: {{.*}} transposed ping-pong: {{.*}} (launched when B >= U*8)
// EIGHT: kernel lce_gemm4: {{.*}} ping-pong: {{.*}} (launched when B < U*8)
// NONE-NOT: dispatched
// NONE: kernel lce_gemm3: {{.*}}433x256x872 f16, warp-specialized persistent, ping-pong:
// NONE-NOT: launched when
// NEGATIVE: error: min-candidates-per-user must be at least 1 and min-batch at least 0, got -2 and 2048
