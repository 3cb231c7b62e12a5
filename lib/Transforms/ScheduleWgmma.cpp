//===- ScheduleWgmma.cpp - a Hopper GEMM's thread order made explicit -----===//
//
// sc-schedule-wgmma: in the kernel-level IR of a warp-specialized Hopper
// GEMM, what its threads must order becomes ops: ring positions counted
// from the tile's index in the CTA's walk, the consumer's first k-tile
// peeled and each slot released one k-tile late (its asynchronous MMAs
// are in flight until the next k-tile's are issued), ping-pong turns, and
// the slots a dead tile of a CTA pair frees unread. A hybrid-tiled GEMM's
// consumer frees each k-tile's slots (the tokens' and, by the k-tile's
// kind, its weight ring's) once the k-tile's MMAs are done. Each op then
// lowers on its own, with nothing decided by the lowering.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCSCHEDULEWGMMAPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;

namespace {

/// The ring and the tile loop of each role of a warp-specialized GEMM.
struct GemmRoles {
  sck::RingOp ring;
  sck::RoleOp consumer;
  sck::TileLoopOp producerLoop, consumerLoop;
};

FailureOr<GemmRoles> matchRoles(func::FuncOp kernel) {
  GemmRoles roles;
  for (Operation &inner : kernel.getBody().front()) {
    if (auto ring = dyn_cast<sck::RingOp>(inner)) {
      if (roles.ring)
        return ring.emitError("sc-schedule-wgmma: a GEMM kernel of one ring");
      roles.ring = ring;
      continue;
    }
    auto role = dyn_cast<sck::RoleOp>(inner);
    if (!role)
      continue;
    auto loops = role.getBody().front().getOps<sck::TileLoopOp>();
    if (!llvm::hasSingleElement(loops))
      return role.emitError("sc-schedule-wgmma: a role of one tile loop");
    if (role.getKind() == sck::RoleKind::producer) {
      roles.producerLoop = *loops.begin();
    } else {
      roles.consumer = role;
      roles.consumerLoop = *loops.begin();
    }
  }
  if (!roles.ring || !roles.producerLoop || !roles.consumerLoop)
    return kernel.emitError("sc-schedule-wgmma: a ring, a producer and a "
                            "consumer role (run sc-warp-specialize)");
  return roles;
}

/// The tile's k loop (from 0 by 1) and its k-tiles: a constant, or a
/// count of the kernel's (split-K's share); no loop when the tile is one
/// k-tile.
struct KLoop {
  scf::ForOp loop;
  /// The k-tiles a tile, at `b`'s insertion point.
  Value count(OpBuilder &b, Location loc) {
    return loop ? loop.getUpperBound()
                : arith::ConstantIndexOp::create(b, loc, 1).getResult();
  }
};

FailureOr<KLoop> kLoopOf(Block &body) {
  auto loops = body.getOps<scf::ForOp>();
  if (loops.empty())
    return KLoop{};
  scf::ForOp loop = *loops.begin();
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  // (A count from outside the tile loop: the same for every tile.)
  bool uniform = ub ? *ub >= 1
                    : !body.getParentOp()->isAncestor(
                          loop.getUpperBound().getParentBlock()->getParentOp());
  if (!llvm::hasSingleElement(loops) || lb != 0 || step != 1 || !uniform)
    return loop.emitError("sc-schedule-wgmma: one k loop a tile, from 0 by "
                          "1 to a count the same for every tile");
  return KLoop{loop};
}

/// At the start of `loop`'s body: the tile's index and its first k-tile's
/// ring position, index x the k-tiles a tile.
Value firstPosition(OpBuilder &b, sck::TileLoopOp loop, KLoop k,
                    bool pingpongTurns) {
  Location loc = loop.getLoc();
  b.setInsertionPointToStart(&loop.getBody().front());
  Value tile = sck::TileIndexOp::create(b, loc, b.getIndexType());
  if (pingpongTurns)
    sck::AwaitTurnOp::create(b, loc);
  return arith::MulIOp::create(b, loc, tile, k.count(b, loc));
}

/// The producer's puts at their positions.
LogicalResult schedulePuts(sck::TileLoopOp loop) {
  Block &body = loop.getBody().front();
  FailureOr<KLoop> kLoop = kLoopOf(body);
  if (failed(kLoop))
    return failure();
  scf::ForOp forOp = kLoop->loop;
  OpBuilder b(loop.getContext());
  Value base = firstPosition(b, loop, *kLoop, /*pingpongTurns=*/false);
  Block &puts = forOp ? *forOp.getBody() : body;
  for (auto put : llvm::make_early_inc_range(puts.getOps<sck::PutOp>())) {
    if (put.getPosition())
      return put.emitError("sc-schedule-wgmma: a put at a named position "
                           "already");
    b.setInsertionPoint(put);
    Value position =
        forOp ? arith::AddIOp::create(b, put.getLoc(), base,
                                      forOp.getInductionVar())
                    .getResult()
              : base;
    put.getPositionMutable().assign(position);
  }
  return success();
}

/// The consumer's k-tile as sc-warp-specialize leaves it: a get of the
/// ring, an MMA of its two boxes into the accumulator, the release.
struct KTile {
  sck::GetOp get;
  sck::MmaOp mma;
  sck::ReleaseOp release;
  /// The MMA of the boxes of `got` (a get of the same ring) into `acc`.
  Value mmaOf(OpBuilder &b, sck::GetOp got, Value acc) {
    auto boxOf = [&](Value box) {
      return got.getBoxes()[cast<OpResult>(box).getResultNumber()];
    };
    return sck::MmaOp::create(b, mma.getLoc(), mma.getType(),
                              boxOf(mma.getA()), boxOf(mma.getB()), acc);
  }
};

FailureOr<KTile> matchKTile(Block &block, Operation *where) {
  auto gets = block.getOps<sck::GetOp>();
  auto mmas = block.getOps<sck::MmaOp>();
  auto releases = block.getOps<sck::ReleaseOp>();
  if (!llvm::hasSingleElement(gets) || !llvm::hasSingleElement(mmas) ||
      !llvm::hasSingleElement(releases))
    return where->emitError("sc-schedule-wgmma: a consumer k-tile of one "
                            "get, one MMA of its boxes and one release");
  KTile k{*gets.begin(), *mmas.begin(), *releases.begin()};
  // (The transposed tile multiplies the ring's second box by its first.)
  auto boxes = k.get.getBoxes();
  if (k.get.getPosition() || k.release.getPosition() || boxes.size() != 2 ||
      !llvm::is_contained(boxes, k.mma.getA()) ||
      !llvm::is_contained(boxes, k.mma.getB()) ||
      k.mma.getA() == k.mma.getB() || !k.get->isBeforeInBlock(k.mma) ||
      !k.mma->isBeforeInBlock(k.release))
    return where->emitError("sc-schedule-wgmma: a consumer k-tile of one "
                            "get, one MMA of its boxes and one release");
  return k;
}

/// After the tile's last k-tile (at position `last`) is issued: the other
/// consumer's turn, the wait for its MMAs, its slot freed.
void finishTile(OpBuilder &b, Location loc, Value ring, Value last,
                bool pingpong) {
  if (pingpong)
    sck::PassTurnOp::create(b, loc);
  sck::MmaWaitOp::create(b, loc, 0);
  sck::ReleaseOp::create(b, loc, ring, last);
}

/// The consumer's k loop with its first k-tile peeled and each slot
/// released one k-tile late.
LogicalResult scheduleKLoop(scf::ForOp loop, Value base, bool pingpong) {
  FailureOr<KTile> k = matchKTile(*loop.getBody(), loop);
  if (failed(k))
    return failure();
  if (loop.getNumRegionIterArgs() != 1 ||
      !loop.getInitArgs()[0].getDefiningOp<sck::ZeroOp>() ||
      k->mma.getAcc() != loop.getRegionIterArgs()[0] ||
      loop.getBody()->getTerminator()->getOperand(0) != k->mma.getResult())
    return loop.emitError("sc-schedule-wgmma: a k loop accumulating its "
                          "MMAs from zero");
  Location loc = loop.getLoc();
  Value ring = k->get.getRing();
  OpBuilder b(loop);
  // k-tile 0: its MMA ignores the (zero) accumulator.
  auto get0 = sck::GetOp::create(b, loc, k->get.getBoxes().getTypes(), ring, base);
  Value acc0 = k->mmaOf(b, get0, loop.getInitArgs()[0]);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto rest = scf::ForOp::create(b, loc, one, loop.getUpperBound(),
                                 loop.getStep(), ValueRange{acc0});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rest.getBody());
    Value position =
        arith::AddIOp::create(b, loc, base, rest.getInductionVar());
    auto get = sck::GetOp::create(b, loc, k->get.getBoxes().getTypes(), ring,
                                  position);
    Value acc = k->mmaOf(b, get, rest.getRegionIterArgs()[0]);
    Value before = arith::SubIOp::create(b, loc, position, one);
    sck::ReleaseOp::create(b, loc, ring, before);
    scf::YieldOp::create(b, loc, acc);
  }
  Value last = arith::AddIOp::create(
      b, loc, base, arith::SubIOp::create(b, loc, loop.getUpperBound(), one));
  finishTile(b, loc, ring, last, pingpong);
  loop.getResult(0).replaceAllUsesWith(rest.getResult(0));
  loop.erase();
  return success();
}

