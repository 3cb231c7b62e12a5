// RUN: not sparcast-aot %s -o %t 2>&1 | FileCheck %s
// RUN: not sparcast-aot %S/Inputs/returns-argument.mlir -o %t 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not sparcast-aot %S/Inputs/scalar-argument.mlir -o %t 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not sparcast-aot %s -o %t --sm=sm_70 2>&1 | FileCheck %s --check-prefix=CHIP

// Entries are made of sc.batch_matmul, slices and zero padding for now
// (after --sc-ikbo-pipeline, which sparcast-aot runs first); anything else
// is a located error, never a crash.
// CHECK: aot-errors.mlir:[[# @LINE + 8]]:8: error: sparcast-aot: 'tensor.generate' is not supported in an entry yet
// RESULT: returns-argument.mlir:{{[0-9]+}}:{{[0-9]+}}: error: sparcast-aot: result #1 must be produced by a kernel of the entry
// SCALAR: scalar-argument.mlir:{{[0-9]+}}:{{[0-9]+}}: error: entry argument #1 must be a ranked f32/f16/bf16/i32/i8 tensor, got 'f32'
// CHIP: error: unsupported chip 'sm_70'

func.func @generate(%x: tensor<?x8xf16>) -> tensor<?x8xf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf16>
  %e = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %v = tensor.extract %x[%i, %j] : tensor<?x8xf16>
    tensor.yield %v : f16
  } : tensor<?x8xf16>
  return %e : tensor<?x8xf16>
}
