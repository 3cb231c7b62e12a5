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
  // expected-error @+2 {{expected ::mlir::sc::GemmSchedule to be one of: cooperative, pingpong, transposed}}
  // expected-error @+1 {{failed to parse Sc_GemmScheduleAttr parameter 'value'}}
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<fast>} : tensor<?x4x8xf16>, tensor<?x8x16xf16> -> tensor<?x4x16xf16>
  return %c : tensor<?x4x16xf16>
}

// -----

func.func @string_schedule(%a: tensor<?x4x8xf16>, %b: tensor<?x8x16xf16>) -> tensor<?x4x16xf16> {
  // expected-error @+1 {{'sc.gemm_schedule' expects a #sc.gemm_schedule attribute, got "pingpong"}}
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = "pingpong"} : tensor<?x4x8xf16>, tensor<?x8x16xf16> -> tensor<?x4x16xf16>
  return %c : tensor<?x4x16xf16>
}

// -----

func.func @config_elsewhere(%a: tensor<?x4x8xf16>, %b: tensor<?x8x16xf16>) -> tensor<?x4x16xf16> {
  // expected-error @+1 {{'sc.attention_config' is a #sc.attention_config on sc.attention}}
  %c = sc.batch_matmul %a, %b {sc.attention_config = #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = false>} : tensor<?x4x8xf16>, tensor<?x8x16xf16> -> tensor<?x4x16xf16>
  return %c : tensor<?x4x16xf16>
}

// -----

// expected-error @+1 {{a chained walk runs one consumer a CTA}}
#chained2 = #sc.attention_config<walk = chained, consumers = 2, key_block = 64, group_candidates = false, p_in_f16 = false>

// -----

// expected-error @+1 {{a pairs walk runs two consumers a CTA (one a candidate)}}
#pairs1 = #sc.attention_config<walk = pairs, consumers = 1, key_block = 128, group_candidates = false, p_in_f16 = false>

// -----

// expected-error @+1 {{consumers must be 1 or 2, got 3}}
#three = #sc.attention_config<walk = grid, consumers = 3, key_block = 128, group_candidates = false, p_in_f16 = false>

// -----

// expected-error @+1 {{key_block must be a power of two in [16, 1024], got 96}}
#odd = #sc.attention_config<walk = grid, consumers = 1, key_block = 96, group_candidates = false, p_in_f16 = false>

// -----

// expected-error @+1 {{group_candidates needs a chained or pairs walk}}
#grouped = #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = true, p_in_f16 = false>

// -----

func.func @schedule_elsewhere(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.gemm_schedule' applies to sc.batch_matmul only}}
  %0 = arith.addf %x, %x {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The transposed schedule shares the lhs between its tiles: a batched lhs
// cannot take it.
func.func @transposed_needs_shared_lhs(%a: tensor<?x4x8xf16>, %b: tensor<?x8x16xf16>) -> tensor<?x4x16xf16> {
  // expected-error @+1 {{the transposed schedule cannot take this GEMM: its lhs is batched (the transposed tile shares it)}}
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<transposed>} : tensor<?x4x8xf16>, tensor<?x8x16xf16> -> tensor<?x4x16xf16>
  return %c : tensor<?x4x16xf16>
}

// -----

func.func @manifest_entry_elsewhere(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.manifest_entry' is a string on a func.func}}
  %0 = arith.addf %x, %x {sc.manifest_entry = "{}"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
