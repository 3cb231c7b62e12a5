//===- ConvertKernel.h - element type conversion of a tensor ----*- C++ -*-===//
//
// A whole tensor converted to another float type of the same shape (e.g. a
// bf16 attention's V to f16 once per call, so that the attention kernel
// reads it as f16 instead of converting every block it loads).
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_CONVERTKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_CONVERTKERNEL_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

namespace mlir::sc {

/// dst = convert(src) element by element (through f32, rounding to
/// nearest). Same shape, any dims dynamic; the innermost dim static and a
/// multiple of 8 (each thread converts 16 bytes at a time).
struct ConvertSpec {
  RankedTensorType srcType, dstType;
  std::string src, dst; // entry tensor names
};

FailureOr<KernelLaunch> buildConvertKernel(Location loc,
                                           gpu::GPUModuleOp gpuModule,
                                           StringRef kernelName,
                                           const ConvertSpec &spec);

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_CONVERTKERNEL_H
