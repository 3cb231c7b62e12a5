// RUN: sparcast-opt %s -split-input-file -sc-sum-rows-first=report -verify-diagnostics | FileCheck %s

// A summed-rows GEMM of a shared 433-row lhs: the lhs's rows summed in f32
// (a reduction over its rows), split into hi and lo bf16 rows
// (hi = round(s), lo = round(s - hi), row 0 and row 1), the product of
// those two rows summed; the epilogue now yields the f32 accumulator.
// CHECK-LABEL: func.func @plain
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<433x872xbf16>) outs(%{{.*}} : tensor<872xf32>)
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: %[[W2:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<872xf32>) outs(%{{.*}} : tensor<2x872xbf16>)
// CHECK: %[[HI:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[HIF:.*]] = arith.extf %[[HI]] : bf16 to f32
// CHECK: %[[REST:.*]] = arith.subf %{{.*}}, %[[HIF]] : f32
// CHECK: %[[LO:.*]] = arith.truncf %[[REST]] : f32 to bf16
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[ROW]], %{{.*}} : index
// CHECK: arith.select %[[FIRST]], %[[HI]], %[[LO]] : bf16
// CHECK: sc.batch_matmul %[[W2]], %arg1 {sum_rows} : tensor<2x872xbf16>, tensor<?x872x256xbf16> -> tensor<?x1x256xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: sc.yield %[[ACC]] : f32
func.func @plain(%w: tensor<433x872xbf16>, %e: tensor<?x872x256xbf16>) -> tensor<?x1x256xf32> {
  // expected-remark @below {{its lhs's 433 rows summed before the product (one f32 row as hi + lo 'bf16' rows)}}
  %r = sc.batch_matmul %w, %e {sum_rows} : tensor<433x872xbf16>, tensor<?x872x256xbf16> -> tensor<?x1x256xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    %h = arith.truncf %acc : f32 to bf16
    sc.yield %h : bf16
  }
  return %r : tensor<?x1x256xf32>
}

// -----

// IKBO's gather-add: the request GEMM (its f32 result read only here)
// sums its rows too and is rewritten in turn; the candidate GEMM adds the
// request part's row sum at [idx[b], 0, n] on row 0 only.
// CHECK-LABEL: func.func @gather_add
// CHECK: %[[U:.*]] = sc.batch_matmul %{{.*}}, %arg1 {sum_rows} : tensor<2x64xf16>, tensor<?x64x16xf16> -> tensor<?x1x16xf32>
// CHECK: sc.batch_matmul %{{.*}}, %arg2 epilogue_ins(%[[U]], %arg3 : tensor<?x1x16xf32>, tensor<?xi32>) {sum_rows} : tensor<2x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[B:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index, %[[X:.*]]: tensor<?x1x16xf32>, %[[I:.*]]: tensor<?xi32>):
// CHECK: %[[G:.*]] = tensor.extract %[[I]][%[[B]]] : tensor<?xi32>
// CHECK: %[[GI:.*]] = arith.index_cast %[[G]] : i32 to index
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[GI]], %[[Z:.*]], %[[N]]] : tensor<?x1x16xf32>
// CHECK: %[[ROW0:.*]] = arith.cmpi eq, %[[M]], %[[Z]] : index
// CHECK: %[[ADD:.*]] = arith.select %[[ROW0]], %[[V]], %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[ADD]] : f32
// CHECK: sc.yield %[[S]] : f32
func.func @gather_add(%wu: tensor<5x64xf16>, %eu: tensor<?x64x16xf16>, %e: tensor<?x32x16xf16>, %idx: tensor<?xi32>, %w: tensor<5x32xf16>) -> tensor<?x1x16xf32> {
  // expected-remark @below {{its lhs's 5 rows summed before the product}}
  %user = sc.batch_matmul %wu, %eu : tensor<5x64xf16>, tensor<?x64x16xf16> -> tensor<?x5x16xf32>
  // expected-remark @below {{its lhs's 5 rows summed before the product (one f32 row as hi + lo 'f16' rows), the gathered operand's rows summed and added once}}
  %r = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x5x16xf32>, tensor<?xi32>) {sum_rows} : tensor<5x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x5x16xf32>, %ix: tensor<?xi32>):
    %i = tensor.extract %ix[%b] : tensor<?xi32>
    %ii = arith.index_cast %i : i32 to index
    %x = tensor.extract %u[%ii, %m, %n] : tensor<?x5x16xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %r : tensor<?x1x16xf32>
}

// -----

// A gathered operand that is no matmul's own: its rows summed by a
// reduction (then [G, 1, N]).
// CHECK-LABEL: func.func @gathered_argument
// CHECK: %[[XS:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg2 : tensor<?x5x16xf32>) outs(%{{.*}} : tensor<?x16xf32>)
// CHECK: %[[X1:.*]] = tensor.expand_shape %[[XS]] {{\[}}[0], [1, 2]{{\]}}
// CHECK: sc.batch_matmul %{{.*}}, %arg1 epilogue_ins(%[[X1]], %arg3 : tensor<?x1x16xf32>, tensor<?xi32>) {sum_rows}
func.func @gathered_argument(%w: tensor<5x32xf16>, %e: tensor<?x32x16xf16>, %user: tensor<?x5x16xf32>, %idx: tensor<?xi32>) -> tensor<?x1x16xf32> {
  // expected-remark @below {{the gathered operand's rows summed and added once}}
  %r = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x5x16xf32>, tensor<?xi32>) {sum_rows} : tensor<5x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x5x16xf32>, %ix: tensor<?xi32>):
    %i = tensor.extract %ix[%b] : tensor<?xi32>
    %ii = arith.index_cast %i : i32 to index
    %x = tensor.extract %u[%ii, %m, %n] : tensor<?x5x16xf32>
    %s = arith.addf %x, %acc : f32
    sc.yield %s : f32
  }
  return %r : tensor<?x1x16xf32>
}

