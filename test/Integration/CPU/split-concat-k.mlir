// RUN: sparcast-equiv %s --ref=tower --pass-pipeline='builtin.module(sc-split-concat-k)' --candidates=5 --trials=2 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=three_parts --pass-pipeline='builtin.module(sc-split-concat-k)' --candidates=3 --trials=2 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=tower --pass-pipeline='builtin.module(sc-split-concat-k,sc-lower-to-sck,sc-persistent,sc-multicast,sc-warp-specialize,sc-test-execute-kernel-ir)' --candidates=5 --trials=2 --rtol=2e-3 | FileCheck %s

// A GEMM over features concatenated along K, split into two GEMMs (the
// second's epilogue adding the first's f32 sum before the op's bias and
// ReLU), gives the op's results on random inputs: rows of a raised matmul
// with a weight read transposed, three parts of a batched lhs (a chain of
// partial sums), and the split GEMMs' kernel-level IR (flat rows, CTA
// pairs) run on the host.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @tower(%a: tensor<?x32xbf16> {sc.lineage = #sc.lineage<candidate>}, %b: tensor<?x96xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<40x128xbf16>, %bias: tensor<40xf32>) -> tensor<?x1x40xbf16> {
  %c0 = arith.constant 0 : index
  %x = tensor.concat dim(1) %a, %b : (tensor<?x32xbf16>, tensor<?x96xbf16>) -> tensor<?x128xbf16>
  %d = tensor.dim %x, %c0 : tensor<?x128xbf16>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [%d, 1, 128] : tensor<?x128xbf16> into tensor<?x1x128xbf16>
  %h = sc.batch_matmul %x3, %w epilogue_ins(%bias : tensor<40xf32>) {transpose_rhs} : tensor<?x1x128xbf16>, tensor<40x128xbf16> -> tensor<?x1x40xbf16> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bt: tensor<40xf32>):
    %bv = tensor.extract %bt[%n] : tensor<40xf32>
    %s = arith.addf %acc, %bv : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    sc.yield %t : bf16
  }
  return %h : tensor<?x1x40xbf16>
}

func.func @three_parts(%a: tensor<?x6x16xf16> {sc.lineage = #sc.lineage<candidate>}, %b: tensor<?x6x24xf16> {sc.lineage = #sc.lineage<candidate>}, %c: tensor<?x6x40xf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<80x16xf16>) -> tensor<?x6x16xf16> {
  %x = tensor.concat dim(2) %a, %b, %c : (tensor<?x6x16xf16>, tensor<?x6x24xf16>, tensor<?x6x40xf16>) -> tensor<?x6x80xf16>
  %h = sc.batch_matmul %x, %w : tensor<?x6x80xf16>, tensor<80x16xf16> -> tensor<?x6x16xf16>
  return %h : tensor<?x6x16xf16>
}
