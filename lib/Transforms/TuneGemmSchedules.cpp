//===- TuneGemmSchedules.cpp - a GEMM's schedules as tuning candidates ----===//
//
// sc-tune-gemm-schedules (sparcast-aot --autotune): each Hopper GEMM that
// nothing pinned becomes an scf.index_switch on a constant over copies of
// itself, one per schedule it can take: the default region keeps the
// heuristics' schedule (what runs until the runtime has measured), the
// cases the others. sparcast-aot makes them one `tune` group.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCTUNEGEMMSCHEDULESPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// The schedules `op` can take, the heuristics' first; empty when `op` is
/// not a candidate (pinned, already dispatched, not 16-bit, hybrid-tiled).
SmallVector<GemmSchedule> candidates(BatchMatmulOp op) {
  Type element = op.getLhs().getType().getElementType();
  if (op->hasAttr(BatchMatmulOp::getScheduleAttrName()) ||
      op->getParentOfType<scf::IfOp>() || op->getParentOfType<scf::IndexSwitchOp>() ||
      !(element.isF16() || element.isBF16()) ||
      op.getRhs().getType().getEncoding())
    return {};
  GemmSchedule first = defaultGemmSchedule(op);
  SmallVector<GemmSchedule> out = {first};
  for (GemmSchedule s : {GemmSchedule::pingpong, GemmSchedule::cooperative,
                         GemmSchedule::transposed}) {
    if (s == first ||
        (s == GemmSchedule::transposed && !op.getTransposedTileLimitation().empty()))
      continue;
    out.push_back(s);
  }
  return out.size() > 1 ? out : SmallVector<GemmSchedule>();
}

/// `op` with schedule `s`, cloned at `b` and yielded.
void yieldCopy(OpBuilder &b, BatchMatmulOp op, GemmSchedule s) {
  Operation *copy = b.clone(*op);
  copy->setAttr(BatchMatmulOp::getScheduleAttrName(),
                GemmScheduleAttr::get(op.getContext(), s));
  scf::YieldOp::create(b, op.getLoc(), copy->getResults());
}

struct ScTuneGemmSchedulesPass
    : sc::impl::ScTuneGemmSchedulesPassBase<ScTuneGemmSchedulesPass> {
  using Base::Base;

  void runOnOperation() final {
    SmallVector<BatchMatmulOp> ops;
    getOperation()->walk([&](BatchMatmulOp op) { ops.push_back(op); });
    for (BatchMatmulOp op : ops) {
      SmallVector<GemmSchedule> schedules = candidates(op);
      if (schedules.empty())
        continue;
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      SmallVector<int64_t> cases;
      for (int64_t i = 1; i < static_cast<int64_t>(schedules.size()); ++i)
        cases.push_back(i);
      auto versions = scf::IndexSwitchOp::create(b, loc, op->getResultTypes(),
                                                 zero, cases, cases.size());
      for (auto [i, region] : llvm::enumerate(versions.getCaseRegions())) {
        OpBuilder at = OpBuilder::atBlockBegin(&region.emplaceBlock());
        yieldCopy(at, op, schedules[i + 1]);
      }
      OpBuilder at =
          OpBuilder::atBlockBegin(&versions.getDefaultRegion().emplaceBlock());
      yieldCopy(at, op, schedules.front());
      if (report) {
        InFlightDiagnostic remark =
            op.emitRemark("GEMM schedules tuned at run time: ");
        for (auto [i, s] : llvm::enumerate(schedules))
          remark << (i ? ", " : "") << stringifyGemmSchedule(s)
                 << (i ? "" : " (default)");
      }
      op->replaceAllUsesWith(versions.getResults());
      op->erase();
    }
  }
};

} // namespace
