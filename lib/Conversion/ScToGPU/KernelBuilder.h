//===- KernelBuilder.h - what the kernels built with OpBuilder share -*- C++ -*-===//
#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_KERNELBUILDER_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::sc::detail {

/// Kernel `name` (params, and shared-memory buffers `workgroup`) at the end
/// of `module`, launched with `threads` threads a CTA (nvvm.maxntid); `b`
/// is left at the start of its body.
inline gpu::GPUFuncOp createKernelFunction(OpBuilder &b, Location loc,
                                           gpu::GPUModuleOp module,
                                           StringRef name, TypeRange params,
                                           int64_t threads,
                                           TypeRange workgroup = {}) {
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     b.getFunctionType(params, {}), workgroup);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("nvvm.maxntid",
                b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  return func;
}

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_KERNELBUILDER_H
