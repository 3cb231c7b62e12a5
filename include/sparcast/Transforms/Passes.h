//===- Passes.h - Sparcast tensor-level transforms --------------*- C++ -*-===//
#ifndef SPARCAST_TRANSFORMS_PASSES_H
#define SPARCAST_TRANSFORMS_PASSES_H

// Only the pass declarations: each pass's .cpp includes the dialects it
// depends on, so that this header does not pull them into every user.
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::sc {

#define GEN_PASS_DECL
#include "sparcast/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sparcast/Transforms/Passes.h.inc"

} // namespace mlir::sc

#endif // SPARCAST_TRANSFORMS_PASSES_H
