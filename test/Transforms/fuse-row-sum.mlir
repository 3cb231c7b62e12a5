// RUN: sparcast-opt %s -sc-fuse-row-sum=report -verify-diagnostics | FileCheck %s

// A sum over a GEMM's rows in f32 from zeros (a mean pooling's sum) folds
// into the GEMM: sum_rows, one f32 row, the epilogue keeping the element's
// rounding (bf16 here, after the gather-add), the [B, M, N] result gone.
// The mean's division stays, on the [B, N] sums.
// CHECK-LABEL: func.func @pooled_lce
// CHECK: %[[S:.*]] = sc.batch_matmul %arg0, %arg1 epilogue_ins(%arg2, %arg3 : tensor<?x6x16xf32>, tensor<?xi32>) {sum_rows} : tensor<6x8xbf16>, tensor<?x8x16xbf16> -> tensor<?x1x16xf32> {
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: sc.yield %{{.*}} : bf16
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1], [2]] : tensor<?x1x16xf32> into tensor<?x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<?x16xf32>)
// CHECK: arith.divf
#x3 = affine_map<(b, m, n) -> (b, m, n)>
#bn = affine_map<(b, m, n) -> (b, n)>
#id = affine_map<(b, n) -> (b, n)>
func.func @pooled_lce(%w: tensor<6x8xbf16>, %e: tensor<?x8x16xbf16>, %user: tensor<?x6x16xf32>, %idx: tensor<?xi32>) -> tensor<?x16xbf16> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %e, %c0 : tensor<?x8x16xbf16>
  // expected-remark @below {{its rows summed where they are computed (a sum over M folded in): the result is not stored}}
  %lce = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x6x16xf32>, tensor<?xi32>) : tensor<6x8xbf16>, tensor<?x8x16xbf16> -> tensor<?x6x16xbf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x6x16xf32>, %ix: tensor<?xi32>):
    %i = tensor.extract %ix[%b] : tensor<?xi32>
    %ii = arith.index_cast %i : i32 to index
    %r = tensor.extract %u[%ii, %m, %n] : tensor<?x6x16xf32>
    %s = arith.addf %acc, %r : f32
    %h = arith.truncf %s : f32 to bf16
    sc.yield %h : bf16
  }
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%nb) : tensor<?x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %sum = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%lce : tensor<?x6x16xbf16>) outs(%z : tensor<?x16xf32>) {
  ^bb0(%v: bf16, %acc: f32):
    %x = arith.extf %v : bf16 to f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<?x16xf32>
  %six = arith.constant 6.0 : f32
  %e1 = tensor.empty(%nb) : tensor<?x16xbf16>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x16xf32>) outs(%e1 : tensor<?x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %q = arith.divf %v, %six : f32
    %t = arith.truncf %q : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x16xbf16>
  return %mean : tensor<?x16xbf16>
}

// Without a region: the conversion to the result element made explicit.
// CHECK-LABEL: func.func @plain
// CHECK: sc.batch_matmul %arg0, %arg1 {sum_rows} : tensor<6x8xf16>, tensor<?x8x16xf16> -> tensor<?x1x16xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[ACC]] : f32 to f16
// CHECK-NEXT: sc.yield %[[H]] : f16
func.func @plain(%w: tensor<6x8xf16>, %e: tensor<?x8x16xf16>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %e, %c0 : tensor<?x8x16xf16>
  // expected-remark @below {{its rows summed}}
  %p = sc.batch_matmul %w, %e : tensor<6x8xf16>, tensor<?x8x16xf16> -> tensor<?x6x16xf16>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%nb) : tensor<?x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %sum = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p : tensor<?x6x16xf16>) outs(%z : tensor<?x16xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %x = arith.extf %v : f16 to f32
    %a = arith.addf %x, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?x16xf32>
  return %sum : tensor<?x16xf32>
}

// Left: the result read elsewhere too, a sum from a nonzero start, a sum
// over the columns, a maximum instead of a sum.
// CHECK-LABEL: func.func @left
// CHECK-NOT: sum_rows
#bm = affine_map<(b, m, n) -> (b, m)>
func.func @left(%w: tensor<6x8xf16>, %e: tensor<?x8x16xf16>) -> (tensor<?x6x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x6xf32>, tensor<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %e, %c0 : tensor<?x8x16xf16>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty(%nb) : tensor<?x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %o = linalg.fill ins(%one : f32) outs(%e0 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %p = sc.batch_matmul %w, %e : tensor<6x8xf16>, tensor<?x8x16xf16> -> tensor<?x6x16xf32>
  %twice = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p : tensor<?x6x16xf32>) outs(%z : tensor<?x16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<?x16xf32>
  %q = sc.batch_matmul %w, %e : tensor<6x8xf16>, tensor<?x8x16xf16> -> tensor<?x6x16xf32>
  %from_one = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%q : tensor<?x6x16xf32>) outs(%o : tensor<?x16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<?x16xf32>
  %r = sc.batch_matmul %w, %e : tensor<6x8xf16>, tensor<?x8x16xf16> -> tensor<?x6x16xf32>
  %e6 = tensor.empty(%nb) : tensor<?x6xf32>
  %z6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<?x6xf32>) -> tensor<?x6xf32>
  %cols = linalg.generic {indexing_maps = [#x3, #bm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%r : tensor<?x6x16xf32>) outs(%z6 : tensor<?x6xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<?x6xf32>
  %t = sc.batch_matmul %w, %e : tensor<6x8xf16>, tensor<?x8x16xf16> -> tensor<?x6x16xf32>
  %max = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%t : tensor<?x6x16xf32>) outs(%z : tensor<?x16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.maximumf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<?x16xf32>
  return %p, %twice, %from_one, %cols, %max : tensor<?x6x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x6xf32>, tensor<?x16xf32>
}

// Left too: a batched lhs (a kernel's tile would then span rows of several
// batch elements).
// CHECK-LABEL: func.func @batched_lhs
// CHECK-NOT: sum_rows
func.func @batched_lhs(%x: tensor<?x6x8xf16>, %w: tensor<8x16xf16>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %x, %c0 : tensor<?x6x8xf16>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%nb) : tensor<?x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %p = sc.batch_matmul %x, %w : tensor<?x6x8xf16>, tensor<8x16xf16> -> tensor<?x6x16xf32>
  %s = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p : tensor<?x6x16xf32>) outs(%z : tensor<?x16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<?x16xf32>
  return %s : tensor<?x16xf32>
}
