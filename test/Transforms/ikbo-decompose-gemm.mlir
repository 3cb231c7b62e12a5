// RUN: sparcast-opt %s -split-input-file -sc-ikbo-decompose-gemm | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-ikbo-decompose-gemm=request-in-result-type=1 | FileCheck %s --check-prefix=REQ16

// request-in-result-type: the request GEMM's result in the op's result
// type (f16 here), widened where the gather-add reads it.
// REQ16-LABEL: func.func @lce
// REQ16: %[[USER:.*]] = sc.batch_matmul %{{.*}}, %{{.*}} : tensor<4x5xf16>, tensor<?x5x6xf16> -> tensor<?x4x6xf16>
// REQ16: %[[CAND:.*]] = sc.batch_matmul %{{.*}}, %{{.*}} : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
// REQ16: %[[G:.*]] = sc.gather_rows %[[USER]][%{{.*}}] : tensor<?x4x6xf16>, tensor<?xi32> -> tensor<?x4x6xf16>
// REQ16: linalg.generic {{.*}} ins(%[[CAND]], %[[G]] : tensor<?x4x6xf32>, tensor<?x4x6xf16>)
// REQ16: arith.extf %{{.*}} : f16 to f32
// REQ16: arith.addf

// LCE: W @ concat_K(gather(U, idx), C). The user GEMM runs on the request
// tensor (U rows), the candidate GEMM on C, then a gather-add.
// CHECK-LABEL: func.func @lce
// CHECK-SAME: (%[[W:[a-z0-9]+]]: tensor<4x8xf16> {{.*}}, %[[U:[a-z0-9]+]]: tensor<?x5x6xf16> {{.*}}, %[[C:[a-z0-9]+]]: tensor<?x3x6xf16> {{.*}}, %[[I:[a-z0-9]+]]: tensor<?xi32> {{.*}})
// CHECK: %[[WU:.*]] = tensor.extract_slice %[[W]][0, 0] [4, 5] [1, 1]
// CHECK: %[[USER:.*]] = sc.batch_matmul %[[WU]], %[[U]] : tensor<4x5xf16>, tensor<?x5x6xf16> -> tensor<?x4x6xf32>
// CHECK: %[[WC:.*]] = tensor.extract_slice %[[W]][0, 5] [4, 3] [1, 1]
// CHECK: %[[CAND:.*]] = sc.batch_matmul %[[WC]], %[[C]] : tensor<4x3xf16>, tensor<?x3x6xf16> -> tensor<?x4x6xf32>
// CHECK: %[[G:.*]] = sc.gather_rows %[[USER]][%[[I]]] : tensor<?x4x6xf32>, tensor<?xi32> -> tensor<?x4x6xf32>
// CHECK: linalg.generic {{.*}} ins(%[[CAND]], %[[G]] : tensor<?x4x6xf32>, tensor<?x4x6xf32>)
// CHECK: arith.addf
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @lce(%w: tensor<4x8xf16> {sc.lineage = #sc.lineage<shared>},
               %u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
               %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>},
               %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf16> {
  %g = sc.gather_rows %u[%i] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  %e = tensor.concat dim(1) %g, %c : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf16>
  return %o : tensor<?x4x6xf16>
}

// -----

// E[b] @ W^T with segments interleaved (cand, user, cand, user): slices of
// W's columns are concatenated per side; the op's epilogue (bias + relu)
// runs after the gather-add.
// CHECK-LABEL: func.func @interleaved_transposed
// CHECK-DAG: tensor.extract_slice %{{.*}}[0, 2] [7, 3] [1, 1] : tensor<7x10xbf16> to tensor<7x3xbf16>
// CHECK-DAG: tensor.extract_slice %{{.*}}[0, 9] [7, 1] [1, 1] : tensor<7x10xbf16> to tensor<7x1xbf16>
// CHECK: %[[WU:.*]] = tensor.concat dim(1) {{.*}} : (tensor<7x3xbf16>, tensor<7x1xbf16>) -> tensor<7x4xbf16>
// CHECK: %[[RU:.*]] = tensor.concat dim(2) {{.*}} : (tensor<?x5x3xbf16>, tensor<?x5x1xbf16>) -> tensor<?x5x4xbf16>
// CHECK: %[[USER:.*]] = sc.batch_matmul %[[RU]], %[[WU]] {transpose_rhs} : tensor<?x5x4xbf16>, tensor<7x4xbf16> -> tensor<?x5x7xf32>
// CHECK: %[[WC:.*]] = tensor.concat dim(1) {{.*}} : (tensor<7x2xbf16>, tensor<7x4xbf16>) -> tensor<7x6xbf16>
// CHECK: %[[RC:.*]] = tensor.concat dim(2) {{.*}} : (tensor<?x5x2xbf16>, tensor<?x5x4xbf16>) -> tensor<?x5x6xbf16>
// CHECK: %[[CAND:.*]] = sc.batch_matmul %[[RC]], %[[WC]] {transpose_rhs} : tensor<?x5x6xbf16>, tensor<7x6xbf16> -> tensor<?x5x7xf32>
// CHECK: sc.gather_rows %[[USER]]
// CHECK: linalg.generic
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK: linalg.index 2 : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<7xf32>
// CHECK: arith.addf %[[SUM]]
// CHECK: arith.maximumf
func.func @interleaved_transposed(%c0: tensor<?x5x2xbf16> {sc.lineage = #sc.lineage<candidate>},
                                  %u0: tensor<?x5x3xbf16> {sc.lineage = #sc.lineage<request>},
                                  %c1: tensor<?x5x4xbf16> {sc.lineage = #sc.lineage<candidate>},
                                  %u1: tensor<?x5x1xbf16> {sc.lineage = #sc.lineage<request>},
                                  %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>},
                                  %w: tensor<7x10xbf16>, %bias: tensor<7xf32>) -> tensor<?x5x7xf32> {
  %g0 = sc.gather_rows %u0[%i] : tensor<?x5x3xbf16>, tensor<?xi32> -> tensor<?x5x3xbf16>
  %g1 = sc.gather_rows %u1[%i] : tensor<?x5x1xbf16>, tensor<?xi32> -> tensor<?x5x1xbf16>
  %e = tensor.concat dim(2) %c0, %g0, %c1, %g1 : (tensor<?x5x2xbf16>, tensor<?x5x3xbf16>, tensor<?x5x4xbf16>, tensor<?x5x1xbf16>) -> tensor<?x5x10xbf16>
  %o = sc.batch_matmul %e, %w epilogue_ins(%bias : tensor<7xf32>) {transpose_rhs} : tensor<?x5x10xbf16>, tensor<7x10xbf16> -> tensor<?x5x7xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<7xf32>):
    %x = tensor.extract %bs[%n] : tensor<7xf32>
    %s = arith.addf %acc, %x : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    sc.yield %r : f32
  }
  return %o : tensor<?x5x7xf32>
}

// -----

// No broadcast request segment, or no candidate segment: no change.
// CHECK-LABEL: func.func @only_candidates
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<?x8x6xf16>
// CHECK-NOT: sc.gather_rows
func.func @only_candidates(%w: tensor<4x8xf16>, %a: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<candidate>},
                           %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x4x6xf32> {
  %e = tensor.concat dim(1) %a, %c : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @only_requests
// CHECK: %[[E:.*]] = tensor.concat
// CHECK: sc.batch_matmul %{{.*}}, %[[E]]
func.func @only_requests(%w: tensor<4x8xf16>, %u: tensor<?x8x6xf16> {sc.lineage = #sc.lineage<request>},
                         %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf32> {
  %g = sc.gather_rows %u[%i] : tensor<?x8x6xf16>, tensor<?xi32> -> tensor<?x8x6xf16>
  %e = tensor.concat dim(1) %g : (tensor<?x8x6xf16>) -> tensor<?x8x6xf16>
  %o = sc.batch_matmul %w, %e : tensor<4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}

// -----

// A per-candidate weight (batched lhs) cannot be split per request.
// CHECK-LABEL: func.func @batched_weight
// CHECK-NOT: tensor.extract_slice
func.func @batched_weight(%w: tensor<?x4x8xf16>, %u: tensor<?x5x6xf16> {sc.lineage = #sc.lineage<request>},
                          %c: tensor<?x3x6xf16> {sc.lineage = #sc.lineage<candidate>},
                          %i: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x6xf32> {
  %g = sc.gather_rows %u[%i] : tensor<?x5x6xf16>, tensor<?xi32> -> tensor<?x5x6xf16>
  %e = tensor.concat dim(1) %g, %c : (tensor<?x5x6xf16>, tensor<?x3x6xf16>) -> tensor<?x8x6xf16>
  %o = sc.batch_matmul %w, %e : tensor<?x4x8xf16>, tensor<?x8x6xf16> -> tensor<?x4x6xf32>
  return %o : tensor<?x4x6xf32>
}
