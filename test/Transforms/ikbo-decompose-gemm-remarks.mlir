// RUN: sparcast-opt %s -split-input-file -sc-ikbo-decompose-gemm=report=1 -verify-diagnostics | FileCheck %s

// With report=1 a GEMM that broadcasts request rows into its K operand
// says what was done, or why the broadcast stays.

// CHECK-LABEL: func.func @decomposed
// CHECK: sc.gather_rows
func.func @decomposed(%w: tensor<4x8xf16> {sc.lineage = #sc.lineage<shared>},
                      %u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                      %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>},
                      %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf16> {
  %g = sc.gather_rows %u[%i] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  %e = tensor.concat dim(1) %g, %c : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  // expected-remark @below {{decomposed: request GEMM with K = 5 (1 segment(s)) at request rows, candidate GEMM with K = 3 (1 segment(s)) at candidate rows, joined by a gather-add}}
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf16>
  return %o : tensor<?x4x6xf16>
}

// -----

// Two users' tables gathered by different indices.
// CHECK-LABEL: func.func @two_indices
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} : tensor<4x10xf16>, tensor<?x10x6xf16>
func.func @two_indices(%w: tensor<4x10xf16>, %u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                       %v: tensor<?x2x6xf16> {sc.lineage = #sc.lineage<request>},
                       %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>},
                       %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>},
                       %j: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf32> {
  %g = sc.gather_rows %u[%i] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  %h = sc.gather_rows %v[%j] : tensor<?x2x6xf16>, tensor<?xi32> -> tensor<?x2x6xf16>
  %e = tensor.concat dim(1) %g, %h, %c : (tensor<?x5x6xf16>, tensor<?x2x6xf16>, tensor<?x3x6xf16>) -> tensor<?x10x6xf16>
  // expected-remark @below {{not decomposed: its request segments are broadcast by different indices}}
  %o = sc.batch_matmul %w, %e : tensor<4x10xf16>, tensor<?x10x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// Only request rows: nothing to keep at candidate rows.
// CHECK-LABEL: func.func @only_requests
func.func @only_requests(%w: tensor<4x8xf16>, %u: tensor<?x8x6xf16> {sc.lineage = #sc.lineage<request>},
                         %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf32> {
  %g = sc.gather_rows %u[%i] : tensor<?x8x6xf16>, tensor<?xi32> -> tensor<?x8x6xf16>
  %e = tensor.concat dim(1) %g : (tensor<?x8x6xf16>) -> tensor<?x8x6xf16>
  // expected-remark @below {{not decomposed: every segment of the K concatenation is a broadcast request: no candidate part}}
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// A per-candidate weight cannot be split per request.
// CHECK-LABEL: func.func @batched_weight
func.func @batched_weight(%w: tensor<?x4x8xf16>, %u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                          %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>},
                          %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf32> {
  %g = sc.gather_rows %u[%i] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  %e = tensor.concat dim(1) %g, %c : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  // expected-remark @below {{not decomposed: the weight is batched (the request GEMM shares one weight across the candidates)}}
  %o = sc.batch_matmul %w, %e : tensor<?x4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// Request rows concatenated with broadcast ones (their batch is the
// users', not the candidates'): the lineage conflict is reported and the
// pass fails.
func.func @request_not_gathered(%w: tensor<4x8xf16>, %u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                                %v: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<request>},
                                %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf32> {
  %g = sc.gather_rows %u[%i] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  // expected-error @below {{mixes a gathered (candidate-batched) value (operand #0) with a request-batched value (operand #1) along the batch dim; broadcast the request value with sc.gather_rows first}}
  %e = tensor.concat dim(1) %g, %v : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// A GEMM with nothing broadcast says nothing.
// CHECK-LABEL: func.func @no_broadcast
func.func @no_broadcast(%w: tensor<4x8xf16>, %a: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<candidate>},
                        %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x4x6xf32> {
  %e = tensor.concat dim(1) %a, %c : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// A segment of unknown size along K: the weight cannot be split.
// CHECK-LABEL: func.func @dynamic_segment
func.func @dynamic_segment(%w: tensor<4x8xf16>, %u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                           %c: tensor<?x?x6xf16> {sc.lineage = #sc.lineage<candidate>},
                           %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf32> {
  %g = sc.gather_rows %u[%i] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  %e = tensor.concat dim(1) %g, %c : (tensor<?x5x6xf16>, tensor<?x?x6xf16>) -> tensor<?x8x6xf16>
  // expected-remark @below {{not decomposed: segment #1 of the K concatenation has a dynamic size}}
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}
