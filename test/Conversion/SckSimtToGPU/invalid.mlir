// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

// The CUDA-core sck ops refuse what they cannot mean: a block size the
// offset bits cannot hold, stages outside shared memory or too short for
// a 128-row tile, stages of different depths.

func.func @block(%w: memref<?xi32>, %v: memref<?xf32>, %e: index) {
  // expected-error @below {{expected a power-of-two block size of at most 2^offset_bits (offset_bits in [1, 31]), got 2048 and 10}}
  %c, %x = sck.csr_entry %w, %v[%e] {block_size = 2048 : i64, offset_bits = 10 : i64} : memref<?xi32>, memref<?xf32>
  return
}

// -----

func.func @global_stage(%src: memref<?x?xf32>, %stage: memref<16x132xf32>, %r: index) {
  // expected-error @below {{expected a stage in workgroup memory, got 'memref<16x132xf32>'}}
  sck.stage_rows %src[%r, %r] into %stage {rows = 128 : i64} : memref<?x?xf32>, memref<16x132xf32>
  return
}

// -----

func.func @short_stage(%a: memref<16x64xf32, #gpu.address_space<workgroup>>, %acc: vector<64xf32>) {
  // expected-error @below {{expected a static K x P stage with P >= 128, got 'memref<16x64xf32, #gpu.address_space<workgroup>>'}}
  %r = sck.fma_tile %a, %a, %acc : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>, vector<64xf32>
  return
}

// -----

func.func @depths(%a: memref<16x132xf32, #gpu.address_space<workgroup>>, %b: memref<8x132xf32, #gpu.address_space<workgroup>>, %acc: vector<64xf32>) {
  // expected-error @below {{expected stages of one depth K, got 16 and 8}}
  %r = sck.fma_tile %a, %b, %acc : memref<16x132xf32, #gpu.address_space<workgroup>>, memref<8x132xf32, #gpu.address_space<workgroup>>, vector<64xf32>
  return
}

// -----

func.func @ins_without_scale(%x: f32, %out: memref<?x?xf32>, %r: index, %a: memref<?xf32>) {
  // expected-error @below {{has ins but no scaled_by function}}
  sck.scatter_add %x, %out[%r, %r] ins(%a : memref<?xf32>) : memref<?x?xf32>
  return
}

// -----

func.func @lower_bound_block(%w: memref<?xi32>, %b: index) {
  // expected-error @below {{expected a power-of-two block size of at most 2^offset_bits (offset_bits in [1, 31]), got 1000 and 10}}
  %e = sck.csr_lower_bound %w[%b to %b] at_least %b {block_size = 1000 : i64, offset_bits = 10 : i64} : memref<?xi32>
  return
}

// -----

func.func @table_in_global(%x: f32, %k: memref<1024xi32>, %s: memref<1024xf32>, %key: index) {
  // expected-error @below {{expected a table in workgroup memory, got 'memref<1024xi32>'}}
  %a = sck.table_add %x to %k, %s[%key] : memref<1024xi32>, memref<1024xf32>
  return
}

// -----

func.func @table_length(%k: memref<1000xi32, #gpu.address_space<workgroup>>, %key: index) {
  // expected-error @below {{expected a contiguous table of a static power-of-two length, got 'memref<1000xi32, #gpu.address_space<workgroup>>'}}
  %f = sck.table_find %k[%key] : memref<1000xi32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @table_sums(%x: f32, %k: memref<1024xi32, #gpu.address_space<workgroup>>, %s: memref<512xf32, #gpu.address_space<workgroup>>, %key: index) {
  // expected-error @below {{expected keys and sums of one length, got 1024 and 512}}
  %a = sck.table_add %x to %k, %s[%key] : memref<1024xi32, #gpu.address_space<workgroup>>, memref<512xf32, #gpu.address_space<workgroup>>
  return
}
