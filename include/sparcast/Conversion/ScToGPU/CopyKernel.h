//===- CopyKernel.h - slice / zero-pad copies for the GPU -------*- C++ -*-===//
//
// The glue between kernels: a copy of a box of a tensor into a (larger)
// tensor, zero outside the box; what tensor.extract_slice + tensor.pad
// chains become when they must be materialized (e.g. a slice of a weight
// whose rows must be 16-byte aligned for TMA).
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_COPYKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_COPYKERNEL_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

namespace mlir::sc {

/// dst[i] = src[i + offsets] when i < extent in every dim, else 0.
/// `src` and `dst` have one rank (2 or 3); all dims but dim 0 are static.
struct CopySpec {
  RankedTensorType srcType, dstType;
  SmallVector<int64_t> offsets;
  SmallVector<int64_t> extent; // per dim; dim 0 may be ShapedType::kDynamic
  std::string src, dst;        // entry tensor names
  LaunchDim batch;             // size of dim 0 (grid z)
  /// Set: the whole source is written into the destination at these
  /// offsets (a piece of a concat) instead of the destination read from a
  /// box of the source.
  SmallVector<int64_t> dstOffsets;
};

FailureOr<KernelLaunch> buildCopyKernel(Location loc,
                                        gpu::GPUModuleOp gpuModule,
                                        StringRef kernelName,
                                        const CopySpec &spec);

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_COPYKERNEL_H
