// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

// sc.assemble_csr, sc.sparse_matmul and sc.top_k refuse what they cannot
// mean: a result without the layout, a D the id bits cannot address,
// mismatched buffers, operands that are not sparse rows, a region of the
// wrong shape, k out of range, a threshold's pairs of a static count.

func.func @no_layout(%p: tensor<?xi32>, %i: tensor<?xi32>, %v: tensor<?xf32>) {
  // expected-error @below {{expected a result with a #sc.block_csr encoding}}
  %q = sc.assemble_csr %p, %i, %v : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x100xf32>
  return
}

// -----

// 2 id bits: at most 4 blocks of 1024 columns.
#csr = #sc.block_csr<block_size = 1024, id_bits = 2, offset_bits = 30>
func.func @too_wide(%p: tensor<?xi32>, %i: tensor<?xi32>, %v: tensor<?xf32>) {
  // expected-error @below {{expected a D that #sc.block_csr<block_size = 1024, id_bits = 2, offset_bits = 30> can address, got 5000}}
  %q = sc.assemble_csr %p, %i, %v : tensor<?xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<?x5000xf32, #csr>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @values_count(%p: tensor<?xi32>, %i: tensor<10xi32>, %v: tensor<9xf32>) {
  // expected-error @below {{expected values dim 0 to be 10, got 9}}
  %q = sc.assemble_csr %p, %i, %v : tensor<?xi32>, tensor<10xi32>, tensor<9xf32> -> tensor<?x100xf32, #csr>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @row_pointers(%p: tensor<4xi32>, %i: tensor<?xi32>, %v: tensor<?xf32>) {
  // expected-error @below {{expected 6 row pointers (rows + 1), got 4}}
  %q = sc.assemble_csr %p, %i, %v : tensor<4xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<5x100xf32, #csr>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @element(%p: tensor<?xi32>, %i: tensor<?xi32>, %v: tensor<?xf16>) {
  // expected-error @below {{expected values of the result's element type 'f32'}}
  %q = sc.assemble_csr %p, %i, %v : tensor<?xi32>, tensor<?xi32>, tensor<?xf16> -> tensor<?x100xf32, #csr>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @dense_operand(%q: tensor<?x100xf32>, %i: tensor<?x100xf32, #csr>) {
  // expected-error @below {{expected the lhs to be rows of a #sc.block_csr matrix}}
  %d = sc.sparse_matmul %q, %i : tensor<?x100xf32>, tensor<?x100xf32, #csr> -> tensor<?x?xf32>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @dims(%q: tensor<?x100xf32, #csr>, %i: tensor<?x200xf32, #csr>) {
  // expected-error @below {{expected rhs D to be 100, got 200}}
  %d = sc.sparse_matmul %q, %i : tensor<?x100xf32, #csr>, tensor<?x200xf32, #csr> -> tensor<?x?xf32>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @result_rows(%q: tensor<7x100xf32, #csr>, %i: tensor<?x100xf32, #csr>) {
  // expected-error @below {{expected result rows to be 7, got 8}}
  %d = sc.sparse_matmul %q, %i : tensor<7x100xf32, #csr>, tensor<?x100xf32, #csr> -> tensor<8x?xf32>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @f16_without_epilogue(%q: tensor<?x100xf32, #csr>, %i: tensor<?x100xf32, #csr>) {
  // expected-error @below {{expected an f32 result without an epilogue, got 'f16'}}
  %d = sc.sparse_matmul %q, %i : tensor<?x100xf32, #csr>, tensor<?x100xf32, #csr> -> tensor<?x?xf16>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @region_arguments(%q: tensor<?x100xf32, #csr>, %i: tensor<?x100xf32, #csr>) {
  // expected-error @below {{expected 3 epilogue block arguments (dot product, row, column, then one per epilogue operand), got 2}}
  %d = sc.sparse_matmul %q, %i : tensor<?x100xf32, #csr>, tensor<?x100xf32, #csr> -> tensor<?x?xf32> {
  ^bb0(%dot: f32, %m: index):
    sc.yield %dot : f32
  }
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @region_yield(%q: tensor<?x100xf32, #csr>, %i: tensor<?x100xf32, #csr>) {
  // expected-error @below {{expected the epilogue to yield 'f16'}}
  %d = sc.sparse_matmul %q, %i : tensor<?x100xf32, #csr>, tensor<?x100xf32, #csr> -> tensor<?x?xf16> {
  ^bb0(%dot: f32, %m: index, %n: index):
    sc.yield %dot : f32
  }
  return
}

// -----

