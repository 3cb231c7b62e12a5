//===- FuseGemmStages.cpp - mark GEMMs that run as stage 1 of another ------===//
//
// A GEMM whose result only another GEMM's epilogue reads (IKBO's user GEMM
// under the candidate GEMM's gather-add) can run in that GEMM's persistent
// kernel, as its first stage: the decision is recorded on the first GEMM
// (`sc.gemm_stage1`) and the kernel generator reads it.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Transforms/KernelConfig.h"
#include "sparcast/Support/Locations.h"

#define DEBUG_TYPE "sc-fuse-gemm-stages"

namespace mlir::sc {
#define GEN_PASS_DEF_SCFUSEGEMMSTAGESPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;


namespace {
struct ScFuseGemmStagesPass
    : sc::impl::ScFuseGemmStagesPassBase<ScFuseGemmStagesPass> {
  using Base::Base;
  void runOnOperation() final {
    getOperation()->walk([&](BatchMatmulOp stage2) {
      for (Value in : stage2.getEpilogueIns()) {
        auto stage1 = in.getDefiningOp<BatchMatmulOp>();
        if (!stage1 || stage1->hasAttr(BatchMatmulOp::getStageOneAttrName()))
          continue;
        std::string why = stage2.getStageFusionLimitation(stage1);
        GemmSchedule s1 = getGemmSchedule(stage1), s2 = getGemmSchedule(stage2);
        if (why.empty() && (s1 != s2 || s2 == GemmSchedule::simple))
          why = ("both GEMMs need the same warp-specialized schedule, got " +
                 stringifyGemmSchedule(s1) + " and " + stringifyGemmSchedule(s2))
                    .str();
        if (!why.empty()) {
          if (report)
            stage2.emitRemark() << "GEMM stages not fused: " << why;
          continue;
        }
        stage1->setAttr(BatchMatmulOp::getStageOneAttrName(),
                        UnitAttr::get(&getContext()));
        if (report)
          stage2.emitRemark()
              << "GEMM stages fused: the GEMM at " << fileLineOf(stage1.getLoc())
              << " runs as stage 1 of this GEMM's kernel";
        break; // one stage 1 per kernel
      }
    });
  }
};
} // namespace
