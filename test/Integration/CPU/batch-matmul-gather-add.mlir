// RUN: sparcast-equiv %s --ref=unfused --test=fused --users=4 --candidates=11 --trials=3 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=unfused --test=fused --users=3 --candidates=9 --shuffle-index --rtol=2e-3 | FileCheck %s

// The IKBO broadcast-add as an fp16 epilogue (gather-add of the user GEMM's
// row, bias, relu, truncation) against the same steps as separate ops.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @fused(%w: tensor<5x8xf16>,
                 %e: tensor<?x8x6xf16> {sc.lineage = #sc.lineage<candidate>},
                 %user: tensor<?x5x6xf32> {sc.lineage = #sc.lineage<request>},
                 %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>},
                 %bias: tensor<6xf32>) -> tensor<?x5x6xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx, %bias : tensor<?x5x6xf32>, tensor<?xi32>, tensor<6xf32>)
      : tensor<5x8xf16>, tensor<?x8x6xf16> -> tensor<?x5x6xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x5x6xf32>, %i: tensor<?xi32>, %bs: tensor<6xf32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x5x6xf32>
    %y = tensor.extract %bs[%n] : tensor<6xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.addf %s, %y : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %t, %zero : f32
    %h = arith.truncf %relu : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x5x6xf16>
}

func.func @unfused(%w: tensor<5x8xf16>,
                   %e: tensor<?x8x6xf16> {sc.lineage = #sc.lineage<candidate>},
                   %user: tensor<?x5x6xf32> {sc.lineage = #sc.lineage<request>},
                   %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>},
                   %bias: tensor<6xf32>) -> tensor<?x5x6xf16> {
  %acc = sc.batch_matmul %w, %e : tensor<5x8xf16>, tensor<?x8x6xf16> -> tensor<?x5x6xf32>
  %g = sc.gather_rows %user[%idx] : tensor<?x5x6xf32>, tensor<?xi32> -> tensor<?x5x6xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %e, %c0 : tensor<?x8x6xf16>
  %init = tensor.empty(%n) : tensor<?x5x6xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>,
                                          affine_map<(b, m, n) -> (n)>, affine_map<(b, m, n) -> (b, m, n)>],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc, %g, %bias : tensor<?x5x6xf32>, tensor<?x5x6xf32>, tensor<6xf32>) outs(%init : tensor<?x5x6xf16>) {
  ^bb0(%a: f32, %x: f32, %y: f32, %o: f16):
    %s = arith.addf %a, %x : f32
    %t = arith.addf %s, %y : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %t, %zero : f32
    %h = arith.truncf %relu : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x5x6xf16>
  return %out : tensor<?x5x6xf16>
}