func.func @k_range(%x: tensor<?x?xf32>) {
  // expected-error @below {{expected k in [1, 1024], got 2000}}
  %v, %i = sc.top_k %x {k = 2000 : i64} : tensor<?x?xf32> -> tensor<?x2000xf32>, tensor<?x2000xi32>
  return
}

// -----

func.func @k_columns(%x: tensor<?x?xf32>) {
  // expected-error @below {{expected values columns to be 10, got 5}}
  %v, %i = sc.top_k %x {k = 10 : i64} : tensor<?x?xf32> -> tensor<?x5xf32>, tensor<?x10xi32>
  return
}

// -----

func.func @select_rank(%x: tensor<?xf32>) {
  // expected-error @below {{expected a rank-2 input, got rank 1}}
  %r, %c, %v = sc.select_above %x {threshold = 0.5 : f32} : tensor<?xf32> -> tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
  return
}

// -----

func.func @select_static(%x: tensor<4x4xf32>) {
  // expected-error @below {{expected dynamic-size results (the count of elements above the threshold), got 'tensor<16xi32>'}}
  %r, %c, %v = sc.select_above %x {threshold = 0.5 : f32} : tensor<4x4xf32> -> tensor<16xi32>, tensor<?xi32>, tensor<?xf32>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @by_dimension(%q: tensor<7x100xf32, #csr>, %i: tensor<90x9xf32, #csr>) {
  // expected-error @below {{expected rhs D (dim 0) to be 100, got 90}}
  %d = sc.sparse_matmul %q, %i {transpose_rhs} : tensor<7x100xf32, #csr>, tensor<90x9xf32, #csr> -> tensor<7x9xf32>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @head_columns(%q: tensor<7x100xf32, #csr>, %i: tensor<9x100xf32, #csr>, %qh: tensor<7x16xf32>, %ih: tensor<9x32xf32>) {
  // expected-error @below {{expected rhs head columns (H) to be 16, got 32}}
  %d = sc.sparse_matmul %q, %i head(%qh, %ih : tensor<7x16xf32>, tensor<9x32xf32>) : tensor<7x100xf32, #csr>, tensor<9x100xf32, #csr> -> tensor<7x9xf32>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @head_rows(%q: tensor<7x100xf32, #csr>, %i: tensor<9x100xf32, #csr>, %qh: tensor<8x16xf32>, %ih: tensor<9x16xf32>) {
  // expected-error @below {{expected lhs head rows to be 7, got 8}}
  %d = sc.sparse_matmul %q, %i head(%qh, %ih : tensor<8x16xf32>, tensor<9x16xf32>) : tensor<7x100xf32, #csr>, tensor<9x100xf32, #csr> -> tensor<7x9xf32>
  return
}

// -----

#csr = #sc.block_csr<block_size = 1024>
func.func @head_type(%q: tensor<7x100xf32, #csr>, %i: tensor<9x100xf32, #csr>, %qh: tensor<7x16xf16>, %ih: tensor<9x16xf32>) {
  // expected-error @below {{expected the lhs head to be a dense rank-2 f32 tensor, got 'tensor<7x16xf16>'}}
  %d = sc.sparse_matmul %q, %i head(%qh, %ih : tensor<7x16xf16>, tensor<9x16xf32>) : tensor<7x100xf32, #csr>, tensor<9x100xf32, #csr> -> tensor<7x9xf32>
  return
}

// -----

func.func @capacity(%cos: tensor<4x9xf32>, %theta: tensor<4xf32>) {
  // expected-error @below {{expected values columns (the capacity) to be 8, got 16}}
  %n, %v, %c = sc.select_rows_above %cos, %theta {capacity = 8 : i64} : tensor<4x9xf32>, tensor<4xf32> -> tensor<4xi32>, tensor<4x16xf32>, tensor<4x16xi32>
  return
}

// -----

func.func @thresholds(%cos: tensor<4x9xf32>, %theta: tensor<5xf32>) {
  // expected-error @below {{expected thresholds dim 0 to be 4, got 5}}
  %n, %v, %c = sc.select_rows_above %cos, %theta {capacity = 8 : i64} : tensor<4x9xf32>, tensor<5xf32> -> tensor<4xi32>, tensor<4x8xf32>, tensor<4x8xi32>
  return
}

// -----

func.func @no_capacity(%cos: tensor<4x9xf32>, %theta: tensor<4xf32>) {
  // expected-error @below {{expected a capacity >= 1, got 0}}
  %n, %v, %c = sc.select_rows_above %cos, %theta {capacity = 0 : i64} : tensor<4x9xf32>, tensor<4xf32> -> tensor<4xi32>, tensor<4x0xf32>, tensor<4x0xi32>
  return
}
