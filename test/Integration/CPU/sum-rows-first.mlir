// RUN: sparcast-equiv %s --ref=pooled_lce --pass-pipeline='builtin.module(func.func(sc-fuse-row-sum,sc-sum-rows-first))' --users=3 --candidates=7 --trials=3 --rtol=5e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pooled_lce --pass-pipeline='builtin.module(func.func(sc-fuse-row-sum,sc-sum-rows-first))' --users=2 --candidates=5 --shuffle-index --trials=2 --rtol=5e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pooled_wide --pass-pipeline='builtin.module(func.func(sc-fuse-row-sum,sc-sum-rows-first))' --candidates=3 --trials=2 --rtol=5e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pooled_wide --pass-pipeline='builtin.module(func.func(sc-fuse-row-sum,sc-sum-rows-first,sc-select-kernel-config{schedule=pingpong}),sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-schedule-wgmma,sc-test-execute-kernel-ir)' --candidates=3 --trials=2 --rtol=5e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=pooled_linear --pass-pipeline='builtin.module(func.func(sc-fuse-row-sum,sc-sum-rows-first))' --candidates=4 --trials=2 --rtol=5e-3 | FileCheck %s
// RUN: sparcast-opt %s -sc-fuse-row-sum -sc-sum-rows-first | FileCheck %s --check-prefix=IR

// Summing the lhs's rows before the product keeps the pooled LCE's
// meaning: the request GEMM (its f32 result gathered per candidate) and
// the candidate GEMM with its gather-add epilogue and bf16 rounding, their
// 6 (150) rows summed and averaged, before and after, run on the host on
// random inputs (uneven and shuffled candidates of each user); the second
// form computes the row sums of the weights in f32, multiplies them as
// hi + lo bf16 rows and adds the request part's row sum once, so the only
// difference is the bf16 rounding of each of the M products the first
// form sums (3e-3 relative in the Frobenius norm here; the kernel-level
// IR of the ping-pong tile run op by op the same).
// CHECK: EQUIVALENT
// IR-LABEL: func.func @pooled_lce
// IR: sc.batch_matmul %{{.*}}, %{{.*}} {sum_rows} : tensor<2x24xbf16>, tensor<?x24x16xbf16> -> tensor<?x1x16xf32>
// IR: sc.batch_matmul %{{.*}}, %{{.*}} epilogue_ins(%{{.*}}, %{{.*}} : tensor<?x1x16xf32>, tensor<?xi32>) {sum_rows} : tensor<2x40xbf16>, tensor<?x40x16xbf16> -> tensor<?x1x16xf32>
// IR-LABEL: func.func @pooled_linear
// IR: sc.batch_matmul %{{.*}}, %{{.*}} epilogue_ins(%{{.*}} : tensor<24xf32>) {sum_rows} : tensor<2x64xf16>
// IR-LABEL: func.func @pooled_wide
// IR: sc.batch_matmul %{{.*}}, %{{.*}} {sum_rows} : tensor<2x1024xbf16>, tensor<?x1024x24xbf16> -> tensor<?x1x24xf32>

#x3 = affine_map<(b, m, n) -> (b, m, n)>
#bn = affine_map<(b, m, n) -> (b, n)>
#id = affine_map<(b, n) -> (b, n)>
func.func @pooled_lce(%w: tensor<6x40xbf16> {sc.lineage = #sc.lineage<shared>},
                      %wu: tensor<6x24xbf16> {sc.lineage = #sc.lineage<shared>},
                      %eu: tensor<?x24x16xbf16> {sc.lineage = #sc.lineage<request>},
                      %e: tensor<?x40x16xbf16> {sc.lineage = #sc.lineage<candidate>},
                      %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x16xbf16> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %e, %c0 : tensor<?x40x16xbf16>
  %user = sc.batch_matmul %wu, %eu : tensor<6x24xbf16>, tensor<?x24x16xbf16> -> tensor<?x6x16xf32>
  %lce = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x6x16xf32>, tensor<?xi32>) : tensor<6x40xbf16>, tensor<?x40x16xbf16> -> tensor<?x6x16xbf16> {
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

// A linear layer's bias (at [n]) on each of the 10 rows, pooled: the
// bias added 10 times once.
func.func @pooled_linear(%w: tensor<10x64xf16> {sc.lineage = #sc.lineage<shared>},
                         %e: tensor<?x64x24xf16> {sc.lineage = #sc.lineage<candidate>},
                         %bias: tensor<24xf32> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x24xf32> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %e, %c0 : tensor<?x64x24xf16>
  %p = sc.batch_matmul %w, %e epilogue_ins(%bias : tensor<24xf32>) : tensor<10x64xf16>, tensor<?x64x24xf16> -> tensor<?x10x24xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<24xf32>):
    %v = tensor.extract %bs[%n] : tensor<24xf32>
    %s = arith.addf %acc, %v : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%nb) : tensor<?x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x24xf32>) -> tensor<?x24xf32>
  %sum = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p : tensor<?x10x24xf16>) outs(%z : tensor<?x24xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %x = arith.extf %v : f16 to f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<?x24xf32>
  return %sum : tensor<?x24xf32>
}

func.func @pooled_wide(%w: tensor<150x1024xbf16> {sc.lineage = #sc.lineage<shared>},
                       %e: tensor<?x1024x24xbf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x24xf32> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %e, %c0 : tensor<?x1024x24xbf16>
  %p = sc.batch_matmul %w, %e : tensor<150x1024xbf16>, tensor<?x1024x24xbf16> -> tensor<?x150x24xbf16>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%nb) : tensor<?x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x24xf32>) -> tensor<?x24xf32>
  %sum = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p : tensor<?x150x24xbf16>) outs(%z : tensor<?x24xf32>) {
  ^bb0(%v: bf16, %acc: f32):
    %x = arith.extf %v : bf16 to f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<?x24xf32>
  return %sum : tensor<?x24xf32>
}
