//===- SelectKernelConfig.cpp - choose each op's GPU kernel --------------===//
//
// What GPU kernel an op gets (a GEMM's schedule, an attention's walk,
// consumers and key blocks) is a decision about the op, so it lives on the
// op: the passes on the kernel-level IR and the kernel builders read it
// back (KernelConfig.h), and a model can pin it per op.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/KernelConfig.h"
#include "sparcast/Transforms/Passes.h"

#define DEBUG_TYPE "sc-select-kernel-config"

namespace mlir::sc {
#define GEN_PASS_DEF_SCSELECTKERNELCONFIGPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScSelectKernelConfigPass
    : sc::impl::ScSelectKernelConfigPassBase<ScSelectKernelConfigPass> {
  using Base::Base;

  void runOnOperation() final {
    if (chip != "sm_90a") {
      // Other chips have one tensor-core GEMM kernel and no attention one.
      if (!isAmpereOrAda(chip)) {
        emitError(getOperation()->getLoc())
            << "sc-select-kernel-config: unknown chip '" << chip
            << "', expected sm_90a, sm_80, sm_86 or sm_89";
        return signalPassFailure();
      }
      getOperation()->walk([&](BatchMatmulOp op) { selectMultistage(op); });
      getOperation()->walk(
          [&](AttentionOp op) { selectMultistageAttention(op); });
      return;
    }
    std::optional<GemmSchedule> requested;
    if (schedule != "auto") {
      requested = symbolizeGemmSchedule(schedule);
      if (!requested || *requested == GemmSchedule::multistage) {
        emitError(getOperation()->getLoc())
            << "sc-select-kernel-config: unknown GEMM schedule '" << schedule
            << "', expected auto, cooperative, pingpong or transposed";
        return signalPassFailure();
      }
    }
    if (pairsMinKeys < 1 || pairsMinKeys > (int64_t(1) << 31)) {
      emitError(getOperation()->getLoc())
          << "sc-select-kernel-config: pairs-min-keys must lie in [1, 2^31], "
             "got "
          << static_cast<int64_t>(pairsMinKeys);
      return signalPassFailure();
    }
    getOperation()->walk([&](BatchMatmulOp op) { selectSchedule(op, requested); });
    getOperation()->walk([&](AttentionOp op) { selectAttentionConfig(op); });
  }

  void selectSchedule(BatchMatmulOp op, std::optional<GemmSchedule> requested) {
    std::string why;
    GemmSchedule chosen;
    auto pinned =
        op->getAttrOfType<GemmScheduleAttr>(BatchMatmulOp::getScheduleAttrName());
    std::string limitation = requested == GemmSchedule::transposed
                                 ? op.getTransposedTileLimitation()
                                 : "";
    if (!limitation.empty()) {
      // Asked of every GEMM: those it cannot take keep their default.
      chosen = defaultGemmSchedule(op, &why);
      why = "the transposed schedule cannot take it: " + limitation +
            "; default: " + why;
    } else if (requested) {
      chosen = *requested;
      why = "requested";
    } else if (pinned) {
      chosen = pinned.getValue();
      why = "pinned on the op";
    } else {
      chosen = defaultGemmSchedule(op, &why);
    }
    op->setAttr(BatchMatmulOp::getScheduleAttrName(),
                GemmScheduleAttr::get(op.getContext(), chosen));
    if (report)
      op.emitRemark() << "GEMM schedule " << stringifyGemmSchedule(chosen)
                      << " (" << why << ")";
  }

  /// sm_80 / sm_86 / sm_89: the multistage mma.sync kernel where it fits
  /// (a schedule pinned for Hopper cannot run here), else none (the
  /// portable kernel).
  void selectMultistage(BatchMatmulOp op) {
    std::string why = multistageLimitation(op);
    if (!why.empty()) {
      op->removeAttr(BatchMatmulOp::getScheduleAttrName());
      if (report)
        op.emitRemark() << "no tensor-core kernel on " << chip << ": " << why;
      return;
    }
    op->setAttr(BatchMatmulOp::getScheduleAttrName(),
                GemmScheduleAttr::get(op.getContext(), GemmSchedule::multistage));
    if (report)
      op.emitRemark() << "GEMM schedule multistage (" << chip
                      << ": cp.async ring, mma.sync)";
  }

  /// sm_80 / sm_86 / sm_89: one CTA of four warps a 64-row query tile and
  /// head, K and V through a cp.async ring in blocks of 64 keys (a
  /// 128-token mask block is two: a ring of 128-key blocks would not fit
  /// sm_86 / sm_89's shared memory, nor three slots of them sm_80's).
  void selectMultistageAttention(AttentionOp op) {
    auto config = AttentionConfigAttr::get(
        op.getContext(), AttentionWalk::grid, /*consumers=*/1, 64,
        /*groupCandidates=*/false, /*pInF16=*/false);
    op->setAttr(AttentionOp::getConfigAttrName(), config);
    if (report)
      op.emitRemark() << "attention kernel " << config << " (" << chip
                      << ": cp.async ring, mma.sync)";
  }

  void selectAttentionConfig(AttentionOp op) {
    auto pinned =
        op->getAttrOfType<AttentionConfigAttr>(AttentionOp::getConfigAttrName());
    AttentionConfigOptions options;
    options.chainHeads = chainHeads;
    options.groupCandidates = groupCandidates;
    options.pInF16 = pInF16;
    options.pairsMinKeys = pairsMinKeys;
    AttentionConfigAttr config =
        pinned ? pinned : chooseAttentionConfig(op, options);
    op->setAttr(AttentionOp::getConfigAttrName(), config);
    if (report)
      op.emitRemark() << "attention kernel " << config
                      << (pinned ? " (pinned on the op)" : "");
  }
};
} // namespace
