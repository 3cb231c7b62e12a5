//===- Artifact.cpp - compile a model module into an artifact directory ---===//
//
// The tensor-level and kernel-level passes, then one EntryCompiler per
// public function, then the files: a .ptx (and .cubin) per kernel module,
// manifest.json and the C header.
//
//===----------------------------------------------------------------------===//

#include "EntryCompiler.h"

#include "sparcast/Pipelines/Pipelines.h"
#include "sparcast/Target/PTX.h"
#include "sparcast/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::aot;

static LogicalResult writeFile(Operation *anchor, StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return anchor->emitError() << "cannot write " << path << ": "
                               << ec.message();
  os << data;
  return success();
}

/// Options the kernels cannot honour are errors, not silently dropped.
static LogicalResult checkOptions(ModuleOp module, const AotOptions &options) {
  if (!isSupportedChip(options.chip))
    return module.emitError() << "unsupported chip '" << options.chip << "'";
  return success();
}

/// A tensor encoding (a layout such as #sc.hybrid_tiles or #sc.block_csr)
/// that no pass lowers would be dropped and a dense kernel compiled over
/// packed data: refuse it where it appears.
static LogicalResult checkNoEncodings(ModuleOp module) {
  auto encodingOf = [](Type type) -> Attribute {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor ? tensor.getEncoding() : Attribute();
  };
  WalkResult result = module.walk([&](Operation *op) {
    // A hybrid-tiled weight assembled from its packed buffers is lowered
    // (the GEMM that reads it runs the hybrid kernel).
    // Sparse rows assembled from their buffers are read by the similarity
    // kernels (sc.sparse_matmul) and nothing else.
    if (isa<AssembleHybridOp, AssembleCsrOp>(op))
      return WalkResult::advance();
    SmallVector<Type> types(op->getResultTypes());
    if (auto func = dyn_cast<func::FuncOp>(op))
      llvm::append_range(types, func.getArgumentTypes());
    for (Type type : types)
      if (Attribute encoding = encodingOf(type)) {
        if (isa<BlockCsrAttr>(encoding)) {
          op->emitError() << "sparcast-aot: sparse rows (" << encoding
                          << ") reach the GPU only as sc.assemble_csr of the "
                             "entry's buffers";
          return WalkResult::interrupt();
        }
        op->emitError() << "sparcast-aot: tensor encoding " << encoding
                        << " is not supported yet (no pass lowers it; a "
                           "dense kernel would read packed data)";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The passes before the kernels are built (sc-kernel-pipeline), as the
/// options ask; with a report, what they decided (their remarks) goes into
/// it.
static LogicalResult runModelPasses(ModuleOp module, const AotOptions &options,
                                    raw_ostream *report) {
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<gpu::GPUDialect>();
  {
    std::optional<ScopedDiagnosticHandler> remarks;
    if (report)
      remarks.emplace(ctx, [&](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() != DiagnosticSeverity::Remark)
          return failure();
        if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
          *report << llvm::sys::path::filename(loc.getFilename()) << ":"
                  << loc.getLine() << ": ";
        *report << diag.str() << "\n";
        return success();
      });
    ScKernelPipelineOptions pipeline;
    pipeline.chip = options.chip;
    pipeline.report = report != nullptr;
    pipeline.ikboRequestInResultType = options.ikboRequestInResultType;
    pipeline.gemmSchedule = options.schedule;
    pipeline.dispatchMinCandidatesPerUser = options.dispatchMinCandidatesPerUser;
    pipeline.dispatchMinBatch = options.dispatchMinBatch;
    pipeline.gemmMulticast = options.gemmMulticast;
    pipeline.autotune = options.autotune;
    pipeline.attentionChainHeads = options.attentionChainHeads;
    pipeline.attentionGroupCandidates = options.attentionGroupCandidates;
    pipeline.attentionF16P = options.attentionF16P;
    pipeline.wsGroup = options.wsGroup;
    pipeline.wsStages = options.wsStages;
    pipeline.wsProducerRegs = options.wsProducerRegs;
    pipeline.wsConsumerRegs = options.wsConsumerRegs;
    pipeline.hybridTileRows = options.hybridTileRows;
    pipeline.hybridTileCols = options.hybridTileCols;
    pipeline.hybridPrune = options.hybridPrune;
    pipeline.hybridDenseBudget = options.hybridDenseBudget;
    pipeline.hybridSplitK = options.hybridSplitK;
    pipeline.denseSplitK = options.denseSplitK;
    pipeline.fuseRowSum = options.fuseRowSum;
    pipeline.sumRowsFirst = options.sumRowsFirst;
    pipeline.rowsByThreads = options.rowsByThreads;
    pipeline.ampereAttentionStages = options.ampereAttentionStages;
    pipeline.ampereGemmTileCols = options.ampereGemmTileCols;
    PassManager pm(ctx);
    buildScKernelPipeline(pm, pipeline);
    if (failed(pm.run(module)))
      return failure();
  }
  return success();
}

/// Every gpu.module of `kernels` to PTX in `outDir`, and to a cubin when
/// ptxas exists; their manifest objects go to `modulesJson`.
static LogicalResult writeKernelModules(ModuleOp module, ModuleOp kernels,
                                        const AotOptions &options,
                                        StringRef outDir, raw_ostream *report,
                                        json::Array &modules) {
  // Compile every gpu.module; keep the PTX, and the cubin when ptxas exists.
  PTXOptions ptxOptions;
  ptxOptions.chip = options.chip;
  for (auto gpuModule : kernels.getOps<gpu::GPUModuleOp>()) {
    FailureOr<std::vector<PTXModule>> ptx = compileToPTX(gpuModule, ptxOptions);
    if (failed(ptx))
      return failure();
    std::string name = gpuModule.getName().str();
    SmallString<128> ptxPath(outDir);
    llvm::sys::path::append(ptxPath, name + ".ptx");
    if (failed(writeFile(module, ptxPath, ptx->front().ptx)))
      return failure();
    json::Object moduleJson{{key::kName, name}, {key::kPtx, name + ".ptx"}};
    std::string error;
    if (findPtxas()) {
      FailureOr<PtxasResult> cubin = assembleWithPtxas(
          ptx->front().ptx, options.chip, /*verbose=*/true, error);
      if (failed(cubin))
        return module.emitError() << error;
      std::string cubinName = name + "." + options.chip + ".cubin";
      SmallString<128> cubinPath(outDir);
      llvm::sys::path::append(cubinPath, cubinName);
      if (failed(writeFile(module, cubinPath, cubin->cubin)))
        return failure();
      moduleJson[key::kCubin] = cubinName;
      moduleJson[key::kChip] = options.chip;
      if (report)
        *report << "ptxas " << name << ":\n" << cubin->log;
    } else if (report) {
      *report << "ptxas not found: " << name << " ships as PTX only\n";
    }
    modules.push_back(std::move(moduleJson));
  }
  return success();
}

LogicalResult mlir::sc::compileArtifact(ModuleOp module,
                                        const AotOptions &options,
                                        StringRef outDir, raw_ostream *report) {
  if (failed(checkOptions(module, options)) || failed(checkNoEncodings(module)))
    return failure();
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return module.emitError() << "cannot create " << outDir << ": "
                              << ec.message();
  if (failed(runModelPasses(module, options, report)))
    return failure();
  MLIRContext *ctx = module.getContext();
  OpBuilder builder(ctx);
  OwningOpRef<ModuleOp> kernels = ModuleOp::create(module.getLoc());

  json::Array entries;
  std::string header =
      llvm::formatv("/* Generated by sparcast-aot: entry points of model "
                    "'{0}'. Load the artifact directory with scModuleLoad(). "
                    "*/\n#ifndef SPARCAST_MODEL_{0}_H\n#define "
                    "SPARCAST_MODEL_{0}_H\n\n#include \"sparcast/runtime.h\"\n",
                    options.modelName)
          .str();

  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isExternal())
      continue;
    StringRef entryName = func.getSymName();
    auto gpuModule = gpu::GPUModuleOp::create(
        builder, func.getLoc(), (entryName + "_kernels").str());
    kernels->getBody()->push_back(gpuModule);
    EntryCompiler entry(func, gpuModule, options, report);
    if (failed(entry.compile()))
      return failure();
    std::string doc = entry.headerDoc();
    size_t numArgs = entry.args.size(), numResults = entry.results.size();
    entries.push_back(entry.takeManifestEntry());
    header += llvm::formatv(
        "\n/* Entry '{0}':\n{1} */\nstatic inline scStatus sc_{0}(scModule *m, "
        "const scTensor args[{2}], const scTensor results[{3}], void *stream) "
        "{{\n  return scRun(m, \"{0}\", args, {2}, results, {3}, stream, 0);\n}\n",
        entryName, doc, numArgs, numResults);
  }

  json::Array modules;
  if (failed(writeKernelModules(module, *kernels, options, outDir, report,
                                modules)))
    return failure();

  json::Object manifest{{key::kFormat, kFormatVersion},
                        {key::kChip, options.chip},
                        {key::kModules, std::move(modules)},
                        {key::kEntries, std::move(entries)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(manifest))) << "\n";
  SmallString<128> manifestPath(outDir), headerPath(outDir);
  llvm::sys::path::append(manifestPath, "manifest.json");
  llvm::sys::path::append(headerPath, options.modelName + ".h");
  header += "\n#endif\n";
  if (failed(writeFile(module, manifestPath, text)) ||
      failed(writeFile(module, headerPath, header)))
    return failure();
  return success();
}