/// A tile of one k-tile: its get at the tile's position, the release
/// after the wait.
LogicalResult scheduleSingleKTile(Block &body, Operation *where, Value base,
                                  bool pingpong) {
  FailureOr<KTile> k = matchKTile(body, where);
  if (failed(k))
    return failure();
  if (!k->mma.getAcc().getDefiningOp<sck::ZeroOp>())
    return k->mma.emitError("sc-schedule-wgmma: a tile's MMA accumulating "
                            "from zero");
  k->get.getPositionMutable().assign(base);
  OpBuilder b(k->release);
  finishTile(b, k->release.getLoc(), k->release.getRing(), base, pingpong);
  k->release.erase();
  return success();
}

/// CTA pairs on pairs of M tiles: the tile's work only when it lies in
/// the result; else its slots freed unread (the pair's loads still fill
/// them) and its turn passed.
void guardDeadTile(OpBuilder &b, sck::TileLoopOp loop, Operation *from,
                   Value ring, Value base, KLoop k, bool pingpong) {
  Block &body = loop.getBody().front();
  Location loc = loop.getLoc();
  b.setInsertionPoint(from);
  Value m = body.getArgument(1);
  Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, m,
                                     loop.getMTiles());
  auto ifLive = scf::IfOp::create(b, loc, live, /*withElseRegion=*/true);
  // Everything from `from` on moves into the live branch.
  Block &then = ifLive.getThenRegion().front();
  then.getOperations().splice(then.begin(), body.getOperations(),
                              from->getIterator(), body.end());
  b.setInsertionPointToStart(&ifLive.getElseRegion().front());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = k.count(b, loc);
  auto drain = scf::ForOp::create(b, loc, zero, count, one);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(drain.getBody());
    Value position = arith::AddIOp::create(b, loc, base, drain.getInductionVar());
    sck::DiscardOp::create(b, loc, ring, position);
  }
  if (pingpong)
    sck::PassTurnOp::create(b, loc);
}

