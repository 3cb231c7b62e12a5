//===- DispatchGemmSchedule.cpp - a GEMM's schedule chosen at run time ----===//
//
// Which kernel is fastest for IKBO's candidate GEMM depends on how many
// candidates share a user, which only the call knows (B and U are dynamic):
// the op is versioned under an scf.if over its dims, one copy per schedule,
// and sparcast-aot makes the condition the launches' `when`.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "sc-dispatch-gemm-schedule"

namespace mlir::sc {
#define GEN_PASS_DEF_SCDISPATCHGEMMSCHEDULEPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

/// The epilogue operand `op` reads through an index (at [g(b), m, n] with
/// g not b itself: the request result of IKBO's gather-add), or null with
/// `why` set. Only an f32 one: the transposed kernel brings those in by
/// TMA during its wgmma, an f16 one (--ikbo-request-in-result-type) it
/// reads in the epilogue, which is slower than ping-pong's with any number
/// of users (docs/decisions.md).
static Value gatheredEpilogueOperand(BatchMatmulOp op, std::string &why) {
  if (op.getEpilogue().empty()) {
    why = "it has no epilogue region";
    return Value();
  }
  Value batchIndex = op.getEpilogue().front().getArgument(1);
  for (auto [i, in] : llvm::enumerate(op.getEpilogueIns())) {
    auto type = dyn_cast<RankedTensorType>(in.getType());
    if (!type || type.getRank() != 3 || !type.isDynamicDim(0))
      continue;
    std::string unused;
    Value g = op.getGatheredTileIndex(i, unused);
    if (!g || g == batchIndex)
      continue;
    if (type.getElementType().isF32())
      return in;
    why = "the operand its epilogue reads through the index is not f32";
    return Value();
  }
  why = "its epilogue reads no operand of a dynamic batch through an index";
  return Value();
}

namespace {
struct ScDispatchGemmSchedulePass
    : sc::impl::ScDispatchGemmSchedulePassBase<ScDispatchGemmSchedulePass> {
  using Base::Base;

  /// Why `op` keeps one schedule, or an empty string.
  std::string limitation(BatchMatmulOp op, Value &gathered) {
    if (op->hasAttr(BatchMatmulOp::getScheduleAttrName()))
      return "it has a schedule already";
    // (sparcast-aot compiles one level of dispatch.)
    if (op->getParentOfType<scf::IfOp>())
      return "it is inside an scf.if already";
    std::string why = op.getTransposedTileLimitation();
    if (!why.empty())
      return "the transposed schedule cannot take it: " + why;
    // A result of 128 columns or fewer gets a narrow ping-pong tile
    // (gemmTileCols), faster than the transposed tile's 128-column side
    // (the ranking model's N = 32 LCE at 4,096 candidates: 205 against
    // 277 us, H100).
    int64_t n = op.getType().getDimSize(2);
    if (!ShapedType::isDynamic(n) && gemmTileCols(n) < 256)
      return "its " + std::to_string(n) +
             " columns fit a narrow ping-pong tile (faster than the "
             "transposed tile there)";
    gathered = gatheredEpilogueOperand(op, why);
    return gathered ? "" : why;
  }

  void runOnOperation() final {
    if (minCandidatesPerUser < 1 || minBatch < 0) {
      getOperation()->emitError()
          << "min-candidates-per-user must be at least 1 and min-batch at "
             "least 0, got "
          << static_cast<int64_t>(minCandidatesPerUser) << " and "
          << static_cast<int64_t>(minBatch);
      return signalPassFailure();
    }
    SmallVector<BatchMatmulOp> gemms;
    getOperation()->walk([&](BatchMatmulOp op) { gemms.push_back(op); });
    for (BatchMatmulOp op : gemms) {
      Value gathered;
      std::string why = limitation(op, gathered);
      if (!why.empty()) {
        if (report)
          op.emitRemark() << "GEMM schedule not dispatched: " << why;
        continue;
      }
      dispatch(op, gathered);
    }
  }

  void dispatch(BatchMatmulOp op, Value gathered) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    // The batched operand's batch is the op's (the transposed schedule
    // needs a shared lhs, so it is the rhs).
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value candidates = tensor::DimOp::create(b, loc, op.getRhs(), zero);
    Value users = tensor::DimOp::create(b, loc, gathered, zero);
    Value factor = arith::ConstantIndexOp::create(b, loc, minCandidatesPerUser);
    Value least = arith::MulIOp::create(b, loc, users, factor);
    Value many = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                       candidates, least);
    if (minBatch > 0) {
      Value large = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::sge, candidates,
          arith::ConstantIndexOp::create(b, loc, minBatch));
      many = arith::AndIOp::create(b, loc, many, large);
    }
    GemmSchedule fallback = defaultGemmSchedule(op);
    auto branch = [&](GemmSchedule schedule) {
      return [&op, schedule](OpBuilder &nested, Location at) {
        Operation *copy = nested.clone(*op.getOperation());
        copy->setAttr(BatchMatmulOp::getScheduleAttrName(),
                      GemmScheduleAttr::get(nested.getContext(), schedule));
        scf::YieldOp::create(nested, at, copy->getResult(0));
      };
    };
    auto dispatched = scf::IfOp::create(
        b, loc, many, branch(GemmSchedule::transposed), branch(fallback));
    if (report)
      op.emitRemark() << "GEMM schedule dispatched at run time: transposed "
                         "when B >= "
                      << static_cast<int64_t>(minCandidatesPerUser)
                      << " x the users (the request tiles then stay in L2)"
                      << (minBatch > 0 ? " and B >= " + std::to_string(minBatch)
                                       : std::string())
                      << ", else " << stringifyGemmSchedule(fallback);
    op.getResult().replaceAllUsesWith(dispatched.getResult(0));
    op.erase();
  }
};
} // namespace
