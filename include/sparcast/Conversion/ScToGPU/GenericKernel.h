//===- GenericKernel.h - a linalg.generic as a GPU kernel -------*- C++ -*-===//
//
// The kernel of what an entry computes outside the sc ops: one
// linalg.generic, one thread per output element (GenericKernel.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_GENERICKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_GENERICKERNEL_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>
#include <vector>

namespace mlir::sc {

/// How a linalg.generic's operands are known to the entry.
struct GenericBinding {
  /// Per input: its entry tensor, or empty for a constant (a tensor
  /// constant becomes a global of the kernels' module, a scalar is cloned).
  std::vector<std::string> inputs;
  /// Per tensor the body reads elements of by `tensor.extract` (a gather;
  /// genericGatheredTensors's order): its entry tensor.
  std::vector<std::string> gathered;
  /// The output, and the tensor holding its initial values when the body
  /// reads them (a reduction's), else empty.
  std::string output, init;
  /// Instead of `init`: the one value every initial element has (the
  /// output was a linalg.fill of a constant), read by no one.
  TypedAttr initValue;
  /// A reduction's element-wise consumer (fusableConsumer's), applied to
  /// each reduced element before the store: `output` is then its result.
  linalg::GenericOp consumer;
  /// The output's shape (dim 0 may be a symbol).
  std::vector<LaunchDim> outputShape;
};

/// The tensors from outside `op` its body reads by `tensor.extract`, each
/// once, in the order the body first reads them.
SmallVector<Value> genericGatheredTensors(linalg::GenericOp op);

/// Why `op` has no kernel here, or an empty string.
std::string genericKernelLimitation(linalg::GenericOp op);

/// The sole reader of reduction `op`'s result when the reduction's kernel
/// can apply it too: element-wise over the same shape (identity maps), the
/// result its only tensor input, constants its only other values; else
/// null. (A mean's division and rounding after its sum.)
linalg::GenericOp fusableConsumer(linalg::GenericOp op);

/// Builds kernel `kernelName` for `op` into `gpuModule`: one thread per
/// output element, the reduction loops (if any) in the thread.
FailureOr<KernelLaunch> buildGenericKernel(linalg::GenericOp op,
                                           gpu::GPUModuleOp gpuModule,
                                           StringRef kernelName,
                                           const GenericBinding &binding);

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_GENERICKERNEL_H