LogicalResult scheduleConsumer(GemmRoles roles) {
  sck::TileLoopOp loop = roles.consumerLoop;
  Block &body = loop.getBody().front();
  if (body.empty())
    return loop.emitError("sc-schedule-wgmma: an empty consumer tile");
  FailureOr<KLoop> kLoop = kLoopOf(body);
  if (failed(kLoop))
    return failure();
  scf::ForOp forOp = kLoop->loop;
  bool pingpong = roles.consumer.getOrder() == sck::ConsumerOrder::pingpong;
  Operation *first = &body.front();
  OpBuilder b(loop.getContext());
  Value base = firstPosition(b, loop, *kLoop, pingpong);
  // (The transposed tile pairs N tiles, an even number: every tile lives.)
  if (loop.getCluster() == 2 &&
      sck::kernelSchedule(loop) != sck::KernelSchedule::transposed)
    guardDeadTile(b, loop, first, roles.ring.getResult(), base, *kLoop,
                  pingpong);
  if (forOp)
    return scheduleKLoop(forOp, base, pingpong);
  return scheduleSingleKTile(*first->getBlock(), loop, base, pingpong);
}

bool isWarpSpecializedGemm(func::FuncOp func) {
  std::optional<sck::KernelSchedule> schedule = sck::kernelSchedule(func);
  return !func.isExternal() && schedule &&
         (*schedule == sck::KernelSchedule::pingpong ||
          *schedule == sck::KernelSchedule::cooperative ||
          *schedule == sck::KernelSchedule::transposed) &&
         !func.getBody().front().getOps<sck::RoleOp>().empty();
}

