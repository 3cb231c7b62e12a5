//===- KernelBuilder.cpp - what the kernels built with OpBuilder share ----===//

#include "KernelBuilder.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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

SmallVector<Value> mlir::sc::detail::loadMatrixX4(OpBuilder &b, Location loc,
                                                  Value sharedPtr,
                                                  bool transposed) {
  MLIRContext *ctx = b.getContext();
  auto x4 = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(4, b.getI32Type()));
  Value loaded = NVVM::LdMatrixOp::create(
      b, loc, x4, sharedPtr, 4u,
      transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8), NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> regs;
  for (int64_t r = 0; r < 4; ++r)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, r));
  return regs;
}
