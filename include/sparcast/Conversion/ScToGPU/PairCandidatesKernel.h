//===- PairCandidatesKernel.h - candidates of one request in pairs -*- C++ -*-===//
//
// Target attention runs two candidates in one CTA when they read the same
// request's keys and values (one K/V stream for both consumers). Which
// candidates those are depends on the index, known only on the device: this
// kernel pairs them before the attention kernel runs.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_PAIRCANDIDATESKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_PAIRCANDIDATESKERNEL_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

namespace mlir::sc {

/// The entry tensors of the pairing: the index (int32 [B], values in
/// [0, U)), a zeroed int32 [U] scratch (the candidate of each request
/// waiting for a partner, plus one), and the zeroed int32 [B] result:
/// pairs[b] = p + 1 when b leads a pair with partner p, 0 when b runs
/// alone, -1 when b is some other candidate's partner. Every candidate is
/// in exactly one CTA's work; a candidate whose index is out of range runs
/// alone.
struct PairCandidatesSpec {
  std::string index, waiting, pairs;
  LaunchDim batch; // B: one thread per candidate
};

FailureOr<KernelLaunch> buildPairCandidatesKernel(Location loc,
                                                  gpu::GPUModuleOp gpuModule,
                                                  StringRef kernelName,
                                                  const PairCandidatesSpec &spec);

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_PAIRCANDIDATESKERNEL_H
