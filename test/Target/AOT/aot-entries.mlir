// RUN: rm -rf %t && sparcast-aot %S/Inputs/entries.mlir -o %t --ws-group=0 --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json

// Several entries in one artifact: a static batch (a constant grid: one
// CTA per pair of ping-pong tiles, 3 tiles), and an entry whose first
// result also feeds its second kernel (grids of B / 2 CTAs).
// CHECK: kernel static_batch_gemm0: 64x72x40 f16, {{.*}} one CTA per pair of tiles
// CHECK: kernel two_results_gemm0: 16x16x8 f16, {{.*}} one CTA per pair of tiles
// CHECK: kernel two_results_gemm1: 16x16x16 f16, {{.*}} one CTA per pair of tiles

// MANIFEST: "grid": [
// MANIFEST-NEXT: 2,
// MANIFEST: "kernel": "static_batch_gemm0",
// MANIFEST: "name": "static_batch",
// MANIFEST: "grid": [
// MANIFEST-NEXT: "B/2",
// MANIFEST: "kernel": "two_results_gemm0",
// MANIFEST: "tensor": "result0"
// MANIFEST: "kernel": "two_results_gemm1",
// MANIFEST: "tensor": "arg2"
// MANIFEST: "tensor": "result0"
// MANIFEST: "tensor": "result1"
// MANIFEST: "name": "two_results",
// MANIFEST: "name": "result0",
// MANIFEST: "name": "result1",
