//===- TemplateUtils.h - textual kernel templates ---------------*- C++ -*-===//
//
// Kernels are written as MLIR text with $NAME placeholders; these helpers
// fill them in and parse the result.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_TEMPLATEUTILS_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_TEMPLATEUTILS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::sc::detail {

/// Replaces every $NAME by its value, longest names first (so that $SM1 is
/// not cut by $S; "$KERNEL_epilogue" becomes "<kernel>_epilogue").
std::string replaceAll(std::string text,
                       const llvm::StringMap<std::string> &values);

std::string typeToString(Type type);

/// Parses `text` (a module holding one gpu.module) in `context`.
OwningOpRef<ModuleOp> parseTemplate(MLIRContext *context,
                                    const std::string &text);

/// The gpu.module a parsed template holds.
gpu::GPUModuleOp templateModule(ModuleOp parsed);

/// Moves everything in `from` to the end of `to`.
void moveKernels(gpu::GPUModuleOp from, gpu::GPUModuleOp to);

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_TEMPLATEUTILS_H
