//===- PipelineMultistage.cpp - a multistage kernel's loads through a ring ===//
//
// sc-pipeline-multistage: in a kernel of the multistage schedule (sm_80 /
// sm_86 / sm_89, every thread loads and computes), the k loop's boxes go
// through a ring of `stages` slots, put `stages` - 1 k-tiles ahead of the
// MMA that reads them. Every put and get names its ring position (the
// k-tile), so the slot each one uses is in the IR rather than decided by
// the kernel writer.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCPIPELINEMULTISTAGEPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;

namespace {

/// A k loop of the form pipelined: from 0 by 1, one accumulator, boxes
/// loaded in its body and read only by its one MMA.
struct KLoop {
  scf::ForOp loop;
  SmallVector<sck::LoadOp> loads;
  /// What the loads compute their coordinates from in the loop body.
  SetVector<Operation *> addressing;
};

FailureOr<KLoop> matchKLoop(scf::ForOp loop) {
  KLoop k{loop, {}, {}};
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (lb != 0 || step != 1 || loop.getNumRegionIterArgs() != 1)
    return loop.emitError("sc-pipeline-multistage: a k loop from 0 by 1 "
                          "with one accumulator");
  for (Operation &inner : loop.getBody()->without_terminator()) {
    if (auto load = dyn_cast<sck::LoadOp>(inner)) {
      if (!load->hasOneUse() || !isa<sck::MmaOp>(*load->user_begin()))
        return load.emitError("sc-pipeline-multistage: a box read by other "
                              "than the k-tile's MMA");
      k.loads.push_back(load);
    } else if (isa<sck::PutOp, sck::GetOp>(inner)) {
      return inner.emitError("sc-pipeline-multistage: a k loop that already "
                             "goes through a ring");
    }
  }
  if (k.loads.empty())
    return loop.emitError("sc-pipeline-multistage: a k loop without loads");
  BackwardSliceOptions options;
  options.inclusive = false;
  options.filter = [&](Operation *op) {
    return op->getBlock() == loop.getBody();
  };
  for (sck::LoadOp load : k.loads) {
    SetVector<Operation *> slice;
    if (failed(getBackwardSlice(load.getOperation(), &slice, options)))
      return load.emitError("sc-pipeline-multistage: coordinates not computed "
                            "in the loop body");
    for (Operation *op : slice) {
      if (!isPure(op))
        return op->emitError("sc-pipeline-multistage: the coordinates of a "
                             "load computed with side effects");
      k.addressing.insert(op);
    }
  }
  return k;
}

/// At `b`: the k-tile `kt`'s loads (the loop body's, with the induction
/// variable `kt`), put into `ring` at position `kt`.
void putKTile(OpBuilder &b, KLoop &k, Value ring, Value kt) {
  IRMapping mapping;
  mapping.map(k.loop.getInductionVar(), kt);
  // In body order, so each op's operands are mapped before it.
  SmallVector<Value> boxes;
  for (Operation &inner : k.loop.getBody()->without_terminator()) {
    if (k.addressing.contains(&inner))
      b.clone(inner, mapping);
    else if (auto load = dyn_cast<sck::LoadOp>(inner))
      boxes.push_back(b.clone(inner, mapping)->getResult(0));
  }
  sck::PutOp::create(b, k.loop.getLoc(), ring, kt, boxes);
}

/// Pipelines `loop`, the k loop of tile loop `tiles`, through a ring of
/// `stages` slots made before `tiles`.
LogicalResult pipeline(sck::TileLoopOp tiles, scf::ForOp loop, int64_t stages) {
  FailureOr<KLoop> k = matchKLoop(loop);
  if (failed(k))
    return failure();
  Location loc = loop.getLoc();
  // The ring's slot: a box of each load, in the body's order.
  SmallVector<Type> boxTypes;
  for (sck::LoadOp load : k->loads)
    boxTypes.push_back(load.getType());
  OpBuilder b(tiles);
  Value ring = sck::RingOp::create(
      b, tiles.getLoc(), sck::RingType::get(b.getContext(), boxTypes), stages);
  // k-tiles 0 .. stages - 2 before the loop.
  b.setInsertionPoint(loop);
  for (int64_t p = 0; p + 1 < stages; ++p)
    putKTile(b, *k, ring, arith::ConstantIndexOp::create(b, loc, p));
  // Iteration t: gets k-tile t, puts k-tile t + stages - 1, multiplies.
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  auto get = sck::GetOp::create(b, loc, boxTypes, ring, kt);
  Value ahead = arith::ConstantIndexOp::create(b, loc, stages - 1);
  putKTile(b, *k, ring, arith::AddIOp::create(b, loc, kt, ahead));
  for (auto [load, box] : llvm::zip(k->loads, get.getBoxes())) {
    load.getResult().replaceAllUsesWith(box);
    load.erase();
  }
  // The loads' coordinates are computed again for the puts: the loop's
  // own copies are dead now (erased users first).
  for (Operation *op : llvm::reverse(k->addressing))
    if (op->use_empty())
      op->erase();
  return success();
}

struct ScPipelineMultistagePass
    : sc::impl::ScPipelineMultistagePassBase<ScPipelineMultistagePass> {
  using Base::Base;

  void runOnOperation() final {
    if (stages < 2 || stages > 8) {
      getOperation()->emitError()
          << "sc-pipeline-multistage: stages must be 2 to 8, got "
          << static_cast<int64_t>(stages);
      return signalPassFailure();
    }
    WalkResult result = getOperation()->walk([&](func::FuncOp func) {
      if (sck::kernelSchedule(func) != sck::KernelSchedule::multistage ||
          func.isExternal())
        return WalkResult::advance();
      auto loops = func.getBody().front().getOps<sck::TileLoopOp>();
      if (!llvm::hasSingleElement(loops)) {
        func.emitError("sc-pipeline-multistage: a multistage kernel of other "
                       "than one tile loop");
        return WalkResult::interrupt();
      }
      sck::TileLoopOp tiles = *loops.begin();
      auto kLoops = tiles.getBody().front().getOps<scf::ForOp>();
      if (!llvm::hasSingleElement(kLoops)) {
        tiles.emitError("sc-pipeline-multistage: a tile of other than one "
                        "k loop");
        return WalkResult::interrupt();
      }
      return failed(pipeline(tiles, *kLoops.begin(), stages))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
