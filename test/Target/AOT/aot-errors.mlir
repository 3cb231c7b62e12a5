// RUN: not sparcast-aot %s -o %t 2>&1 | FileCheck %s
// RUN: not sparcast-aot %S/Inputs/returns-argument.mlir -o %t 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not sparcast-aot %S/Inputs/scalar-argument.mlir -o %t 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not sparcast-aot %s -o %t --sm=sm_70 2>&1 | FileCheck %s --check-prefix=CHIP

// Entries are made of sc.batch_matmul, slices and zero padding for now
// (after --sc-ikbo-pipeline, which sparcast-aot runs first); anything else
// is a located error, never a crash.
// CHECK: aot-errors.mlir:[[# @LINE + 6]]:8: error: sparcast-aot: 'sc.gather_rows' is not supported in an entry yet
// RESULT: returns-argument.mlir:{{[0-9]+}}:{{[0-9]+}}: error: sparcast-aot: result #1 must be produced by a kernel of the entry
// SCALAR: scalar-argument.mlir:{{[0-9]+}}:{{[0-9]+}}: error: entry argument #1 must be a ranked f32/f16/bf16/i32/i8 tensor, got 'f32'
// CHIP: error: unsupported chip 'sm_70'

func.func @gather(%user: tensor<?x8xf16>, %idx: tensor<?xi32>) -> tensor<?x8xf16> {
  %e = sc.gather_rows %user[%idx] : tensor<?x8xf16>, tensor<?xi32> -> tensor<?x8xf16>
  return %e : tensor<?x8xf16>
}
