// RUN: rm -rf %t && sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: FileCheck %s --check-prefix=HEADER < %t/lce.h
// RUN: rm -rf %t16 && sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t16 --report --ikbo-request-in-result-type | FileCheck %s --check-prefix=REQ16
// RUN: rm -rf %t80 && sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t80 --sm=sm_80 --report | FileCheck %s --check-prefix=SM80

// sm_80: the multistage kernels' copies zero-fill the features' rows past
// K as TMA does, so the features are read unpadded (only the weight's
// parts are copied).
// SM80: padding of arg1 along K (1178 -> 1184) left to the kernel's zero fill
// SM80: kernel lce_gemm1: 433x256x1184 f16, multistage
// SM80: padding of arg2 along K (866 -> 872) left to the kernel's zero fill
// SM80-NOT: copy arg2
// SM80: kernel lce_gemm3: 433x256x872 f16, multistage

// --ikbo-request-in-result-type: the request GEMM writes f16, and the
// candidate GEMM's epilogue gets its tiles by TMA (not dispatched: the
// transposed kernel does not prefetch an f16 request).
// REQ16: GEMM schedule not dispatched: the operand its epilogue reads through the index is not f32
// REQ16: kernel lce_gemm1: {{.*}} epilogue convert
// REQ16: kernel lce_gemm3: {{.*}} the epilogue's gathered operand {{.*}} is loaded by TMA in 64-row x 128-byte subtiles
// REQ16-NOT: launched when

// The LCE model graph, written the plain way, compiled end to end: the
// report says what each pass decided and which kernels run.
// CHECK: lce.mlir:{{[0-9]+}}: lineage: gathered
// CHECK: lce.mlir:{{[0-9]+}}: decomposed: request GEMM with K = 1178 (1 segment(s)) at request rows, candidate GEMM with K = 866 (1 segment(s)) at candidate rows, joined by a gather-add
// CHECK-DAG: padded K 866 -> 872 (16-byte rows) on both operands
// CHECK-DAG: padded K 1178 -> 1184 (16-byte rows) on both operands
// CHECK: fused an element-wise consumer into the epilogue (1 gathered input(s) read through the index, 0 other input(s))
// CHECK: GEMM schedule not dispatched: the transposed schedule cannot take it: its result is not f16 or bf16
// CHECK: GEMM schedule dispatched at run time: transposed when B >= 64 x the users (the request tiles then stay in L2) and B >= 2048, else pingpong
// CHECK: padding of arg1 along K (1178 -> 1184) left to the kernel's zero fill
// CHECK: kernel lce_copy0: copy arg0 -> ws0 (433x1184, zero outside the source box)
// CHECK: kernel lce_gemm1: {{.*}}433x256x1184 f16, warp-specialized persistent, ping-pong: {{.*}} epilogue convert
// CHECK: padding of arg2 along K (866 -> 872) left to the kernel's zero fill
// CHECK: kernel lce_copy2: copy arg0 -> ws2 (433x872, zero outside the source box)
// The candidate GEMM has two kernels: the transposed tiles when a user has
// at least 4 candidates, else ping-pong's; the runtime launches one.
// CHECK: kernel lce_gemm3: {{.*}}433x256x872 f16, warp-specialized persistent, transposed ping-pong: {{.*}} epilogue fused (region) {{.*}} (launched when B >= U*64 and B >= 2048)
// CHECK: kernel lce_gemm4: {{.*}}433x256x872 f16, warp-specialized persistent, ping-pong: {{.*}} epilogue fused (region) {{.*}} (launched when not (B >= U*64 and B >= 2048))

// The user GEMM writes a U-row workspace tensor that the candidate GEMM's
// epilogue reads through the index.
// MANIFEST: "kernel": "lce_copy0",
// MANIFEST: "kernel": "lce_gemm1",
// MANIFEST: "tensor": "ws0"
// MANIFEST: "dims": [
// MANIFEST-NEXT: 256,
// MANIFEST-NEXT: 1178,
// MANIFEST-NEXT: "U"
// MANIFEST: "tensor": "ws1"
// MANIFEST: "kernel": "lce_copy2",
// MANIFEST-NOT: "when"
// MANIFEST: "kernel": "lce_gemm3",
// MANIFEST: "when": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "cmp": ">=",
// MANIFEST-NEXT: "lhs": "B",
// MANIFEST-NEXT: "rhs": "U*64"
// MANIFEST: "kernel": "lce_gemm4",
// MANIFEST: "tensor": "ws1"
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "memref",
// MANIFEST-NEXT: "tensor": "arg3"
// MANIFEST: "unless": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "cmp": ">=",
// MANIFEST-NEXT: "lhs": "B",
// MANIFEST-NEXT: "rhs": "U*64"
// MANIFEST: "workspace": [
// MANIFEST: "name": "ws1",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "U",
// MANIFEST-NEXT: 433,
// MANIFEST-NEXT: 256

// HEADER: ws1 (workspace): f32[Ux433x256]
// HEADER: static inline scStatus sc_lce(scModule *m, const scTensor args[4], const scTensor results[1], void *stream)
