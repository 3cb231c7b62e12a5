// RUN: sparcast-opt %s | sparcast-opt | FileCheck %s

// Layout attributes round-trip; defaults are elided when printed.

// Attributes print sorted by name.
// CHECK: sc.embeddings = #sc.block_csr<block_size = 4096>
// CHECK-SAME: sc.masks = [#sc.log_linear<block_size = 64>, #sc.log_linear<block_size = 128, local_width = 2, anchors = [first, last]>, #sc.log_linear<block_size = 64, anchors = [], causal = true>]
// CHECK-SAME: sc.narrow = #sc.block_csr<block_size = 256, id_bits = 16, offset_bits = 8>
// CHECK-SAME: sc.tiles = #sc.hybrid_tiles<tile = [64, 64], grid = [2, 3], kinds = "dszzsd">
module attributes {
  sc.masks = [#sc.log_linear<block_size = 64>,
              #sc.log_linear<block_size = 128, local_width = 2, anchors = [first, last]>,
              #sc.log_linear<block_size = 64, anchors = [], causal = true>],
  sc.tiles = #sc.hybrid_tiles<tile = [64, 64], grid = [2, 3], kinds = "dszzsd">,
  sc.embeddings = #sc.block_csr<block_size = 4096, id_bits = 32, offset_bits = 16>,
  sc.narrow = #sc.block_csr<block_size = 256, id_bits = 16, offset_bits = 8>
} {
}
