//===- Passes.h - Sparcast conversion passes --------------------*- C++ -*-===//
#ifndef SPARCAST_CONVERSION_PASSES_H
#define SPARCAST_CONVERSION_PASSES_H

// Only the pass declarations: each pass's .cpp includes the dialects it
// depends on (NVVM's headers alone cost ~13 s a translation unit).
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::sc {

#define GEN_PASS_DECL
#include "sparcast/Conversion/Passes.h.inc"

/// Patterns of the reference lowering of sc ops to linalg/tensor/arith.
void populateScToLinalgPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "sparcast/Conversion/Passes.h.inc"

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_PASSES_H
