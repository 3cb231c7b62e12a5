//===- TestGemmKernel.cpp - test pass for the GEMM kernel generator -------===//

#include "sparcast/Conversion/Passes.h"
#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "sc-test-gemm-kernel"

namespace mlir::sc {
#define GEN_PASS_DEF_SCTESTGEMMKERNELPASS
#include "sparcast/Conversion/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScTestGemmKernelPass
    : sc::impl::ScTestGemmKernelPassBase<ScTestGemmKernelPass> {
  using Base::Base;
  void runOnOperation() final {
    ModuleOp module = getOperation();
    // Collect first: kernels are appended to the module being walked.
    SmallVector<std::pair<func::FuncOp, SmallVector<BatchMatmulOp>>> work;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<BatchMatmulOp> ops;
      func.walk([&](BatchMatmulOp op) { ops.push_back(op); });
      if (!ops.empty())
        work.push_back({func, ops});
    }
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    for (auto &[func, ops] : work) {
      auto gpuModule = gpu::GPUModuleOp::create(
          builder, func.getLoc(), (func.getSymName() + "_kernels").str());
      for (auto [i, op] : llvm::enumerate(ops)) {
        GemmBinding binding;
        auto nameOf = [&](Value v) -> std::string {
          if (auto arg = dyn_cast<BlockArgument>(v))
            return llvm::formatv("arg{0}", arg.getArgNumber()).str();
          return "value";
        };
        binding.lhs = nameOf(op.getLhs());
        binding.rhs = nameOf(op.getRhs());
        binding.result = "result";
        for (Value v : op.getEpilogueIns())
          binding.epilogueIns.push_back(nameOf(v));
        binding.batchSymbol = "B";
        GemmKernelOptions options;
        options.chip = chip;
        options.stages = stages;
        options.tileN = tileN;
        options.schedule = schedule;
        std::string name = llvm::formatv("{0}_gemm{1}", func.getSymName(), i);
        if (failed(buildGemmKernel(op, gpuModule, name, binding, options)))
          return signalPassFailure();
        op->setAttr("sc.kernel", builder.getStringAttr(name));
      }
    }
  }
};
} // namespace
