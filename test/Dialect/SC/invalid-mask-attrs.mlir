// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{block_size must be a power of two in [16, 1024], got 100}}
module attributes {test.m = #sc.log_linear<block_size = 100>} {}

// -----

// expected-error @+1 {{local_width must lie in [0, 2^24] blocks, got -1}}
module attributes {test.m = #sc.log_linear<block_size = 64, local_width = -1>} {}

// -----

// A width that would have the pattern loop for ever.
// expected-error @+1 {{local_width must lie in [0, 2^24] blocks, got 9223372036854775807}}
module attributes {test.m = #sc.log_linear<block_size = 64, local_width = 9223372036854775807>} {}

// -----

// expected-error @+1 {{log_linear parameter 'block_size' given twice}}
module attributes {test.m = #sc.log_linear<block_size = 64, block_size = 128>} {}

// -----

// expected-error @+1 {{anchor 'first' listed twice}}
module attributes {test.m = #sc.log_linear<block_size = 64, anchors = [first, first]>} {}

// -----

// expected-error @+1 {{unknown anchor 'center', expected first, middle or last}}
module attributes {test.m = #sc.log_linear<block_size = 64, anchors = [center]>} {}

// -----

// expected-error @+1 {{unknown log_linear parameter 'stride'}}
module attributes {test.m = #sc.log_linear<block_size = 64, stride = 2>} {}

// -----

// expected-error @+1 {{log_linear needs a block_size}}
module attributes {test.m = #sc.log_linear<local_width = 2>} {}

// -----

// expected-error @+1 {{key_blocks must lie in [1, 2^24], got 0}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 0, offsets = [0, 1], indices = [0]>} {}

// -----

// expected-error @+1 {{offsets must have at least 2 entries (one query block), got 1}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0], indices = [0]>} {}

// -----

// expected-error @+1 {{offsets must start at 0, got 1}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [1, 2], indices = [0, 1]>} {}

// -----

// expected-error @+1 {{last offset must equal the number of indices (2), got 1}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0, 1], indices = [0, 1]>} {}

// -----

// expected-error @+1 {{offsets must be non-decreasing, got 2 then 1}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 4, offsets = [0, 2, 1, 3], indices = [0, 1, 2]>} {}

// -----

// expected-error @+1 {{query block 1 keeps no key block}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0, 1, 1], indices = [0]>} {}

// -----

// expected-error @+1 {{query block 0 keeps key block 2, out of range [0, 2)}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0, 1], indices = [2]>} {}

// -----

// expected-error @+1 {{key blocks of query block 0 must be sorted and distinct, got 1 then 1}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0, 2], indices = [1, 1]>} {}

// -----

// expected-error @+1 {{key_blocks must lie in [1, 2^24], got 9223372036854775807}}
module attributes {test.m = #sc.block_sparse<block_size = 64, key_blocks = 9223372036854775807, offsets = [0, 1], indices = [0]>} {}