//===----------------------------------------------------------------------===//
// The hybrid-tiled GEMM
//===----------------------------------------------------------------------===//

/// The consumer's k-tile of a hybrid-tiled GEMM as sc-warp-specialize
/// leaves it: the tokens' box got, the weight tile's kind, a switch on it
/// whose MMA cases get, multiply and release a weight ring, the tokens'
/// slot released.
struct HybridKTile {
  sck::ReleaseOp tokensRelease;
  sck::HybridTileOp tile;
  scf::IndexSwitchOp kinds;
  /// Each MMA case's release of a weight ring, the case's kind and the ring.
  SmallVector<sck::ReleaseOp> weightReleases;
  SmallVector<int64_t> weightKinds;
  SmallVector<Value> weightRings;
  Value tokensRing;
};

/// The k-tile in `body` (a k loop's, or the tile's when it is one k-tile).
FailureOr<HybridKTile> matchHybridKTile(Block &body, Operation *where) {
  auto fail = [&]() {
    return where->emitError("sc-schedule-wgmma: a hybrid k-tile of one get "
                            "of the tokens, one hybrid_tile, a switch on its "
                            "kind (each MMA case releasing its weight ring "
                            "after its MMA) and the tokens' release");
  };
  auto gets = llvm::to_vector(body.getOps<sck::GetOp>());
  auto releases = llvm::to_vector(body.getOps<sck::ReleaseOp>());
  auto tiles = llvm::to_vector(body.getOps<sck::HybridTileOp>());
  auto switches = llvm::to_vector(body.getOps<scf::IndexSwitchOp>());
  if (gets.size() != 1 || releases.size() != 1 || tiles.size() != 1 ||
      switches.size() != 1 || releases[0].getRing() != gets[0].getRing() ||
      switches[0].getArg() != tiles[0].getKind() ||
      !switches[0]->isBeforeInBlock(releases[0]) || gets[0].getPosition() ||
      releases[0].getPosition())
    return fail();
  HybridKTile k{releases[0], tiles[0], switches[0], {}, {}, {},
                gets[0].getRing()};
  for (auto [value, region] :
       llvm::zip(k.kinds.getCases(), k.kinds.getCaseRegions())) {
    auto caseReleases = llvm::to_vector(region.front().getOps<sck::ReleaseOp>());
    if (caseReleases.empty())
      continue;
    if (caseReleases.size() != 1 || caseReleases[0].getPosition())
      return fail();
    k.weightReleases.push_back(caseReleases[0]);
    k.weightKinds.push_back(value);
    k.weightRings.push_back(caseReleases[0].getRing());
  }
  if (!k.kinds.getDefaultBlock().getOps<sck::ReleaseOp>().empty() ||
      k.weightReleases.empty())
    return fail();
  return k;
}

