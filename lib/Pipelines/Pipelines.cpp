//===- Pipelines.cpp - named Sparcast pass pipelines ----------------------===//

#include "sparcast/Pipelines/Pipelines.h"
#include "sparcast/Conversion/Passes.h"
#include "sparcast/Transforms/KernelConfig.h"
#include "sparcast/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// tosa ops (imported graphs) as linalg / arith / tensor.
static void addTosaLowering(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalgNamed());
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalg());
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass());
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
}

void mlir::sc::buildScCpuReferencePipeline(OpPassManager &pm) {
  // Step 0. tosa ops (imported graphs) as linalg / arith / tensor.
  addTosaLowering(pm);
  // Step 1. sc ops to their naive linalg definition.
  pm.addPass(createScLowerToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  // Step 2. Bufferize, with plain (identity-layout) memrefs at function
  // boundaries so that callers can pass dense host buffers.
  {
    bufferization::OneShotBufferizePassOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
    pm.addPass(bufferization::createOneShotBufferizePass(options));
  }
  // Step 3. Loops, then LLVM. bf16 extension/truncation is expanded to
  // integer ops: the host has no bf16 instructions.
  pm.addPass(createScDropLineagePass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  {
    arith::ArithExpandOpsPassOptions options;
    options.includeBf16 = true;
    pm.addPass(arith::createArithExpandOpsPass(options));
  }
  pm.addPass(createConvertMathToLLVMPass());
  // What has no LLVM intrinsic (math.erf) calls libm.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::sc::buildScIkboPipeline(OpPassManager &pm, bool report,
                                   bool requestInResultType) {
  // Imported matmuls as sc.batch_matmul, so the steps below take them.
  {
    ScRaiseLinalgPassOptions options;
    options.report = report;
    pm.addPass(createScRaiseLinalgPass(options));
  }
  // The other tosa ops as linalg (element-wise ops as linalg.generic, which
  // the epilogue fusion below takes or generated kernels run).
  addTosaLowering(pm);
  // Step 0. Type II: attention reads each user's K/V through the index.
  {
    ScIkboAttentionPassOptions options;
    options.report = report;
    pm.addPass(createScIkboAttentionPass(options));
  }
  // Step 1. Split GEMMs over broadcast request features (needs lineage).
  {
    ScIkboDecomposeGemmPassOptions options;
    options.report = report;
    options.requestInResultType = requestInResultType;
    pm.addPass(createScIkboDecomposeGemmPass(options));
  }
  pm.addPass(createCanonicalizerPass());
  // Step 2. 16-byte contraction rows for TMA and wgmma.
  {
    ScPadKPassOptions options;
    options.report = report;
    pm.addPass(createScPadKPass(options));
  }
  // Step 3. The gather-add and element-wise consumers into the epilogues.
  {
    ScFuseEpiloguePassOptions options;
    options.report = report;
    pm.addPass(createScFuseEpiloguePass(options));
  }

  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::sc::buildScKernelPipeline(OpPassManager &pm,
                                     const ScKernelPipelineOptions &options) {
  bool report = options.report;
  if (report) {
    ScInferLineagePassOptions lineage;
    lineage.remarks = true;
    pm.addPass(createScInferLineagePass(lineage));
  }
  buildScIkboPipeline(pm, report, options.ikboRequestInResultType);
  // Rows concatenated along K read in place by two GEMMs (after the
  // epilogue fusion: the second's epilogue wraps the op's).
  {
    ScSplitConcatKPassOptions split;
    split.report = report;
    pm.addPass(createScSplitConcatKPass(split));
  }
  // 16-byte output rows for TMA (after the epilogue fusion: the slice it
  // leaves would stop it), and for sm_80's cp.async; with rows-by-threads
  // the kernels copy and store rows of even N in pieces, so only odd N;
  // the portable kernel of other chips takes any N.
  if (options.chip == "sm_90a" || isAmpereOrAda(options.chip)) {
    ScPadNPassOptions padN;
    padN.report = report;
    padN.oddOnly = options.rowsByThreads;
    pm.addPass(createScPadNPass(padN));
  }
  // Constant weights in hybrid tiles (after the IKBO steps: the GEMMs they
  // leave are the ones that read the weights).
  if (options.hybridTileRows > 0) {
    ScPackHybridWeightsPassOptions hybrid;
    hybrid.tileRows = options.hybridTileRows;
    hybrid.tileCols = options.hybridTileCols;
    hybrid.prune = options.hybridPrune;
    hybrid.denseBudget = options.hybridDenseBudget;
    hybrid.report = report;
    pm.addPass(createScPackHybridWeightsPass(hybrid));
  }
  // With fuse-row-sum, a sum over a GEMM's rows (a mean pooling) in the
  // GEMM's epilogue: its result is never stored (after the epilogue fusion
  // and the packing: the GEMM is then final; before generalization: its
  // zeros a linalg.fill). Opt-in: the summing epilogue costs what the
  // stores saved, and the transposed tile cannot take it
  // (docs/decisions.md).
  if (options.fuseRowSum || options.sumRowsFirst) {
    ScFuseRowSumPassOptions rowSum;
    rowSum.report = report;
    pm.addNestedPass<func::FuncOp>(createScFuseRowSumPass(rowSum));
  }
  // With sum-rows-first, such a GEMM of a shared lhs then multiplies the
  // lhs's row sum: one row instead of M (exact in real arithmetic; the
  // products' per-element rounding before the sum goes).
  if (options.sumRowsFirst) {
    ScSumRowsFirstPassOptions first;
    first.report = report;
    pm.addNestedPass<func::FuncOp>(createScSumRowsFirstPass(first));
  }
  // What stays outside the sc ops runs as generated kernels, one per
  // linalg.generic: named ops generalized, element-wise chains fused (one
  // kernel for a chain), scalar operands inlined into the bodies.
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addNestedPass<func::FuncOp>(createLinalgInlineScalarOperandsPass());
  pm.addPass(createCanonicalizerPass());
  // sm_80 / sm_86 / sm_89: the multistage GEMM (no attention kernel, no
  // warp specialization); other chips have no kernel-level IR.
  if (options.chip != "sm_90a") {
    if (!isAmpereOrAda(options.chip))
      return;
    ScSelectKernelConfigPassOptions config;
    config.chip = options.chip;
    config.report = report;
    pm.addNestedPass<func::FuncOp>(createScSelectKernelConfigPass(config));
    ScLowerToSckPassOptions lower;
    lower.report = report;
    lower.attention = true;
    lower.multistageTileCols = options.ampereGemmTileCols;
    pm.addPass(createScLowerToSckPass(lower));
    // An attention's K/V ring: 2 slots (81 KB with Q's, head dim 128: two
    // CTAs an SM on sm_80, measured faster than one CTA of 3 slots:
    // docs/decisions.md), unless asked for.
    ScPipelineMultistagePassOptions pipeline;
    pipeline.attentionStages =
        options.ampereAttentionStages ? options.ampereAttentionStages : 2;
    pm.addPass(createScPipelineMultistagePass(pipeline));
    return;
  }
  // Where the best GEMM schedule depends on the call's dims: both kernels,
  // chosen at launch. An explicit schedule or CTA pairs for every GEMM ask
  // for one kernel.
  if (options.gemmSchedule == "auto" && !options.gemmMulticast &&
      options.dispatchMinCandidatesPerUser != 0) {
    ScDispatchGemmSchedulePassOptions dispatch;
    dispatch.minCandidatesPerUser = options.dispatchMinCandidatesPerUser;
    dispatch.minBatch = options.dispatchMinBatch;
    dispatch.report = report;
    pm.addNestedPass<func::FuncOp>(createScDispatchGemmSchedulePass(dispatch));
  }
  // --autotune: the GEMMs nothing else chose for, in every schedule they
  // can take, as one tuning group each.
  if (options.autotune && options.gemmSchedule == "auto") {
    ScTuneGemmSchedulesPassOptions tune;
    tune.report = report;
    pm.addNestedPass<func::FuncOp>(createScTuneGemmSchedulesPass(tune));
  }
  {
    ScSelectKernelConfigPassOptions config;
    config.schedule = options.gemmSchedule;
    config.chainHeads = options.attentionChainHeads;
    config.groupCandidates = options.attentionGroupCandidates;
    config.pInF16 = options.attentionF16P;
    config.report = report;
    pm.addNestedPass<func::FuncOp>(createScSelectKernelConfigPass(config));
  }
  {
    ScLowerToSckPassOptions lower;
    lower.report = report;
    lower.attention = true;
    pm.addPass(createScLowerToSckPass(lower));
  }
  // Split-K of decode hybrid-tiled GEMMs and of dense GEMMs whose tiles
  // leave SMs idle, on the tile loops as built.
  if (options.hybridSplitK != 1 || options.denseSplitK) {
    ScSplitKPassOptions split;
    split.splits = options.hybridSplitK == 1 ? 0 : options.hybridSplitK.getValue();
    split.hybrid = options.hybridSplitK != 1;
    split.dense = options.denseSplitK;
    split.report = report;
    pm.addPass(createScSplitKPass(split));
  }
  if (options.wsGroup != 0) {
    ScPersistentPassOptions persistent;
    persistent.group = options.wsGroup;
    persistent.report = report;
    pm.addPass(createScPersistentPass(persistent));
  }
  // CTA pairs sharing B: for every GEMM when asked, else where pairs
  // measured faster (sck::ctaPairsByDefault).
  {
    ScMulticastPassOptions multicast;
    multicast.report = report;
    multicast.sharedRhsOnly = !options.gemmMulticast;
    pm.addPass(createScMulticastPass(multicast));
  }
  {
    ScWarpSpecializePassOptions roles;
    roles.stages = options.wsStages;
    roles.producerRegs = options.wsProducerRegs;
    roles.consumerRegs = options.wsConsumerRegs;
    roles.report = report;
    pm.addPass(createScWarpSpecializePass(roles));
  }
  // The tile a gather-add reads loads by TMA under the MMAs.
  {
    ScPrefetchEpilogueOperandsPassOptions prefetch;
    prefetch.report = report;
    pm.addPass(createScPrefetchEpilogueOperandsPass(prefetch));
  }
  // What the GEMM and attention kernels' threads order, as ops of their
  // own.
  pm.addPass(createScScheduleWgmmaPass());
  pm.addPass(createScScheduleAttentionPass());
}

void mlir::sc::registerScPipelines() {
  PassPipelineRegistration<>(
      "sc-ikbo-pipeline",
      "IKBO type I: decompose broadcast GEMMs, pad K, fuse the gather-add",
      [](OpPassManager &pm) { buildScIkboPipeline(pm); });
  PassPipelineRegistration<>(
      "sc-cpu-reference-pipeline",
      "Lower sc/linalg/tensor programs to LLVM for the host CPU (golden model)",
      buildScCpuReferencePipeline);
  PassPipelineRegistration<ScKernelPipelineOptions>(
      "sc-kernel-pipeline",
      "What sparcast-aot runs before it builds the kernels: lineage, IKBO, "
      "each op's kernel configuration and kernel-level IR",
      buildScKernelPipeline);
}
