// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

// sc.tensor_map marks a kernel's pointer to a TMA tensor map (passed by
// value once lowered): a unit attribute on an !llvm.ptr argument.

// expected-error @+1 {{argument #0 marked 'sc.tensor_map' must be an !llvm.ptr, got 'memref<?xf32>'}}
func.func @not_a_pointer(%x: memref<?xf32> {sc.tensor_map}) {
  return
}

// -----

// expected-error @+1 {{'sc.tensor_map' is a unit attribute, got 1 : i64}}
func.func @not_unit(%p: !llvm.ptr {sc.tensor_map = 1}) {
  return
}

// -----

// A declaration has no argument types to check.
func.func private @declared(!llvm.ptr {sc.tensor_map})
