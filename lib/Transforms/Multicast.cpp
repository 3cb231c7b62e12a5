//===- Multicast.cpp - CTA pairs sharing B by TMA multicast ----------------===//
//
// A GEMM whose B box is re-read for every M tile (the LCE's candidate GEMM:
// 7 M tiles per batch element) moves most of its L2 traffic in B. CTAs in
// pairs on pairs of M tiles can load half of each B box each and multicast
// it to both. The pairs wait on each other, so the loop must be persistent
// (every CTA resident); the stages of a multi-stage kernel are left as
// they are (the generator does not pair them).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCMULTICASTPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;

namespace {
/// The schedule of the GEMM whose kernel function holds `loop`.
StringRef kernelSchedule(sck::TileLoopOp loop) {
  auto func = loop->getParentOfType<func::FuncOp>();
  auto schedule =
      func ? func->getAttrOfType<StringAttr>("sck.schedule") : StringAttr();
  return schedule ? schedule.getValue() : StringRef();
}

/// Where CTA pairs measured faster: a cooperative or ping-pong GEMM's tile
/// loop whose A box carries a batch coordinate and whose B box does not
/// (x @ w: the shared rhs every tile reads; H200, 1024 x 433 x 872 by 256:
/// cooperative 0.70x without pairs in session 11, ping-pong 0.797 -> 0.469
/// ms in session 19), and the transposed tile's loop over an even number
/// of N tiles (pairs of N tiles share W's rows).
bool pairsMeasuredFaster(sck::TileLoopOp loop) {
  StringRef schedule = kernelSchedule(loop);
  if (schedule == "transposed") {
    std::optional<int64_t> nTiles = getConstantIntValue(loop.getNTiles());
    return nTiles && *nTiles % 2 == 0;
  }
  if (schedule != "cooperative" && schedule != "pingpong")
    return false;
  int aCoords = -1, bCoords = -1;
  loop.walk([&](sck::LoadOp load) {
    int coords = static_cast<int>(load.getCoords().size());
    if (load.getOperand() == "A")
      aCoords = coords;
    else if (load.getOperand() == "B")
      bCoords = coords;
  });
  return aCoords == 3 && bCoords == 2;
}

struct ScMulticastPass : sc::impl::ScMulticastPassBase<ScMulticastPass> {
  using Base::Base;
  void runOnOperation() final {
    WalkResult walk = getOperation()->walk([&](sck::TileLoopOp loop) {
      // Multicast shares a GEMM's B between CTA pairs: not attention's.
      if (loop.isAttention())
        return WalkResult::advance();
      // Another tile loop in the same block: a multi-stage kernel.
      Block *block = loop->getBlock();
      if (llvm::count_if(block->getOps<sck::TileLoopOp>(),
                         [](sck::TileLoopOp) { return true; }) > 1)
        return WalkResult::advance();
      if (sharedRhsOnly &&
          (loop.getSchedule() != "persistent" || !pairsMeasuredFaster(loop)))
        return WalkResult::advance();
      if (loop.getSchedule() != "persistent") {
        loop.emitError("multicast pairs CTAs that wait on each other: the "
                       "tile loop must be persistent (run sc-persistent)");
        return WalkResult::interrupt();
      }
      loop.setClusterAttr(Builder(loop.getContext()).getI64IntegerAttr(2));
      if (report)
        loop.emitRemark(kernelSchedule(loop) == "transposed"
                            ? "tile loop: CTA pairs on pairs of N tiles, the "
                              "shared lhs (W) by TMA multicast"
                            : "tile loop: CTA pairs on pairs of M tiles, B "
                              "shared by TMA multicast");
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
