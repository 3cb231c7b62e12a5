// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report | FileCheck %s
// RUN: not sparcast-aot %S/Inputs/concat-batch.mlir -o %t-batch 2>&1 | FileCheck %s --check-prefix=BATCH

// A concat past the batch dim (a ranking model's features joined for its
// tower): each piece copied into its place of the result, one thread an
// element of the piece. Along the batch dim it is a located error.
// CHECK: kernel features_concat0: copy arg0 into result0 (?x4x24) at dim-1.. offsets
// CHECK: kernel features_concat1: copy arg1 into result0 (?x4x24) at dim-1.. offsets
// BATCH: concat-batch.mlir:2:8: error: sparcast-aot: a concat along dim 0 (the batch) is not supported
func.func @features(%a: tensor<?x4x16xf16>, %b: tensor<?x4x8xf16>) -> tensor<?x4x24xf16> {
  %c = tensor.concat dim(2) %a, %b : (tensor<?x4x16xf16>, tensor<?x4x8xf16>) -> tensor<?x4x24xf16>
  return %c : tensor<?x4x24xf16>
}
