//===- BuildKernels.cpp - sc-build-kernels and sc-gpu-pipeline -------------===//
//
// What sparcast-aot does to a model up to the kernels, as a pass: each
// public function's kernels (EntryCompiler) in a gpu.module of the module,
// @<entry>_kernels, and the function's manifest entry (its tensors and
// launches, JSON) in its `sc.manifest_entry` attribute. With the kernel
// pipeline before it, `sparcast-opt --sc-gpu-pipeline` shows the kernels an
// artifact ships; `sparcast-translate --mlir-to-ptx` compiles them.
//
//===----------------------------------------------------------------------===//

#include "EntryCompiler.h"

#include "sparcast/Pipelines/Pipelines.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::aot;

namespace {
struct ScBuildKernelsPass
    : PassWrapper<ScBuildKernelsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ScBuildKernelsPass)

  ScBuildKernelsPass() = default;
  ScBuildKernelsPass(const ScBuildKernelsPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "sc-build-kernels"; }
  StringRef getDescription() const final {
    return "Each public function's GPU kernels in a gpu.module, its "
           "manifest entry (tensors and launches) in sc.manifest_entry";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<gpu::GPUDialect>();
  }

  Option<std::string> chip{*this, "sm", llvm::cl::desc("Target chip"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> schedule{
      *this, "gemm-schedule",
      llvm::cl::desc("auto, cooperative, pingpong or transposed"),
      llvm::cl::init("auto")};

  void runOnOperation() final {
    ModuleOp module = getOperation();
    AotOptions options;
    options.chip = chip;
    options.schedule = schedule;
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isPrivate() && !func.isExternal())
        entries.push_back(func);
    for (func::FuncOp func : entries) {
      OpBuilder b(func.getContext());
      b.setInsertionPointAfter(func);
      auto gpuModule = gpu::GPUModuleOp::create(
          b, func.getLoc(), (func.getSymName() + "_kernels").str());
      EntryCompiler entry(func, gpuModule, options, /*report=*/nullptr);
      if (failed(entry.compile()))
        return signalPassFailure();
      std::string text =
          llvm::formatv("{0}", json::Value(entry.takeManifestEntry())).str();
      func->setAttr("sc.manifest_entry", b.getStringAttr(text));
    }
  }
};
} // namespace

void mlir::sc::registerSparcastAOTPasses() {
  PassRegistration<ScBuildKernelsPass>();
  PassPipelineRegistration<ScKernelPipelineOptions>(
      "sc-gpu-pipeline",
      "What sparcast-aot runs up to the kernels: sc-kernel-pipeline, then "
      "sc-build-kernels (each entry's kernels in a gpu.module)",
      [](OpPassManager &pm, const ScKernelPipelineOptions &options) {
        buildScKernelPipeline(pm, options);
        auto build = std::make_unique<ScBuildKernelsPass>();
        build->chip = options.chip;
        build->schedule = options.gemmSchedule;
        pm.addPass(std::move(build));
      });
}
