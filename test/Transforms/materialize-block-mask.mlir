// RUN: sparcast-opt %s -split-input-file -sc-materialize-block-mask="report=true" -verify-diagnostics | FileCheck %s

// 6 blocks of 16 (the last one partial: 90 tokens), local width 1, anchors
// first/middle/last (0, 6/2 = 3, 5): block i keeps i-1..i+1, i+-2, i+-4 in
// range, and the anchors. Worked out by hand:
//   0: 0 1 | 2 | 4 | 3 5 -> 0 1 2 3 4 5      3: 2 3 4 | 1 5 | 0      -> 0..5
//   1: 0 1 2 | 3 | 5 | 3 5 -> 0 1 2 3 5      4: 3 4 5 | 2 | 0 | 3     -> 0 2 3 4 5
//   2: 1 2 3 | 0 4 | 0 5  -> 0 1 2 3 4 5      5: 4 5 | 3 | 1 | 0 3    -> 0 1 3 4 5
// CHECK-LABEL: func.func @six_blocks
// CHECK: mask(#sc.block_sparse<block_size = 16, key_blocks = 6, offsets = [0, 6, 11, 17, 23, 28, 33], indices = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 2, 3, 4, 5, 0, 1, 3, 4, 5]>)
func.func @six_blocks(%q: tensor<1x1x90x16xf32>, %k: tensor<1x1x90x16xf32>, %v: tensor<1x1x90x16xf32>) -> tensor<1x1x90x16xf32> {
  // expected-remark @+1 {{materialized 6 query blocks x 6 key blocks: 33 kept blocks (91.7%), tables of 160 bytes}}
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 16>) : tensor<1x1x90x16xf32>, tensor<1x1x90x16xf32>, tensor<1x1x90x16xf32> -> tensor<1x1x90x16xf32>
  return %o : tensor<1x1x90x16xf32>
}

// -----

// The reference size of the log-linear benchmark: N = 16384, blocks of 128
// keep 12.3% of the block pairs; at N = 65536 the tables are 42 KB.
// CHECK-LABEL: func.func @sizes
func.func @sizes(%q: tensor<4x16x16384x128xbf16>, %q2: tensor<1x1x65536x128xbf16>) -> (tensor<4x16x16384x128xbf16>, tensor<1x1x65536x128xbf16>) {
  // expected-remark @+1 {{materialized 128 query blocks x 128 key blocks: 2020 kept blocks (12.3%), tables of 8596 bytes}}
  %o = sc.attention %q, %q, %q mask(#sc.log_linear<block_size = 128>) : tensor<4x16x16384x128xbf16>, tensor<4x16x16384x128xbf16>, tensor<4x16x16384x128xbf16> -> tensor<4x16x16384x128xbf16>
  // expected-remark @+1 {{materialized 512 query blocks x 512 key blocks: 10204 kept blocks (3.9%), tables of 42868 bytes}}
  %p = sc.attention %q2, %q2, %q2 mask(#sc.log_linear<block_size = 128>) : tensor<1x1x65536x128xbf16>, tensor<1x1x65536x128xbf16>, tensor<1x1x65536x128xbf16> -> tensor<1x1x65536x128xbf16>
  return %o, %p : tensor<4x16x16384x128xbf16>, tensor<1x1x65536x128xbf16>
}

// -----

// Dynamic lengths: left to the kernel / runtime.
// CHECK-LABEL: func.func @dynamic
// CHECK: mask(#sc.log_linear<block_size = 64, causal = true>)
func.func @dynamic(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x?x16xf32>, %v: tensor<1x1x?x16xf32>) -> tensor<1x1x?x16xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>
  return %o : tensor<1x1x?x16xf32>
}
