//===- Passes.h - Sparcast conversion passes --------------------*- C++ -*-===//
#ifndef SPARCAST_CONVERSION_PASSES_H
#define SPARCAST_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::sc {

#define GEN_PASS_DECL
#include "sparcast/Conversion/Passes.h.inc"

/// Patterns of the reference lowering of sc ops to linalg/tensor/arith.
void populateScToLinalgPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "sparcast/Conversion/Passes.h.inc"

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_PASSES_H
