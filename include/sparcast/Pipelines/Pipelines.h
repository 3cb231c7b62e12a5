//===- Pipelines.h - named Sparcast pass pipelines --------------*- C++ -*-===//
#ifndef SPARCAST_PIPELINES_PIPELINES_H
#define SPARCAST_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir::sc {

/// Lowers a module of func/tensor/linalg/sc ops to the LLVM dialect for the
/// host CPU through the reference lowering: the golden model runner.
void buildScCpuReferencePipeline(OpPassManager &pm);

/// IKBO at the tensor level: sc-ikbo-attention (type II), then
/// sc-ikbo-decompose-gemm, sc-pad-k, sc-fuse-epilogue (type I), with
/// clean-ups in between.
/// `requestInResultType`: see sc-ikbo-decompose-gemm's option of that name.
void buildScIkboPipeline(OpPassManager &pm, bool report = false,
                         bool requestInResultType = false);

/// Registers --sc-cpu-reference-pipeline and --sc-ikbo-pipeline.
void registerScPipelines();

} // namespace mlir::sc

#endif // SPARCAST_PIPELINES_PIPELINES_H
