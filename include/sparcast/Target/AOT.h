//===- AOT.h - compile a model module into an artifact directory -*- C++ -*-===//
//
// sparcast-aot's work: every public func.func of the model becomes an entry
// of the artifact; its kernels are generated, compiled to PTX (and cubin
// when ptxas exists), and manifest.json says how the runtime launches them.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_TARGET_AOT_H
#define SPARCAST_TARGET_AOT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::sc {

struct AotOptions {
  std::string chip = "sm_90a";
  /// GEMM schedule: "auto", "cooperative", "pingpong" or "transposed"
  /// (GemmKernelOptions).
  std::string schedule = "auto";
  /// bf16 attention with P rounded to f16 (V converted to f16 in shared
  /// memory): less error, V within +-65504.
  bool attentionF16P = false;
  /// Target attention chains heads where it takes them
  /// (sc-select-kernel-config chain-heads); false turns it off.
  bool attentionChainHeads = true;
  /// A chained target attention walks its candidates in request order
  /// (sc-select-kernel-config group-candidates). Opt-in: faster on an index in
  /// random order, slower on one already grouped (docs/decisions.md).
  bool attentionGroupCandidates = false;
  /// The attention kernels lowered op by op from their scheduled
  /// kernel-level IR (sc-schedule-attention) instead of written by
  /// AttentionKernel.cpp. Experimental until checked and timed against the
  /// writer on the GPU.
  bool attentionFromKernelIR = false;
  /// sm_80 / sm_86 / sm_89: attention by the mma.sync kernel (experimental).
  bool ampereAttention = false;
  /// Warp-specialized GEMMs in clusters of two CTAs sharing B by TMA
  /// multicast (GemmKernelOptions::multicast) for every GEMM. Opt-in:
  /// correct, not faster where it is not the default (docs/decisions.md).
  bool gemmMulticast = false;
  /// Every Hopper GEMM compiled for each schedule it can take, the
  /// runtime choosing by measurement (scSetTuning).
  bool autotune = false;
  /// Candidates per user from which IKBO's candidate GEMM runs the
  /// transposed kernel (sc-dispatch-gemm-schedule); 0: no dispatch.
  int64_t dispatchMinCandidatesPerUser = 64;
  /// ... and from this many candidates on (0: any).
  int64_t dispatchMinBatch = 2048;
  /// IKBO: the request GEMM's result in the model's result type instead of
  /// f32 (sc-ikbo-decompose-gemm{request-in-result-type}): faster, one more
  /// rounding.
  bool ikboRequestInResultType = false;
  /// Constant GEMM weights packed at compile time into hybrid dense / 2:4 /
  /// zero tiles of this many rows and columns (sc-pack-hybrid-weights; 0:
  /// not packed), pruned to 2:4 except a dense budget when asked.
  int64_t hybridTileRows = 0, hybridTileCols = 0;
  bool hybridPrune = false;
  double hybridDenseBudget = 0.0;
  /// Split-K of decode hybrid-tiled GEMMs (sc-split-k): 1 off, 0 auto, or
  /// the parts.
  int64_t hybridSplitK = 0;
  /// Split-K of the dense warp-specialized GEMMs, parts chosen in the
  /// kernel from its tile count (sc-split-k dense).
  bool denseSplitK = true;
  /// sc-fuse-row-sum in the pipeline; with sumRowsFirst, sc-sum-rows-first
  /// after it.
  bool fuseRowSum = false, sumRowsFirst = false;
  /// sc-pad-n on odd N only, rows of other N that are no 16-byte multiple
  /// copied and stored by the kernels' threads (experimental).
  bool rowsByThreads = false;
  /// sm_80 / sm_86 / sm_89 attention's K/V ring slots (0: two).
  int64_t ampereAttentionStages = 0;
  /// sm_80 / sm_86 / sm_89 GEMM's tile columns (0: chosen).
  int64_t ampereGemmTileCols = 0;
  /// The kernel-level IR's passes: sc-warp-specialize's ring stages (0: as
  /// many as fit) and register split, sc-persistent's M-tile group (0: no
  /// sc-persistent, one CTA per tile).
  int64_t wsStages = 0;
  int64_t wsProducerRegs = 0;
  int64_t wsConsumerRegs = 232;
  int64_t wsGroup = 8;
  /// Name used for the C header (<modelName>.h).
  std::string modelName = "model";
};

/// Compiles `module` into `outDir` (created if missing). Writes what each
/// step decided to `report` when given. Emits located errors on failure.
LogicalResult compileArtifact(ModuleOp module, const AotOptions &options,
                              StringRef outDir, raw_ostream *report);

/// Registers sc-build-kernels (each public function's kernels in a
/// gpu.module, its manifest entry in `sc.manifest_entry`) and the
/// sc-gpu-pipeline (sc-kernel-pipeline, then sc-build-kernels).
void registerSparcastAOTPasses();

} // namespace mlir::sc

#endif // SPARCAST_TARGET_AOT_H
