//===- TestAttentionKernel.cpp - test pass for the attention kernel -------===//

#include "TestKernelPass.h"

#include "TestPasses.h"
#include "sparcast/Conversion/ScToGPU/AttentionKernel.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCTESTATTENTIONKERNELPASS
#include "TestPasses.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScTestAttentionKernelPass
    : sc::impl::ScTestAttentionKernelPassBase<ScTestAttentionKernelPass> {
  using Base::Base;
  void runOnOperation() final {
    auto build = [&](AttentionOp op, gpu::GPUModuleOp gpuModule,
                     StringRef name) -> LogicalResult {
      AttentionBinding binding;
      binding.query = sc::detail::testOperandName(op.getQuery());
      binding.key = sc::detail::testOperandName(op.getKey());
      binding.value = sc::detail::testOperandName(op.getValue());
      binding.index = op.getIndex() ? sc::detail::testOperandName(op.getIndex()) : "";
      binding.result = "result";
      binding.pairs =
          getAttentionConfig(op).getWalk() == AttentionWalk::pairs ? "pairs"
                                                                   : "";
      binding.batchSymbol = "B";
      binding.keyBatchSymbol = "U";
      binding.queryLenSymbol = "L";
      binding.keyLenSymbol = "S";
      return buildAttentionKernel(op, gpuModule, name, binding, chip,
                                  fromKernelIR, ampereAttention);
    };
    if (failed(sc::detail::buildTestKernels<AttentionOp>(getOperation(),
                                                     "attention", build)))
      signalPassFailure();
  }
};
} // namespace
