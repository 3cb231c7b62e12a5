//===- GroupCandidatesKernel.h - candidates in request order ----*- C++ -*-===//
//
// The chained target-attention kernel's resident CTAs walk the candidates
// in a fixed order; when the index lists them grouped by request, the CTAs
// running at once read the keys and values of a few requests, which then
// stay in L2. An index in any other order would have every request's keys
// read at once. This kernel puts the candidates in request order for the
// walk (a counting sort by request), before the attention kernel runs.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_GROUPCANDIDATESKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_GROUPCANDIDATESKERNEL_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

namespace mlir::sc {

/// The entry tensors of the grouping: the index (int32 [B], values in
/// [0, U)) and the int32 [B] result: order[i] is the candidate the walk
/// takes at position i, the candidates of request 0 first, then those of
/// request 1, ... (in no particular order within a request), then any whose
/// index is out of range; with more than 8192 requests, the index's order
/// (order[i] = i). Every candidate appears exactly once.
/// With `pairs` (for the pairs kernel), also the int32 [B] pairs table of
/// the walk's positions, in PairCandidatesKernel.h's format: pairs[p] =
/// c + 1 when position p leads a pair whose partner is candidate c (at
/// p + 1, same request), 0 when p runs alone, -1 when p is a partner.
struct GroupCandidatesSpec {
  std::string index, order, pairs;
  LaunchDim users; // U
};

FailureOr<KernelLaunch> buildGroupCandidatesKernel(Location loc,
                                                   gpu::GPUModuleOp gpuModule,
                                                   StringRef kernelName,
                                                   const GroupCandidatesSpec &spec);

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_GROUPCANDIDATESKERNEL_H
