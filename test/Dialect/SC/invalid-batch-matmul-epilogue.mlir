// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

func.func @arg_count(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>, %bias: tensor<8xf32>) {
  // expected-error @+1 {{expected 5 epilogue block arguments (accumulator, batch, row, column, then one per epilogue operand), got 4}}
  %0 = sc.batch_matmul %a, %b epilogue_ins(%bias : tensor<8xf32>) : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xf32> {
  ^bb0(%acc: f32, %i: index, %j: index, %k: index):
    sc.yield %acc : f32
  }
  return
}

// -----

func.func @accumulator_type(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected the epilogue accumulator to be f32, got 'f16'}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xf16> {
  ^bb0(%acc: f16, %i: index, %j: index, %k: index):
    sc.yield %acc : f16
  }
  return
}

// -----

func.func @index_args(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected epilogue block argument #2 to be index, got 'i32'}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xf32> {
  ^bb0(%acc: f32, %i: index, %j: i32, %k: index):
    sc.yield %acc : f32
  }
  return
}

// -----

func.func @operand_arg_type(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>, %bias: tensor<8xf32>) {
  // expected-error @+1 {{expected epilogue block argument #4 to be 'tensor<8xf32>', got 'tensor<8xf16>'}}
  %0 = sc.batch_matmul %a, %b epilogue_ins(%bias : tensor<8xf32>) : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xf32> {
  ^bb0(%acc: f32, %i: index, %j: index, %k: index, %x: tensor<8xf16>):
    sc.yield %acc : f32
  }
  return
}

// -----

func.func @yield_type(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected the epilogue to yield 'f16', got 'f32'}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xf16> {
  ^bb0(%acc: f32, %i: index, %j: index, %k: index):
    sc.yield %acc : f32
  }
  return
}

// -----

func.func @isolated(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>, %s: f32) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = sc.batch_matmul %a, %b : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xf32> {
  ^bb0(%acc: f32, %i: index, %j: index, %k: index):
    // expected-error @+1 {{using value defined outside the region}}
    %r = arith.mulf %acc, %s : f32
    sc.yield %r : f32
  }
  return
}

// -----

func.func @yield_outside(%x: f32) {
  // expected-error @+1 {{'sc.yield' op expects parent op to be one of 'sc.batch_matmul, sc.sparse_matmul'}}
  sc.yield %x : f32
}

// -----

func.func @sum_rows_not_f32(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected an f32 result with sum_rows, got 'f16'}}
  %0 = sc.batch_matmul %a, %b {sum_rows} : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x1x8xf16> {
  ^bb0(%acc: f32, %i: index, %j: index, %k: index):
    %h = arith.truncf %acc : f32 to f16
    sc.yield %h : f16
  }
  return
}

// -----

func.func @sum_rows_no_region(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected an epilogue region with sum_rows (it rounds each element before the sum)}}
  %0 = sc.batch_matmul %a, %b {sum_rows} : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x1x8xf32>
  return
}

// -----

func.func @sum_rows_two_rows(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{result rows}}
  %0 = sc.batch_matmul %a, %b {sum_rows} : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x2x8xf32> {
  ^bb0(%acc: f32, %i: index, %j: index, %k: index):
    sc.yield %acc : f32
  }
  return
}

// -----

func.func @sum_rows_yield(%a: tensor<2x4xf16>, %b: tensor<?x4x8xf16>) {
  // expected-error @+1 {{expected the epilogue of sum_rows to yield f16, bf16 or f32, got 'i32'}}
  %0 = sc.batch_matmul %a, %b {sum_rows} : tensor<2x4xf16>, tensor<?x4x8xf16> -> tensor<?x1x8xf32> {
  ^bb0(%acc: f32, %i: index, %j: index, %k: index):
    %x = arith.fptosi %acc : f32 to i32
    sc.yield %x : i32
  }
  return
}
