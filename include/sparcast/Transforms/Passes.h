//===- Passes.h - Sparcast tensor-level transforms --------------*- C++ -*-===//
#ifndef SPARCAST_TRANSFORMS_PASSES_H
#define SPARCAST_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::sc {

#define GEN_PASS_DECL
#include "sparcast/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sparcast/Transforms/Passes.h.inc"

} // namespace mlir::sc

#endif // SPARCAST_TRANSFORMS_PASSES_H
