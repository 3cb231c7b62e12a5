// RUN: sparcast-opt %s | sparcast-opt | FileCheck %s

// Layout attributes round-trip; defaults are elided when printed.

// Attributes print sorted by name.
// CHECK: test.embeddings = #sc.block_csr<block_size = 1024>
// CHECK-SAME: test.masks = [#sc.log_linear<block_size = 64>, #sc.log_linear<block_size = 128, local_width = 2, anchors = [first, last]>, #sc.log_linear<block_size = 64, anchors = [], causal = true>]
// CHECK-SAME: test.narrow = #sc.block_csr<block_size = 256, id_bits = 24, offset_bits = 8>
// CHECK-SAME: test.tiles = #sc.hybrid_tiles<tile = [64, 64], grid = [2, 3], kinds = "dszzsd">
module attributes {
  test.masks = [#sc.log_linear<block_size = 64>,
              #sc.log_linear<block_size = 128, local_width = 2, anchors = [first, last]>,
              #sc.log_linear<block_size = 64, anchors = [], causal = true>],
  test.tiles = #sc.hybrid_tiles<tile = [64, 64], grid = [2, 3], kinds = "dszzsd">,
  test.embeddings = #sc.block_csr<block_size = 1024, id_bits = 22, offset_bits = 10>,
  test.narrow = #sc.block_csr<block_size = 256, id_bits = 24, offset_bits = 8>
} {
}
