//===- TestHybridGemmKernel.cpp - test pass for the hybrid GEMM kernel ----===//

#include "TestKernelPass.h"

#include "TestPasses.h"
#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCTESTHYBRIDGEMMKERNELPASS
#include "TestPasses.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScTestHybridGemmKernelPass
    : sc::impl::ScTestHybridGemmKernelPassBase<ScTestHybridGemmKernelPass> {
  void runOnOperation() final {
    auto build = [&](BatchMatmulOp op, gpu::GPUModuleOp gpuModule,
                     StringRef name) -> LogicalResult {
      if (!isa_and_nonnull<HybridTilesAttr>(op.getRhs().getType().getEncoding()))
        return success();
      auto packed = op.getRhs().getDefiningOp<AssembleHybridOp>();
      if (!packed)
        return op.emitError("a hybrid-tiled rhs that is no sc.assemble_hybrid");
      GemmBinding binding;
      binding.lhs = sc::detail::testOperandName(op.getLhs());
      binding.result = "result";
      for (Value v : op.getEpilogueIns())
        binding.epilogueIns.push_back(sc::detail::testOperandName(v));
      binding.batchSymbol = "B";
      HybridWeightBinding weight;
      weight.kinds = sc::detail::testOperandName(packed.getKinds());
      weight.slots = sc::detail::testOperandName(packed.getSlots());
      weight.dense = sc::detail::testOperandName(packed.getDense());
      weight.sparse = sc::detail::testOperandName(packed.getSparse());
      weight.meta = sc::detail::testOperandName(packed.getMeta());
      weight.numDense = LaunchDim::sym("D");
      weight.numSparse = LaunchDim::sym("S");
      SplitKBinding split;
      if (hybridSplitOf(op).splits > 1) {
        split.partials = "partials";
        split.arrivals = "arrivals";
      }
      return buildHybridGemmKernel(op, gpuModule, name, binding, weight, split);
    };
    if (failed(sc::detail::buildTestKernels<BatchMatmulOp>(getOperation(),
                                                           "gemm", build)))
      signalPassFailure();
  }
};
} // namespace
