// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

func.func @bad_rank(%a: tensor<4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected lhs of rank 2 or 3, got 1}}
  %0 = sc.batch_matmul %a, %b : tensor<4xf16>, tensor<?x4x8xf16> -> tensor<?x1x8xf32>
  return
}

// -----

func.func @no_batch(%a: tensor<2x4xf16>, %b: tensor<4x8xf16>) {
  // expected-error @+1 {{expected at least one batched (rank 3) operand}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<4x8xf16> -> tensor<1x2x8xf32>
  return
}

// -----

func.func @mixed_inputs(%a: tensor<2x4xf16>, %b: tensor<?x4x8xbf16>) {
  // expected-error @+1 {{expected lhs and rhs of the same element type, got 'f16' and 'bf16'}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x4x8xbf16> -> tensor<?x2x8xf32>
  return
}

// -----

func.func @integer_inputs(%a: tensor<2x4xi8>, %b: tensor<?x4x8xi8>) {
  // expected-error @+1 {{expected f16, bf16 or f32 operands, got 'i8'}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xi8>, tensor<?x4x8xi8> -> tensor<?x2x8xf32>
  return
}

// -----

func.func @contraction(%a: tensor<2x4xf16>, %b: tensor<?x5x8xf16>) {
  // expected-error @+1 {{expected rhs contraction size to be 4, got 5}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x5x8xf16> -> tensor<?x2x8xf32>
  return
}

// -----

func.func @contraction_transposed(%a: tensor<?x2x4xf16>, %b: tensor<8x5xf16>) {
  // expected-error @+1 {{expected rhs contraction size to be 4, got 5}}
  %0 = sc.batch_matmul %a, %b {transpose_rhs} : tensor<?x2x4xf16>, tensor<8x5xf16> -> tensor<?x2x8xf32>
  return
}

// -----

func.func @batch_mismatch(%a: tensor<3x2x4xf16>, %b: tensor<5x4x8xf16>) {
  // expected-error @+1 {{expected rhs batch size to be 3, got 5}}
  %0 = sc.batch_matmul %a, %b : tensor<3x2x4xf16>, tensor<5x4x8xf16> -> tensor<3x2x8xf32>
  return
}

// -----

func.func @result_rows(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected result rows to be 2, got 3}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x3x8xf32>
  return
}

// -----

func.func @result_columns(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected result columns to be 8, got 7}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x7xf32>
  return
}

// -----

func.func @result_type(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected f16, bf16 or f32 result, got 'i32'}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xi32>
  return
}

// -----

func.func @ins_without_region(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>, %bias: tensor<8xf32>) {
  // expected-error @+1 {{has 1 epilogue operands but no epilogue region}}
  %0 = sc.batch_matmul %a, %b epilogue_ins(%bias : tensor<8xf32>) : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xf32>
  return
}
