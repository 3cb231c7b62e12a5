//===- KernelBuilder.cpp - what the kernels built with OpBuilder share ----===//

#include "KernelBuilder.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string mlir::sc::detail::typeToString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

FailureOr<func::FuncOp> mlir::sc::detail::kernelIRFunction(Operation *op) {
  auto ref =
      op->getAttrOfType<FlatSymbolRefAttr>(BatchMatmulOp::getKernelAttrName());
  if (!ref)
    return func::FuncOp();
  auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, ref);
  if (!kernel)
    return op->emitError() << "no kernel-level function " << ref;
  return kernel;
}
