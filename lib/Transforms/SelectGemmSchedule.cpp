//===- SelectGemmSchedule.cpp - choose each GEMM's GPU schedule -----------===//
//
// The schedule of a GEMM kernel (simple, warp-specialized cooperative,
// ping-pong or transposed) is a decision about the op, so it lives on the op: the kernel
// generator reads `sc.gemm_schedule`, and a model can pin it per op.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#define DEBUG_TYPE "sc-select-gemm-schedule"

namespace mlir::sc {
#define GEN_PASS_DEF_SCSELECTGEMMSCHEDULEPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScSelectGemmSchedulePass
    : sc::impl::ScSelectGemmSchedulePassBase<ScSelectGemmSchedulePass> {
  using Base::Base;
  void runOnOperation() final {
    if (schedule != "auto" && !sc::BatchMatmulOp::isKnownSchedule(schedule)) {
      getOperation()->emitError()
          << "unknown GEMM schedule '" << schedule
          << "', expected auto, simple, cooperative, pingpong or transposed";
      return signalPassFailure();
    }
    StringRef name = sc::BatchMatmulOp::getScheduleAttrName();
    getOperation()->walk([&](sc::BatchMatmulOp op) {
      std::string why;
      StringRef chosen;
      std::string limitation =
          schedule == "transposed" ? op.getTransposedTileLimitation() : "";
      if (!limitation.empty()) {
        // Asked of every GEMM: those it cannot take keep their default.
        chosen = op.getDefaultSchedule(&why);
        why = "the transposed schedule cannot take it: " + limitation +
              "; default: " + why;
      } else if (schedule != "auto") {
        chosen = schedule;
        why = "requested";
      } else if (auto pinned = op->getAttrOfType<StringAttr>(name)) {
        chosen = pinned.getValue();
        why = "pinned on the op";
      } else {
        chosen = op.getDefaultSchedule(&why);
      }
      op->setAttr(name, StringAttr::get(op.getContext(), chosen));
      if (report)
        op.emitRemark() << "GEMM schedule " << chosen << " (" << why << ")";
    });
  }
};
} // namespace
