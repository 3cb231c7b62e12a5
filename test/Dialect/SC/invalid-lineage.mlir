// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'sc.lineage' expects a #sc.lineage attribute, got 1 : i64}}
func.func @not_lineage(%x: tensor<?x8xf32> {sc.lineage = 1}) {
  return
}

// -----

// expected-error @+1 {{unknown sc argument attribute 'sc.batch'}}
func.func @unknown_attr(%x: tensor<?x8xf32> {sc.batch = #sc.lineage<request>}) {
  return
}

// -----

// expected-error @+1 {{argument #0 with lineage request must be a ranked tensor or memref, got 'f32'}}
func.func @scalar(%x: f32 {sc.lineage = #sc.lineage<request>}) {
  return
}

// -----

// expected-error @+1 {{argument #0 with lineage candidate needs a batch dimension, got a rank-0 tensor}}
func.func @rank0(%x: tensor<f32> {sc.lineage = #sc.lineage<candidate>}) {
  return
}

// -----

// expected-error @+1 {{argument #0 with lineage index must be a 1-D i32 tensor, got 'tensor<?xi64>'}}
func.func @index_type(%x: tensor<?xi64> {sc.lineage = #sc.lineage<index>}) {
  return
}

// -----

// expected-error @+2 {{expected ::mlir::sc::LineageKind to be one of: shared, request, candidate, index}}
// expected-error @+1 {{failed to parse Sc_LineageAttr parameter 'value'}}
func.func @unknown_kind(%x: tensor<?xf32> {sc.lineage = #sc.lineage<user>}) {
  return
}

// -----

// Discardable sc attributes on ops.
func.func @op_attrs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'sc.lineage' expects a #sc.lineage attribute, got "request"}}
  %0 = arith.addf %x, %x {sc.lineage = "request"} : tensor<4xf32>
  return
}

// -----

func.func @kernel_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{'sc.kernel' expects a string, got 3 : i64}}
  %0 = arith.addf %x, %x {sc.kernel = 3} : tensor<4xf32>
  return
}

// -----

func.func @unknown_op_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown sc attribute 'sc.tile'}}
  %0 = arith.addf %x, %x {sc.tile = 3} : tensor<4xf32>
  return
}

// -----

func.func @unknown_schedule(%a: tensor<?x4x8xf16>, %b: tensor<?x8x16xf16>) -> tensor<?x4x16xf16> {
  // expected-error @+1 {{'sc.gemm_schedule' expects "simple", "cooperative", "pingpong" or "transposed", got "fast"}}
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = "fast"} : tensor<?x4x8xf16>, tensor<?x8x16xf16> -> tensor<?x4x16xf16>
  return %c : tensor<?x4x16xf16>
}

// -----

func.func @schedule_elsewhere(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.gemm_schedule' applies to sc.batch_matmul only}}
  %0 = arith.addf %x, %x {sc.gemm_schedule = "simple"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The transposed schedule shares the lhs between its tiles: a batched lhs
// cannot take it.
func.func @transposed_needs_shared_lhs(%a: tensor<?x4x8xf16>, %b: tensor<?x8x16xf16>) -> tensor<?x4x16xf16> {
  // expected-error @+1 {{the transposed schedule cannot take this GEMM: its lhs is batched (the transposed tile shares it)}}
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = "transposed"} : tensor<?x4x8xf16>, tensor<?x8x16xf16> -> tensor<?x4x16xf16>
  return %c : tensor<?x4x16xf16>
}