/// A k-tile's slots, its kind `kind`: the tokens' and its weight ring's.
void releaseHybridKTile(OpBuilder &b, Location loc, const HybridKTile &k,
                        Value kind) {
  sck::ReleaseOp::create(b, loc, k.tokensRing, Value());
  auto which = scf::IndexSwitchOp::create(b, loc, TypeRange(), kind,
                                          k.weightKinds, k.weightKinds.size());
  OpBuilder::InsertionGuard guard(b);
  for (auto [region, ring] : llvm::zip(which.getCaseRegions(), k.weightRings)) {
    b.setInsertionPointToStart(&region.emplaceBlock());
    sck::ReleaseOp::create(b, loc, ring, Value());
    scf::YieldOp::create(b, loc);
  }
  b.setInsertionPointToStart(&which.getDefaultRegion().emplaceBlock());
  scf::YieldOp::create(b, loc);
}

/// A k-tile (of the k loop, or the tile's only one): its slots freed once
/// its MMAs are done. (Freed a k-tile late instead, with its MMAs in
/// flight under the next k-tile's, the two-consumer kernel computed wrong
/// prefill results on the H100 and ran 20-25 % slower: docs/decisions.md.)
LogicalResult scheduleHybridKTile(Block &tile, Operation *where) {
  FailureOr<HybridKTile> k = matchHybridKTile(tile, where);
  if (failed(k))
    return failure();
  for (sck::ReleaseOp release : k->weightReleases)
    release.erase();
  OpBuilder b(k->tokensRelease);
  Location loc = k->tokensRelease.getLoc();
  sck::MmaWaitOp::create(b, loc, 0);
  releaseHybridKTile(b, loc, *k, k->tile.getKind());
  k->tokensRelease.erase();
  return success();
}

/// Each k-tile frees its own slots, so the k loop may run any range (a
/// part of K under split-K).
LogicalResult scheduleHybridConsumer(sck::TileLoopOp tileLoop) {
  Block &tile = tileLoop.getBody().front();
  auto loops = llvm::to_vector(tile.getOps<scf::ForOp>());
  if (loops.size() > 1)
    return loops[1].emitError("sc-schedule-wgmma: one k loop a hybrid tile");
  if (!loops.empty())
    return scheduleHybridKTile(*loops.front().getBody(), loops.front());
  return scheduleHybridKTile(tile, tileLoop);
}

LogicalResult scheduleHybrid(func::FuncOp kernel) {
  for (auto role : kernel.getBody().front().getOps<sck::RoleOp>()) {
    if (role.getKind() != sck::RoleKind::consumer)
      continue;
    auto loops = role.getBody().front().getOps<sck::TileLoopOp>();
    if (!llvm::hasSingleElement(loops))
      return role.emitError("sc-schedule-wgmma: a role of one tile loop");
    return scheduleHybridConsumer(*loops.begin());
  }
  return kernel.emitError("sc-schedule-wgmma: a hybrid-tiled kernel with a "
                          "consumer role (run sc-warp-specialize)");
}

bool isWarpSpecializedHybrid(func::FuncOp func) {
  return !func.isExternal() &&
         sck::kernelSchedule(func) == sck::KernelSchedule::hybrid &&
         !func.getBody().front().getOps<sck::RoleOp>().empty();
}

struct ScScheduleWgmmaPass
    : sc::impl::ScScheduleWgmmaPassBase<ScScheduleWgmmaPass> {
  void runOnOperation() final {
    WalkResult result = getOperation()->walk([&](func::FuncOp func) {
      if (isWarpSpecializedHybrid(func))
        return failed(scheduleHybrid(func)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
      if (!isWarpSpecializedGemm(func))
        return WalkResult::advance();
      FailureOr<GemmRoles> roles = matchRoles(func);
      if (failed(roles) || failed(schedulePuts(roles->producerLoop)) ||
          failed(scheduleConsumer(*roles)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
