//===- TestAttentionKernel.cpp - test pass for the attention kernel -------===//

#include "sparcast/Conversion/Passes.h"
#include "sparcast/Conversion/ScToGPU/AttentionKernel.h"

#include "llvm/Support/FormatVariadic.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCTESTATTENTIONKERNELPASS
#include "sparcast/Conversion/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScTestAttentionKernelPass
    : sc::impl::ScTestAttentionKernelPassBase<ScTestAttentionKernelPass> {
  using Base::Base;
  void runOnOperation() final {
    ModuleOp module = getOperation();
    // Collect first: kernels are appended to the module being walked.
    SmallVector<std::pair<func::FuncOp, SmallVector<AttentionOp>>> work;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<AttentionOp> ops;
      func.walk([&](AttentionOp op) { ops.push_back(op); });
      if (!ops.empty())
        work.push_back({func, ops});
    }
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    for (auto &[func, ops] : work) {
      auto gpuModule = gpu::GPUModuleOp::create(
          builder, func.getLoc(), (func.getSymName() + "_kernels").str());
      for (auto [i, op] : llvm::enumerate(ops)) {
        auto nameOf = [&](Value v) -> std::string {
          if (auto arg = dyn_cast_if_present<BlockArgument>(v))
            return llvm::formatv("arg{0}", arg.getArgNumber()).str();
          return "value";
        };
        AttentionBinding binding;
        binding.query = nameOf(op.getQuery());
        binding.key = nameOf(op.getKey());
        binding.value = nameOf(op.getValue());
        binding.index = op.getIndex() ? nameOf(op.getIndex()) : "";
        binding.result = "result";
        binding.batchSymbol = "B";
        binding.keyBatchSymbol = "U";
        binding.queryLenSymbol = "L";
        binding.keyLenSymbol = "S";
        std::string name =
            llvm::formatv("{0}_attention{1}", func.getSymName(), i);
        if (failed(buildAttentionKernel(op, gpuModule, name, binding, chip)))
          return signalPassFailure();
        op->setAttr("sc.kernel", builder.getStringAttr(name));
      }
    }
  }
};
} // namespace
