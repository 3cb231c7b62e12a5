// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

func.func @rank0_source(%s: tensor<f32>, %i: tensor<?xi32>) {
  // expected-error @+1 {{expected source with a batch dimension}}
  %0 = sc.gather_rows %s[%i] : tensor<f32>, tensor<?xi32> -> tensor<f32>
  return
}

// -----

func.func @rank_mismatch(%s: tensor<?x8xf32>, %i: tensor<?xi32>) {
  // expected-error @+1 {{expected result of rank 2, got 3}}
  %0 = sc.gather_rows %s[%i] : tensor<?x8xf32>, tensor<?xi32> -> tensor<?x8x1xf32>
  return
}

// -----

func.func @element_mismatch(%s: tensor<?x8xf32>, %i: tensor<?xi32>) {
  // expected-error @+1 {{expected result element type 'f32', got 'f16'}}
  %0 = sc.gather_rows %s[%i] : tensor<?x8xf32>, tensor<?xi32> -> tensor<?x8xf16>
  return
}

// -----

func.func @rows_follow_index(%s: tensor<?x8xf32>, %i: tensor<5xi32>) {
  // expected-error @+1 {{expected result dim 0 to be 5, got 4}}
  %0 = sc.gather_rows %s[%i] : tensor<?x8xf32>, tensor<5xi32> -> tensor<4x8xf32>
  return
}

// -----

func.func @inner_dims(%s: tensor<?x8xf32>, %i: tensor<?xi32>) {
  // expected-error @+1 {{expected result dim 1 to be 8, got 9}}
  %0 = sc.gather_rows %s[%i] : tensor<?x8xf32>, tensor<?xi32> -> tensor<?x9xf32>
  return
}

// -----

func.func @index_type(%s: tensor<?x8xf32>, %i: tensor<?xi64>) {
  // expected-error @+1 {{operand #1 must be 1D tensor of 32-bit signless integer values}}
  %0 = sc.gather_rows %s[%i] : tensor<?x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  return
}
