//===- TestGemmKernel.cpp - test pass for the GEMM kernel generator -------===//

#include "TestKernelPass.h"

#include "TestPasses.h"
#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "sc-test-gemm-kernel"

namespace mlir::sc {
#define GEN_PASS_DEF_SCTESTGEMMKERNELPASS
#include "TestPasses.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScTestGemmKernelPass
    : sc::impl::ScTestGemmKernelPassBase<ScTestGemmKernelPass> {
  using Base::Base;
  void runOnOperation() final {
    auto build = [&](BatchMatmulOp op, gpu::GPUModuleOp gpuModule,
                     StringRef name) -> LogicalResult {
      GemmBinding binding;
      binding.lhs = sc::detail::testOperandName(op.getLhs());
      binding.rhs = sc::detail::testOperandName(op.getRhs());
      binding.result = "result";
      for (Value v : op.getEpilogueIns())
        binding.epilogueIns.push_back(sc::detail::testOperandName(v));
      binding.batchSymbol = "B";
      if (denseSplitOf(op).maxParts > 0) {
        binding.split.partials = "result.partials";
        binding.split.arrivals = "result.arrivals";
      }
      GemmKernelOptions options;
      options.chip = chip;
      options.schedule = schedule;
      return buildGemmKernel(op, gpuModule, name, binding, options);
    };
    if (failed(sc::detail::buildTestKernels<BatchMatmulOp>(getOperation(), "gemm",
                                                       build)))
      signalPassFailure();
  }
};
} // namespace
