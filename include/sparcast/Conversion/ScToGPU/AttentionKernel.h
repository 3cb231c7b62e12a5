//===- AttentionKernel.h - sc.attention to a Hopper kernel ------*- C++ -*-===//
//
// The flash-attention forward kernel generated for an sc.attention op: TMA
// loads of Q, K and V, wgmma for Q K^T and P V, online softmax in fp32 with
// exp2, TMA stores. Indexed attention reads each candidate's keys and values
// at index[b] (IKBO type II, never broadcast); a block mask makes each query
// tile walk only its kept key blocks.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_ATTENTIONKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_ATTENTIONKERNEL_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

namespace mlir::sc {

/// How the op's operands and result are known to the entry.
struct AttentionBinding {
  std::string query, key, value, index, result;
  /// Symbols of the dynamic dims: query batch (B), key batch (U), query
  /// and key lengths.
  std::string batchSymbol, keyBatchSymbol, queryLenSymbol, keyLenSymbol;
  /// With a pairs walk (sc.attention_config): the int32 [B] table of
  /// buildPairCandidatesKernel, which CTA x reads to know its candidates.
  std::string pairs;
  /// With group_candidates: the int32 [B] walk order of
  /// buildGroupCandidatesKernel (walk position i runs candidate order[i]).
  std::string order;
};

/// Whether the kernel of `op` runs P V in f16 on a bf16 attention (the op
/// configuration says p_in_f16): then its V operand must be V
/// converted to f16 (buildConvertKernel).
bool attentionKernelTakesF16Value(AttentionOp op);

/// Builds kernel `kernelName` for `op` into `gpuModule` (sm_90a only).
/// Emits a located error and fails on what the kernel does not support:
/// other element types, head dims other than 64 and 128, dynamic heads, a
/// block mask with a block size other than 64 or 128 or over dynamic
/// lengths. Dynamic sequence lengths are passed to the kernel as values.
/// With `fromKernelIR`, the kernel is lowered op by op from the op's
/// scheduled kernel-level IR (sc-schedule-attention).
FailureOr<KernelLaunch> buildAttentionKernel(AttentionOp op,
                                             gpu::GPUModuleOp gpuModule,
                                             StringRef kernelName,
                                             const AttentionBinding &binding,
                                             StringRef chip,
                                             bool fromKernelIR = false,
                                             bool ampereAttention = false);

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_ATTENTIONKERNEL_H
