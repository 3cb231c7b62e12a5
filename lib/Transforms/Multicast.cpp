//===- Multicast.cpp - CTA pairs sharing B by TMA multicast ----------------===//
//
// A GEMM whose B box is re-read for every M tile (the LCE's candidate GEMM:
// 7 M tiles per batch element) moves most of its L2 traffic in B. CTAs in
// pairs on pairs of M tiles can load half of each B box each and multicast
// it to both. The pairs wait on each other, so the loop must be persistent
// (every CTA resident); tile loops that share a block with another are
// left as they are (the GPU kernels take one loop a role). A hybrid-tiled
// GEMM's prefill tiles (128 weight rows on two consumers) re-read the
// tokens' box for every 128 rows of W: with `hybrid-pairs`, CTAs in pairs
// on pairs of N tiles (a cluster the launch co-schedules) share it.
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
/// Whether CTA pairs are the default for `loop`'s GEMM
/// (sck::ctaPairsByDefault), read from the kernel IR: A or B batched when
/// its box carries a batch coordinate, A also when neither does (a GEMM
/// has a batched operand: A read as flat rows), N tiles from the loop.
bool pairsMeasuredFaster(sck::TileLoopOp loop) {
  int aCoords = -1, bCoords = -1;
  loop.walk([&](sck::LoadOp load) {
    int coords = static_cast<int>(load.getCoords().size());
    if (load.getOperand() == "A")
      aCoords = coords;
    else if (load.getOperand() == "B")
      bCoords = coords;
  });
  std::optional<int64_t> nTiles = getConstantIntValue(loop.getNTiles());
  std::optional<sck::KernelSchedule> schedule = sck::kernelSchedule(loop);
  return sck::ctaPairsByDefault(
      schedule ? sck::stringifyKernelSchedule(*schedule) : StringRef(),
                                aCoords == 3 || bCoords == 2, bCoords == 3,
                                nTiles && *nTiles % 2 == 0);
}

/// Whether a hybrid-tiled GEMM's tile loop can run in CTA pairs sharing
/// the tokens' box: two consumers (a 128-row band of W), an even number of
/// N tiles (the pairs' tiles are consecutive), a token tile of two halves
/// of whole 128B-swizzle atoms.
bool hybridTakesPairs(sck::TileLoopOp loop) {
  auto kernel = loop->getParentOfType<func::FuncOp>();
  auto consumers =
      kernel ? kernel->getAttrOfType<IntegerAttr>(sck::kConsumersAttrName)
             : IntegerAttr();
  std::optional<int64_t> nTiles = getConstantIntValue(loop.getNTiles());
  bool halves = false;
  loop.walk([&](sck::LoadOp load) {
    if (load.getOperand() == "A")
      halves = load.getTransposed() && load.getType().getShape()[1] % 16 == 0;
  });
  return consumers && consumers.getInt() == 2 && nTiles && *nTiles % 2 == 0 &&
         halves;
}

struct ScMulticastPass : sc::impl::ScMulticastPassBase<ScMulticastPass> {
  using Base::Base;
  void runOnOperation() final {
    WalkResult walk = getOperation()->walk([&](sck::TileLoopOp loop) {
      // A hybrid-tiled GEMM's pairs share the tokens (its weight tiles'
      // boxes differ by kind).
      if (sck::kernelSchedule(loop) == sck::KernelSchedule::hybrid) {
        if (hybridPairs && hybridTakesPairs(loop)) {
          loop.setClusterAttr(Builder(loop.getContext()).getI64IntegerAttr(2));
          if (report)
            loop.emitRemark("tile loop: CTA pairs on pairs of N tiles (W's "
                            "bands), the tokens' box shared by TMA "
                            "multicast");
        }
        return WalkResult::advance();
      }
      // Multicast shares a GEMM's B between CTA pairs: not attention's.
      if (loop.isAttention() ||
          sck::kernelSchedule(loop) == sck::KernelSchedule::multistage)
        return WalkResult::advance();
      // Another tile loop in the same block: not a kernel sck-to-nvgpu
      // writes.
      Block *block = loop->getBlock();
      if (llvm::count_if(block->getOps<sck::TileLoopOp>(),
                         [](sck::TileLoopOp) { return true; }) > 1)
        return WalkResult::advance();
      if (sharedRhsOnly &&
          (loop.getSchedule() != sck::TileSchedule::persistent || !pairsMeasuredFaster(loop)))
        return WalkResult::advance();
      // The pair splits B's box in four 64-column parts: a tile of 256
      // columns only (the transposed tile splits W's rows instead), loaded
      // by TMA (not by threads).
      bool narrow = false;
      loop.walk([&](sck::LoadOp load) {
        ArrayRef<int64_t> box = load.getType().getShape();
        narrow |= load.getByThreads();
        narrow |= load.getOperand() == "B" &&
                  sck::kernelSchedule(loop) != sck::KernelSchedule::transposed && box.size() == 2 &&
                  box[0] * box[1] < 64 * 256;
      });
      if (narrow)
        return WalkResult::advance();
      if (loop.getSchedule() != sck::TileSchedule::persistent) {
        loop.emitError("multicast pairs CTAs that wait on each other: the "
                       "tile loop must be persistent (run sc-persistent)");
        return WalkResult::interrupt();
      }
      loop.setClusterAttr(Builder(loop.getContext()).getI64IntegerAttr(2));
      if (report)
        loop.emitRemark(sck::kernelSchedule(loop) == sck::KernelSchedule::transposed
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
