// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{tile must have 2 sizes, got 3}}
module attributes {test.t = #sc.hybrid_tiles<tile = [16, 16, 16], grid = [1, 1], kinds = "d">} {}

// -----

// expected-error @+1 {{grid must have 2 sizes, got 1}}
module attributes {test.t = #sc.hybrid_tiles<tile = [64, 32], grid = [1], kinds = "d">} {}

// -----

// expected-error @+1 {{tiles must be positive multiples of 64 rows and 32 columns up to 2^24, got 32 x 32}}
module attributes {test.t = #sc.hybrid_tiles<tile = [32, 32], grid = [1, 1], kinds = "d">} {}

// -----

// expected-error @+1 {{grid sizes must lie in [1, 2^24], got 0}}
module attributes {test.t = #sc.hybrid_tiles<tile = [64, 32], grid = [0, 1], kinds = "">} {}

// -----

// expected-error @+1 {{expected 4 tile kinds, got 3}}
module attributes {test.t = #sc.hybrid_tiles<tile = [64, 32], grid = [2, 2], kinds = "dsz">} {}

// -----

// expected-error @+1 {{tile 1 has kind 'x', expected 'd' (dense), 's' (2:4) or 'z' (zero)}}
module attributes {test.t = #sc.hybrid_tiles<tile = [64, 32], grid = [1, 2], kinds = "dx">} {}

// -----

// expected-error @+1 {{block_size must be a positive power of two, got 100}}
module attributes {test.e = #sc.block_csr<block_size = 100>} {}

// -----

// expected-error @+1 {{id_bits + offset_bits must be 32 (one word a column id), both at least 1, got 24 + 10}}
module attributes {test.e = #sc.block_csr<block_size = 64, id_bits = 24>} {}

// -----

// expected-error @+1 {{id_bits + offset_bits must be 32 (one word a column id), both at least 1, got 32 + 0}}
module attributes {test.e = #sc.block_csr<block_size = 1, id_bits = 32, offset_bits = 0>} {}

// -----

// expected-error @+1 {{offset_bits = 8 cannot address a block of 4096 columns}}
module attributes {test.e = #sc.block_csr<block_size = 4096, id_bits = 24, offset_bits = 8>} {}

// -----

// A grid whose tile count would overflow int64 (2^32 x 2^32).
// expected-error @+1 {{grid sizes must lie in [1, 2^24], got 4294967296}}
module attributes {test.t = #sc.hybrid_tiles<tile = [64, 64], grid = [4294967296, 4294967296], kinds = "d">} {}
