// RUN: sparcast-opt %s -split-input-file -sc-infer-lineage="remarks=true" -verify-diagnostics | FileCheck %s

// The LCE graph: the broadcast is gathered, its concat with candidate
// features and the product are candidate-batched; W is shared.
// CHECK-LABEL: func.func @lce
// CHECK: sc.gather_rows {{.*}} {sc.lineage = #sc.lineage<gathered>}
// CHECK: tensor.concat {{.*}} {sc.lineage = #sc.lineage<candidate>}
// CHECK: sc.batch_matmul {{.*}} {sc.lineage = #sc.lineage<candidate>}
func.func @lce(%w: tensor<4x8xf16> {sc.lineage = #sc.lineage<shared>},
               %u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
               %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>},
               %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf16> {
  // expected-remark @+1 {{lineage: gathered}}
  %g = sc.gather_rows %u[%i] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  // expected-remark @+1 {{lineage: candidate}}
  %e = tensor.concat dim(1) %g, %c : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  // expected-remark @+1 {{lineage: candidate}}
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf16>
  return %o : tensor<?x4x6xf16>
}

// -----

// Request-only computations stay request-batched; element-wise ops join
// their operands (shared weights do not change the batch).
// CHECK-LABEL: func.func @request_only
// CHECK: sc.batch_matmul {{.*}} {sc.lineage = #sc.lineage<request>}
// CHECK: linalg.add {sc.lineage = #sc.lineage<request>}
func.func @request_only(%w: tensor<4x5xf32>, %u: tensor<?x5x6xf32> {sc.lineage = #sc.lineage<request>},
                        %bias: tensor<?x4x6xf32> {sc.lineage = #sc.lineage<request>}) -> tensor<?x4x6xf32> {
  // expected-remark @+1 {{lineage: request}}
  %p = sc.batch_matmul %w, %u : tensor<4x5xf32>, tensor<?x5x6xf32> -> tensor<?x4x6xf32>
  // expected-remark @+1 {{lineage: request}}
  %s = linalg.add ins(%p, %bias : tensor<?x4x6xf32>, tensor<?x4x6xf32>) outs(%p : tensor<?x4x6xf32>) -> tensor<?x4x6xf32>
  return %s : tensor<?x4x6xf32>
}

// -----

// Target attention reads request keys/values through the index: the
// output follows the candidate queries.
// CHECK-LABEL: func.func @target_attention
// CHECK: sc.attention {{.*}} {sc.lineage = #sc.lineage<candidate>}
func.func @target_attention(%q: tensor<?x1x4x16xf16> {sc.lineage = #sc.lineage<candidate>},
                            %k: tensor<?x1x8x16xf16> {sc.lineage = #sc.lineage<request>},
                            %v: tensor<?x1x8x16xf16> {sc.lineage = #sc.lineage<request>},
                            %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x1x4x16xf16> {
  // expected-remark @+1 {{lineage: candidate}}
  %o = sc.attention %q, %k, %v index %i : tensor<?x1x4x16xf16>, tensor<?x1x8x16xf16>, tensor<?x1x8x16xf16>, tensor<?xi32> -> tensor<?x1x4x16xf16>
  return %o : tensor<?x1x4x16xf16>
}

// -----

// The classic bug: concatenating user features with candidate features
// without broadcasting them.
func.func @missing_broadcast(%u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                             %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x8x6xf16> {
  // expected-error @+1 {{mixes a request-batched value (operand #0) with a candidate-batched value (operand #1) along the batch dim; broadcast the request value with sc.gather_rows first}}
  %e = tensor.concat dim(1) %u, %c : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  return %e : tensor<?x8x6xf16>
}

// -----

func.func @gather_candidates(%c: tensor<?x3xf16> {sc.lineage = #sc.lineage<candidate>},
                             %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x3xf16> {
  // expected-error @+1 {{gathers a candidate-batched tensor through the candidate->request index; its source must be request-batched}}
  %g = sc.gather_rows %c[%i] : tensor<?x3xf16>, tensor<?xi32> -> tensor<?x3xf16>
  return %g : tensor<?x3xf16>
}

// -----

func.func @attention_candidate_kv(%q: tensor<?x1x4x16xf16> {sc.lineage = #sc.lineage<candidate>},
                                  %k: tensor<?x1x8x16xf16> {sc.lineage = #sc.lineage<candidate>},
                                  %v: tensor<?x1x8x16xf16> {sc.lineage = #sc.lineage<request>},
                                  %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x1x4x16xf16> {
  // expected-error @+1 {{reads candidate-batched keys/values through the index; they must be request-batched}}
  %o = sc.attention %q, %k, %v index %i : tensor<?x1x4x16xf16>, tensor<?x1x8x16xf16>, tensor<?x1x8x16xf16>, tensor<?xi32> -> tensor<?x1x4x16xf16>
  return %o : tensor<?x1x4x16xf16>
}

// -----

func.func @mixed_add(%u: tensor<?x4xf32> {sc.lineage = #sc.lineage<request>},
                     %g: tensor<?x4xf32> {sc.lineage = #sc.lineage<gathered>}) -> tensor<?x4xf32> {
  // expected-error @+1 {{mixes a request-batched value (operand #0) with a gathered (candidate-batched) value (operand #1)}}
  %s = arith.addf %u, %g : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// -----

// Returning a request-batched and a candidate-batched value is not mixing
// them: each result keeps its lineage.
// CHECK-LABEL: func.func @returns_both
// CHECK: sc.lineage = #sc.lineage<request>
// CHECK: sc.lineage = #sc.lineage<candidate>
func.func @returns_both(%u: tensor<?x4xf32> {sc.lineage = #sc.lineage<request>},
                        %c: tensor<?x4xf32> {sc.lineage = #sc.lineage<candidate>})
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  // expected-remark @+1 {{lineage: request}}
  %a = arith.negf %u : tensor<?x4xf32>
  // expected-remark @+1 {{lineage: candidate}}
  %b = arith.negf %c : tensor<?x4xf32>
  return %a, %b : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// Lineage that contradicts the operand's shape: a batched operand marked
// shared (one copy for every row).
func.func @shared_batched_operand(%x: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<shared>},
                                  %w: tensor<128x64xf16> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x64x64xf16> {
  // expected-error @+1 {{multiplies operand #0 along a dynamic batch dim, but its lineage is shared (one copy for every row): give it request or candidate lineage}}
  %y = sc.batch_matmul %x, %w : tensor<?x64x128xf16>, tensor<128x64xf16> -> tensor<?x64x64xf16>
  return %y : tensor<?x64x64xf16>
}

// -----

// ... and a weight (the rank-2 operand) marked candidate.
func.func @candidate_weight(%x: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
                            %w: tensor<128x64xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x64x64xf16> {
  // expected-error @+1 {{multiplies operand #1, a candidate-batched tensor, as its unbatched (rank-2) operand: a weight shared by every row must be shared}}
  %y = sc.batch_matmul %x, %w : tensor<?x64x128xf16>, tensor<128x64xf16> -> tensor<?x64x64xf16>
  return %y : tensor<?x64x64xf16>
}

// -----

// Request on both operands is a per-request product (U rows each), not a
// contradiction: the result is request-batched.
// CHECK-LABEL: func.func @request_both
func.func @request_both(%x: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<request>},
                        %y: tensor<?x128x64xf16> {sc.lineage = #sc.lineage<request>}) -> tensor<?x64x64xf16> {
  // expected-remark @+2 {{request}}
  // CHECK: sc.batch_matmul {{.*}}sc.lineage = #sc.lineage<request>
  %z = sc.batch_matmul %x, %y : tensor<?x64x128xf16>, tensor<?x128x64xf16> -> tensor<?x64x64xf16>
  return %z : tensor<?x64x64xf16>
}