// -----

// A term that depends on neither the accumulator nor the row (a bias at
// [n]) is added M times, on row 0.
// CHECK-LABEL: func.func @biased
// CHECK: sc.batch_matmul %{{.*}}, %arg1 epilogue_ins(%arg2 : tensor<16xf32>) {sum_rows} : tensor<2x32xf16>
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: index, %[[M:.*]]: index, %[[N:.*]]: index, %[[BS:.*]]: tensor<16xf32>):
// CHECK: %[[V:.*]] = tensor.extract %[[BS]][%[[N]]] : tensor<16xf32>
// CHECK: %[[MV:.*]] = arith.mulf %[[V]], %{{.*}} : f32
// CHECK: %[[ROW0:.*]] = arith.cmpi eq, %[[M]], %{{.*}} : index
// CHECK: %[[T:.*]] = arith.select %[[ROW0]], %[[MV]], %{{.*}} : f32
// CHECK: arith.addf %[[ACC]], %[[T]] : f32
func.func @biased(%w: tensor<5x32xf16>, %e: tensor<?x32x16xf16>, %bias: tensor<16xf32>) -> tensor<?x1x16xf32> {
  // expected-remark @below {{the term added to each row added M times once}}
  %biased = sc.batch_matmul %w, %e epilogue_ins(%bias : tensor<16xf32>) {sum_rows} : tensor<5x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<16xf32>):
    %v = tensor.extract %bs[%n] : tensor<16xf32>
    %s = arith.addf %acc, %v : f32
    sc.yield %s : f32
  }
  return %biased : tensor<?x1x16xf32>
}

// -----

// Left: an epilogue that is not acc (+ an operand at [g, m, n] or a term
// independent of the row) (a ReLU, a term read at the row), rows not
// summed, a batched lhs, an lhs of two rows already.
// CHECK-LABEL: func.func @left
// CHECK-NOT: linalg.generic
// CHECK-NOT: -> tensor<2x
func.func @left(%w: tensor<5x32xf16>, %x: tensor<?x5x32xf16>, %e: tensor<?x32x16xf16>, %rowbias: tensor<5xf32>, %w2: tensor<2x32xf16>) -> (tensor<?x1x16xf32>, tensor<?x1x16xf32>, tensor<?x5x16xf32>, tensor<?x1x16xf32>, tensor<?x1x16xf32>) {
  %relu = sc.batch_matmul %w, %e {sum_rows} : tensor<5x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %acc, %zero : f32
    sc.yield %r : f32
  }
  %byrow = sc.batch_matmul %w, %e epilogue_ins(%rowbias : tensor<5xf32>) {sum_rows} : tensor<5x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<5xf32>):
    %v = tensor.extract %bs[%m] : tensor<5xf32>
    %s = arith.addf %acc, %v : f32
    sc.yield %s : f32
  }
  %unsummed = sc.batch_matmul %w, %e : tensor<5x32xf16>, tensor<?x32x16xf16> -> tensor<?x5x16xf32>
  %batched = sc.batch_matmul %x, %e {sum_rows} : tensor<?x5x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    sc.yield %acc : f32
  }
  %two = sc.batch_matmul %w2, %e {sum_rows} : tensor<2x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index):
    sc.yield %acc : f32
  }
  return %relu, %byrow, %unsummed, %batched, %two : tensor<?x1x16xf32>, tensor<?x1x16xf32>, tensor<?x5x16xf32>, tensor<?x1x16xf32>, tensor<?x1x16xf32>
}

// -----

// Left: the gathered operand read twice (its rows could not be summed for
// one read only).
// CHECK-LABEL: func.func @read_twice
// CHECK-NOT: linalg.generic
func.func @read_twice(%w: tensor<5x32xf16>, %e: tensor<?x32x16xf16>, %user: tensor<?x5x16xf32>, %idx: tensor<?xi32>) -> tensor<?x1x16xf32> {
  %r = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x5x16xf32>, tensor<?xi32>) {sum_rows} : tensor<5x32xf16>, tensor<?x32x16xf16> -> tensor<?x1x16xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x5x16xf32>, %ix: tensor<?xi32>):
    %c0 = arith.constant 0 : index
    %first = tensor.extract %u[%c0, %c0, %c0] : tensor<?x5x16xf32>
    %g = arith.fptosi %first : f32 to i32
    %gi = arith.index_cast %g : i32 to index
    %x = tensor.extract %u[%gi, %m, %n] : tensor<?x5x16xf32>
    %s = arith.addf %x, %acc : f32
    sc.yield %s : f32
  }
  return %r : tensor<?x1x16xf32>
}
