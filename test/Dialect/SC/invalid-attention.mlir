// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

func.func @rank(%q: tensor<2x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected query of rank 4, got 3}}
  %0 = sc.attention %q, %k, %v : tensor<2x8x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16> -> tensor<2x1x8x16xf16>
  return
}

// -----

func.func @element_types(%q: tensor<2x1x8x16xf16>, %k: tensor<2x1x8x16xbf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected query, key and value of one element type, got 'f16', 'bf16', 'f16'}}
  %0 = sc.attention %q, %k, %v : tensor<2x1x8x16xf16>, tensor<2x1x8x16xbf16>, tensor<2x1x8x16xf16> -> tensor<2x1x8x16xf16>
  return
}

// -----

func.func @dynamic_head_dim(%q: tensor<2x1x8x?xf16>, %k: tensor<2x1x8x?xf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected static head dimensions}}
  %0 = sc.attention %q, %k, %v : tensor<2x1x8x?xf16>, tensor<2x1x8x?xf16>, tensor<2x1x8x16xf16> -> tensor<2x1x8x16xf16>
  return
}

// -----

func.func @heads(%q: tensor<2x2x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected key heads to be 2, got 1}}
  %0 = sc.attention %q, %k, %v : tensor<2x2x8x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16> -> tensor<2x2x8x16xf16>
  return
}

// -----

func.func @head_dim(%q: tensor<2x1x8x16xf16>, %k: tensor<2x1x8x32xf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected key head dim to be 16, got 32}}
  %0 = sc.attention %q, %k, %v : tensor<2x1x8x16xf16>, tensor<2x1x8x32xf16>, tensor<2x1x8x16xf16> -> tensor<2x1x8x16xf16>
  return
}

// -----

func.func @value_length(%q: tensor<2x1x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<2x1x9x16xf16>) {
  // expected-error @+1 {{expected value length to be 8, got 9}}
  %0 = sc.attention %q, %k, %v : tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x9x16xf16> -> tensor<2x1x8x16xf16>
  return
}

// -----

func.func @batch_without_index(%q: tensor<4x1x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected key batch size to be 4, got 2}}
  %0 = sc.attention %q, %k, %v : tensor<4x1x8x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16> -> tensor<4x1x8x16xf16>
  return
}

// -----

func.func @index_size(%q: tensor<4x1x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<2x1x8x16xf16>, %i: tensor<3xi32>) {
  // expected-error @+1 {{expected index size to be 4, got 3}}
  %0 = sc.attention %q, %k, %v index %i : tensor<4x1x8x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16>, tensor<3xi32> -> tensor<4x1x8x16xf16>
  return
}

// -----

func.func @result_shape(%q: tensor<2x1x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<2x1x8x32xf16>) {
  // expected-error @+1 {{expected result head dim to be 32, got 16}}
  %0 = sc.attention %q, %k, %v : tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x8x32xf16> -> tensor<2x1x8x16xf16>
  return
}

// -----

func.func @scale(%q: tensor<2x1x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected a positive finite scale, got -1}}
  %0 = sc.attention %q, %k, %v {scale = -1.0 : f32} : tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16> -> tensor<2x1x8x16xf16>
  return
}

// -----

func.func @bsr_block_count(%q: tensor<1x1x128x16xf16>, %k: tensor<1x1x128x16xf16>, %v: tensor<1x1x128x16xf16>) {
  // expected-error @+1 {{mask has 3 query blocks, the queries have 2}}
  %0 = sc.attention %q, %k, %v mask(#sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0, 1, 2, 3], indices = [0, 1, 1]>) : tensor<1x1x128x16xf16>, tensor<1x1x128x16xf16>, tensor<1x1x128x16xf16> -> tensor<1x1x128x16xf16>
  return
}

// -----

func.func @bsr_dynamic(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %v: tensor<1x1x?x16xf16>) {
  // expected-error @+1 {{a block_sparse mask needs static sequence lengths}}
  %0 = sc.attention %q, %k, %v mask(#sc.block_sparse<block_size = 64, key_blocks = 1, offsets = [0, 1], indices = [0]>) : tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16> -> tensor<1x1x?x16xf16>
  return
}

// -----

func.func @log_linear_empty_row(%q: tensor<1x1x256x16xf16>, %k: tensor<1x1x64x16xf16>, %v: tensor<1x1x64x16xf16>) {
  // Query block 1 is at distance 1 from the only key block: with no anchors
  // and no local window it keeps nothing.
  // expected-error @+1 {{log-linear mask leaves query block 1 with no key block}}
  %0 = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, local_width = 0, anchors = []>) : tensor<1x1x256x16xf16>, tensor<1x1x64x16xf16>, tensor<1x1x64x16xf16> -> tensor<1x1x256x16xf16>
  return
}

// -----

func.func @integer_query(%q: tensor<2x1x8x16xi8>, %k: tensor<2x1x8x16xi8>, %v: tensor<2x1x8x16xi8>) {
  // expected-error @+1 {{expected f16, bf16 or f32 query, got 'i8'}}
  %0 = sc.attention %q, %k, %v : tensor<2x1x8x16xi8>, tensor<2x1x8x16xi8>, tensor<2x1x8x16xi8> -> tensor<2x1x8x16xf32>
  return
}

// -----

func.func @integer_result(%q: tensor<2x1x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected f16, bf16 or f32 result, got 'i32'}}
  %0 = sc.attention %q, %k, %v : tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16> -> tensor<2x1x8x16xi32>
  return
}

// -----

func.func @value_heads(%q: tensor<2x2x8x16xf16>, %k: tensor<2x2x8x16xf16>, %v: tensor<2x1x8x16xf16>) {
  // expected-error @+1 {{expected value heads to be 2, got 1}}
  %0 = sc.attention %q, %k, %v : tensor<2x2x8x16xf16>, tensor<2x2x8x16xf16>, tensor<2x1x8x16xf16> -> tensor<2x2x8x16xf16>
  return
}

// -----

func.func @value_batch(%q: tensor<4x1x8x16xf16>, %k: tensor<2x1x8x16xf16>, %v: tensor<3x1x8x16xf16>, %i: tensor<4xi32>) {
  // expected-error @+1 {{expected value batch size to be 2, got 3}}
  %0 = sc.attention %q, %k, %v index %i : tensor<4x1x8x16xf16>, tensor<2x1x8x16xf16>, tensor<3x1x8x16xf16>, tensor<4xi32> -> tensor<4x1x8x16xf16>
  return
}

// -----

func.func @bsr_key_blocks(%q: tensor<1x1x64x16xf16>, %k: tensor<1x1x192x16xf16>, %v: tensor<1x1x192x16xf16>) {
  // expected-error @+1 {{mask has 2 key blocks, the keys have 3}}
  %0 = sc.attention %q, %k, %v mask(#sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0, 1], indices = [0]>) : tensor<1x1x64x16xf16>, tensor<1x1x192x16xf16>, tensor<1x1x192x16xf16> -> tensor<1x1x64x16xf16>
  return
}

// -----

func.func @log_linear_no_keys(%q: tensor<1x1x64x16xf16>, %k: tensor<1x1x0x16xf16>, %v: tensor<1x1x0x16xf16>) {
  // expected-error @+1 {{log-linear mask needs at least one key block}}
  %0 = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64>) : tensor<1x1x64x16xf16>, tensor<1x1x0x16xf16>, tensor<1x1x0x16xf16> -> tensor<1x1x64x16xf16>
  return
}
