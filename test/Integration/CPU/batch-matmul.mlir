// RUN: sparcast-equiv %s --ref=upstream --test=sc --candidates=6 --trials=2 | FileCheck %s

// A shared f32 weight times a candidate batch, against linalg.broadcast +
// linalg.batch_matmul.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @sc(%w: tensor<7x9xf32>, %e: tensor<?x9x5xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x7x5xf32> {
  %c = sc.batch_matmul %w, %e : tensor<7x9xf32>, tensor<?x9x5xf32> -> tensor<?x7x5xf32>
  return %c : tensor<?x7x5xf32>
}

func.func @upstream(%w: tensor<7x9xf32>, %e: tensor<?x9x5xf32> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x7x5xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %e, %c0 : tensor<?x9x5xf32>
  %wb0 = tensor.empty(%n) : tensor<?x7x9xf32>
  %wb = linalg.broadcast ins(%w : tensor<7x9xf32>) outs(%wb0 : tensor<?x7x9xf32>) dimensions = [0]
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%n) : tensor<?x7x5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x7x5xf32>) -> tensor<?x7x5xf32>
  %r = linalg.batch_matmul ins(%wb, %e : tensor<?x7x9xf32>, tensor<?x9x5xf32>) outs(%acc : tensor<?x7x5xf32>) -> tensor<?x7x5xf32>
  return %r : tensor<?x7x5xf32>
}
