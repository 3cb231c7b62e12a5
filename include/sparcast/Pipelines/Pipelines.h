//===- Pipelines.h - named Sparcast pass pipelines --------------*- C++ -*-===//
#ifndef SPARCAST_PIPELINES_PIPELINES_H
#define SPARCAST_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

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

/// What sparcast-aot's flags ask of the passes before it builds the kernels
/// (one option a flag, of the same name).
struct ScKernelPipelineOptions
    : public PassPipelineOptions<ScKernelPipelineOptions> {
  Option<std::string> chip{*this, "sm",
                           llvm::cl::desc("Target chip: sm_90a (wgmma, "
                                          "TMA), sm_80 / sm_86 / sm_89 "
                                          "(mma.sync GEMMs)"),
                           llvm::cl::init("sm_90a")};
  Option<bool> report{*this, "report",
                      llvm::cl::desc("Remarks from every pass (lineage "
                                     "included)"),
                      llvm::cl::init(false)};
  Option<bool> ikboRequestInResultType{
      *this, "ikbo-request-in-result-type",
      llvm::cl::desc("The request GEMM's result in the model's result type"),
      llvm::cl::init(false)};
  Option<std::string> gemmSchedule{
      *this, "gemm-schedule",
      llvm::cl::desc("auto, cooperative, pingpong or transposed"),
      llvm::cl::init("auto")};
  Option<int64_t> dispatchMinCandidatesPerUser{
      *this, "dispatch-min-candidates-per-user",
      llvm::cl::desc("Candidates per user from which IKBO's candidate GEMM "
                     "runs the transposed kernel (0: no dispatch)"),
      llvm::cl::init(64)};
  Option<int64_t> dispatchMinBatch{
      *this, "dispatch-min-batch",
      llvm::cl::desc("... and from this many candidates on (0: any)"),
      llvm::cl::init(2048)};
  Option<bool> autotune{*this, "autotune",
                        llvm::cl::desc("Every Hopper GEMM compiled for each "
                                       "schedule it can take, chosen by the "
                                       "runtime's measurements "
                                       "(sc-tune-gemm-schedules)"),
                        llvm::cl::init(false)};
  Option<bool> gemmMulticast{*this, "gemm-multicast",
                             llvm::cl::desc("CTA pairs sharing B for every "
                                            "warp-specialized GEMM"),
                             llvm::cl::init(false)};
  Option<bool> attentionChainHeads{
      *this, "attention-chain-heads",
      llvm::cl::desc("Target attention of one consumer a candidate chains "
                     "its heads"),
      llvm::cl::init(true)};
  Option<bool> attentionGroupCandidates{
      *this, "attention-group-candidates",
      llvm::cl::desc("Chained and pairs walks take the candidates in "
                     "request order"),
      llvm::cl::init(false)};
  Option<bool> attentionF16P{*this, "attention-f16-p",
                             llvm::cl::desc("bf16 attention rounds P to f16"),
                             llvm::cl::init(false)};
  Option<int64_t> wsGroup{*this, "ws-group",
                          llvm::cl::desc("sc-persistent's M-tile group (0: "
                                         "no sc-persistent)"),
                          llvm::cl::init(8)};
  Option<int64_t> wsStages{*this, "ws-stages",
                           llvm::cl::desc("Ring stages (0: as many as fit)"),
                           llvm::cl::init(0)};
  Option<int64_t> wsProducerRegs{*this, "ws-producer-regs",
                                 llvm::cl::desc("The producer's registers "
                                                "(0: the kernel's default)"),
                                 llvm::cl::init(0)};
  Option<int64_t> wsConsumerRegs{*this, "ws-consumer-regs",
                                 llvm::cl::desc("Each consumer's registers"),
                                 llvm::cl::init(232)};
  Option<int64_t> hybridTileRows{
      *this, "hybrid-tile-rows",
      llvm::cl::desc("Pack constant GEMM weights in hybrid tiles of this many "
                     "rows (sc-pack-hybrid-weights; 0: not packed)"),
      llvm::cl::init(0)};
  Option<int64_t> hybridTileCols{
      *this, "hybrid-tile-cols",
      llvm::cl::desc("... and this many columns"), llvm::cl::init(128)};
  Option<bool> hybridPrune{*this, "hybrid-prune",
                           llvm::cl::desc("... pruned to 2:4 by magnitude"),
                           llvm::cl::init(false)};
  Option<double> hybridDenseBudget{
      *this, "hybrid-dense-budget",
      llvm::cl::desc("... except this fraction of the tiles"),
      llvm::cl::init(0.0)};
  Option<int64_t> hybridSplitK{
      *this, "hybrid-split-k",
      llvm::cl::desc("Split-K of decode hybrid-tiled GEMMs (sc-split-k): 1 "
                     "off, 0 auto, else the parts"),
      llvm::cl::init(0)};
  Option<bool> fuseRowSum{
      *this, "fuse-row-sum",
      llvm::cl::desc("Fold sums over a GEMM's rows (mean pooling) into the "
                     "GEMM (sc-fuse-row-sum): its result is never stored"),
      llvm::cl::init(false)};
  Option<bool> sumRowsFirst{
      *this, "sum-rows-first",
      llvm::cl::desc("With fuse-row-sum: a summed-rows GEMM of a shared lhs "
                     "multiplies the lhs's row sum instead (sc-sum-rows-first)"),
      llvm::cl::init(false)};
  Option<bool> rowsByThreads{
      *this, "rows-by-threads",
      llvm::cl::desc("Pad only odd N (sc-pad-n odd-only); the GEMM kernels "
                     "copy and store rows of even N that are no 16-byte "
                     "multiple by threads (experimental)"),
      llvm::cl::init(false)};
  Option<bool> denseSplitK{
      *this, "dense-split-k",
      llvm::cl::desc("Split-K of the dense warp-specialized GEMMs "
                     "(sc-split-k dense), parts chosen in the kernel"),
      llvm::cl::init(true)};
  Option<int64_t> ampereAttentionStages{
      *this, "ampere-attention-stages",
      llvm::cl::desc("sm_80 / sm_86 / sm_89 attention: slots of its K/V "
                     "ring (0: 2; else 2 to 8)"),
      llvm::cl::init(0)};
  Option<int64_t> ampereGemmTileCols{
      *this, "ampere-gemm-tile-cols",
      llvm::cl::desc("sm_80 / sm_86 / sm_89 GEMM: tile columns, 128 (4 "
                     "warps) or 256 (8 warps); 0: 256 past 128 columns"),
      llvm::cl::init(0)};
};

/// Everything sparcast-aot runs on a model before it builds the kernels:
/// the lineage (its remarks with `report`), the IKBO pipeline, then on
/// sm_90a each op's kernel configuration (sc-dispatch-gemm-schedule,
/// sc-select-kernel-config) and kernel-level IR
/// (sc-lower-to-sck, sc-persistent, sc-multicast, sc-warp-specialize,
/// sc-prefetch-epilogue-operands), as `options` ask.
void buildScKernelPipeline(OpPassManager &pm,
                           const ScKernelPipelineOptions &options);

/// Registers --sc-cpu-reference-pipeline, --sc-ikbo-pipeline and
/// --sc-kernel-pipeline.
void registerScPipelines();

} // namespace mlir::sc

#endif // SPARCAST_PIPELINES_PIPELINES_H
