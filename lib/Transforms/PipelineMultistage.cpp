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

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// The loads of `block` (its direct ops) and what their coordinates are
/// computed from there.
LogicalResult collectLoads(Block &block, SmallVectorImpl<sck::LoadOp> &loads,
                           SetVector<Operation *> &addressing) {
  for (auto load : block.getOps<sck::LoadOp>())
    loads.push_back(load);
  BackwardSliceOptions options;
  options.inclusive = false;
  options.filter = [&](Operation *op) { return op->getBlock() == &block; };
  for (sck::LoadOp load : loads) {
    SetVector<Operation *> slice;
    if (failed(getBackwardSlice(load.getOperation(), &slice, options)))
      return load.emitError("sc-pipeline-multistage: coordinates not "
                            "computed where the box is loaded");
    for (Operation *op : slice) {
      if (!isPure(op))
        return op->emitError("sc-pipeline-multistage: the coordinates of a "
                             "load computed with side effects");
      addressing.insert(op);
    }
  }
  return success();
}

/// At `b`: clones of `block`'s `loads` (and their `addressing`) with
/// `mapping`, put into `ring` at `position`.
void putLoads(OpBuilder &b, Block &block, ArrayRef<sck::LoadOp> loads,
              const SetVector<Operation *> &addressing, IRMapping &mapping,
              Value ring, Value position) {
  SmallVector<Value> boxes;
  for (Operation &inner : block.without_terminator()) {
    if (addressing.contains(&inner))
      b.clone(inner, mapping);
    else if (auto load = dyn_cast<sck::LoadOp>(inner);
             load && llvm::is_contained(loads, load))
      boxes.push_back(b.clone(inner, mapping)->getResult(0));
  }
  sck::PutOp::create(b, ring.getLoc(), ring, position, boxes);
}

/// A multistage attention (sm_80 / sm_86 / sm_89, every thread loads and
/// computes): each tile's Q through a ring of its own (put, got and read
/// into registers once, `sck.load_frag`, before the key blocks), each key
/// block's K and V through a ring of `stages` slots, block i at position
/// i (from the loop's first block) put `stages` - 1 blocks ahead of the
/// MMAs that read it. Puts past the last block load the last block again
/// (never read; their coordinates stay inside the tables and tensors), so
/// that every iteration puts once; none is put when the tile has no block.
LogicalResult pipelineAttention(sck::TileLoopOp tiles, int64_t stages) {
  Block &body = tiles.getBody().front();
  auto keyLoops = llvm::to_vector(body.getOps<scf::ForOp>());
  if (keyLoops.size() != 1)
    return tiles.emitError("sc-pipeline-multistage: an attention tile of one "
                           "key-block loop");
  scf::ForOp keyLoop = keyLoops.front();
  if (getConstantIntValue(keyLoop.getStep()) != 1)
    return keyLoop.emitError("sc-pipeline-multistage: a key-block loop by 1");
  SmallVector<sck::LoadOp> qLoads, kvLoads;
  SetVector<Operation *> qAddressing, kvAddressing;
  if (failed(collectLoads(body, qLoads, qAddressing)) ||
      failed(collectLoads(*keyLoop.getBody(), kvLoads, kvAddressing)))
    return failure();
  if (qLoads.empty() || kvLoads.empty())
    return tiles.emitError("sc-pipeline-multistage: an attention tile "
                           "loading Q before its key blocks and K, V in them");
  for (sck::LoadOp load : qLoads)
    for (Operation *user : load->getUsers())
      if (!isa<sck::MmaOp>(user) || cast<sck::MmaOp>(user).getA() != load)
        return load.emitError("sc-pipeline-multistage: a Q box read only as "
                              "the A operand of MMAs");
  Location loc = tiles.getLoc();
  MLIRContext *ctx = tiles.getContext();
  auto typesOf = [](ArrayRef<sck::LoadOp> loads) {
    return llvm::map_to_vector(loads, [](sck::LoadOp l) -> Type {
      return l.getType();
    });
  };
  SmallVector<Type> qTypes = typesOf(qLoads), kvTypes = typesOf(kvLoads);
  OpBuilder b(tiles);
  Value qRing = sck::RingOp::create(b, loc, sck::RingType::get(ctx, qTypes), 2);
  Value kvRing =
      sck::RingOp::create(b, loc, sck::RingType::get(ctx, kvTypes), stages);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // Q: put and got at the loop, read into registers.
  b.setInsertionPoint(keyLoop);
  {
    IRMapping same;
    putLoads(b, body, qLoads, qAddressing, same, qRing, cst(0));
  }
  auto qGet = sck::GetOp::create(b, loc, qTypes, qRing, cst(0));
  for (auto [load, box] : llvm::zip(qLoads, qGet.getBoxes())) {
    Value frag = sck::LoadFragOp::create(
        b, loc,
        sck::FragType::get(ctx, load.getType().getShape(),
                           load.getType().getElementType()),
        box);
    load.getResult().replaceAllUsesWith(frag);
  }
  // K and V: blocks lb .. lb + stages - 2 before the loop (when the tile
  // has a block), each later one stages - 1 blocks ahead.
  Value lb = keyLoop.getLowerBound(), ub = keyLoop.getUpperBound();
  Value iv = keyLoop.getInductionVar();
  auto putBlock = [&](Value position) {
    // Block lb + position, or the last one past the end.
    Value block = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lb, position),
        arith::SubIOp::create(b, loc, ub, cst(1)));
    IRMapping mapping;
    mapping.map(iv, block);
    putLoads(b, *keyLoop.getBody(), kvLoads, kvAddressing, mapping, kvRing,
             position);
  };
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lb, ub);
  auto ifAny = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifAny.thenBlock());
    for (int64_t p = 0; p + 1 < stages; ++p)
      putBlock(cst(p));
  }
  b.setInsertionPointToStart(keyLoop.getBody());
  Value position = arith::SubIOp::create(b, loc, iv, lb);
  auto kvGet = sck::GetOp::create(b, loc, kvTypes, kvRing, position);
  putBlock(arith::AddIOp::create(b, loc, position, cst(stages - 1)));
  for (auto [load, box] : llvm::zip(kvLoads, kvGet.getBoxes())) {
    load.getResult().replaceAllUsesWith(box);
    load.erase();
  }
  for (sck::LoadOp load : qLoads)
    load.erase();
  for (auto *addressing : {&kvAddressing, &qAddressing})
    for (Operation *op : llvm::reverse(*addressing))
      if (op->use_empty())
        op->erase();
  return success();
}

struct ScPipelineMultistagePass
    : sc::impl::ScPipelineMultistagePassBase<ScPipelineMultistagePass> {
  using Base::Base;

  void runOnOperation() final {
    if (stages < 2 || stages > 8 || attentionStages < 2 || attentionStages > 8) {
      getOperation()->emitError()
          << "sc-pipeline-multistage: stages must be 2 to 8, got "
          << static_cast<int64_t>(stages) << " and "
          << static_cast<int64_t>(attentionStages) << " for attention";
      return signalPassFailure();
    }
    WalkResult result = getOperation()->walk([&](func::FuncOp func) {
      if (func.isExternal())
        return WalkResult::advance();
      // An attention's kernel: on these chips it has no roles.
      for (auto tiles : func.getBody().front().getOps<sck::TileLoopOp>())
        if (tiles.isAttention())
          return failed(pipelineAttention(tiles, attentionStages))
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
      if (sck::kernelSchedule(func) != sck::KernelSchedule::multistage)
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
