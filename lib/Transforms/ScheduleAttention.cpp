//===- ScheduleAttention.cpp - an attention kernel's thread order made explicit //
//
// sc-schedule-attention: in the kernel-level IR of a warp-specialized
// attention (the grid walk, a tile a CTA, or the chained walk), what its
// threads must order becomes ops, so that each op lowers on its own:
//
// - each consumer runs the tile as its own (`sck.consumer_index`): its
//   query rows' Q, S, softmax and O; two consumers share every key block;
// - Q in a slot per consumer, K and V in rings of their own (K of a block
//   is done with long before its V), every put, get and release at a named
//   position: consumer c's Q of the tile at index t is position 2 t + c,
//   key block i of the tile's walk position t x (key blocks of the keys)
//   + i;
// - the key blocks software-pipelined (FlashAttention-3): block i's Q K^T
//   issued with block i - 1's P V, the wait for the Q K^T alone, K (i)
//   freed, the softmax of block i under that P V, then the wait for it, V
//   (i - 1) freed and O brought to the new maxima (`sck.rescale`); block
//   0's Q K^T and softmax before the loop, the last P V after it;
// - two consumers take turns for their MMAs (consumer 0 first, neither
//   waiting for a turn nobody gives), so one's softmax runs under the
//   other's MMAs; a consumer without rows of its own (a candidate without
//   a partner, rows past the query length) frees every slot unread.
//
// The chained walk (one consumer; a CTA running several tiles) becomes a
// loop over the CTA's tiles (sck.walk_size, sck.walk_tile) whose consumer
// pipeline runs on from one tile to the next: each tile's block 0 issued
// with the tile before's last P V, whose O is then stored.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCSCHEDULEATTENTIONPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;

namespace {

constexpr StringLiteral kPass = "sc-schedule-attention: ";

/// The roles of a warp-specialized attention and their tile loops.
struct AttentionRoles {
  sck::RoleOp producer, consumer;
  sck::TileLoopOp producerLoop, consumerLoop;
  /// The chained walk made explicit: each role's loop over its tiles (the
  /// tile's index its induction variable).
  scf::ForOp producerWalk, consumerWalk;
  Operation *producerTile() {
    return producerWalk ? producerWalk.getOperation() : producerLoop;
  }
  Operation *consumerTile() {
    return consumerWalk ? consumerWalk.getOperation() : consumerLoop;
  }
};

/// A chained tile loop as the walk it stands for: the CTA's tile count
/// (sck.walk_size) and a loop over them, each tile's (b, m, n) from
/// sck.walk_tile, so that the loop can carry values from tile to tile.
scf::ForOp explicateChainedWalk(sck::TileLoopOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value size = sck::WalkSizeOp::create(b, loc, b.getIndexType(),
                                       loop.getBatches(), loop.getMTiles(),
                                       loop.getNTiles());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto walk = scf::ForOp::create(b, loc, zero, size, one);
  b.setInsertionPointToStart(walk.getBody());
  Type index = b.getIndexType();
  auto tile = sck::WalkTileOp::create(b, loc, index, index, index,
                                      walk.getInductionVar(), loop.getBatches(),
                                      loop.getMTiles(), loop.getNTiles());
  Block &body = loop.getBody().front();
  for (auto [arg, v] : llvm::zip(body.getArguments(), tile.getResults()))
    arg.replaceAllUsesWith(v);
  Block *to = walk.getBody();
  to->getOperations().splice(to->getTerminator()->getIterator(),
                             body.getOperations());
  loop.erase();
  return walk;
}

FailureOr<AttentionRoles> matchRoles(func::FuncOp kernel) {
  AttentionRoles roles;
  for (auto role : kernel.getBody().front().getOps<sck::RoleOp>()) {
    auto loops = role.getBody().front().getOps<sck::TileLoopOp>();
    if (!llvm::hasSingleElement(loops))
      return role.emitError() << kPass << "a role of one tile loop";
    bool producer = role.getKind() == sck::RoleKind::producer;
    (producer ? roles.producer : roles.consumer) = role;
    (producer ? roles.producerLoop : roles.consumerLoop) = *loops.begin();
  }
  if (!roles.producer || !roles.consumer)
    return kernel.emitError() << kPass
                              << "a producer and a consumer role (run "
                                 "sc-warp-specialize)";
  int64_t count = roles.consumer.getCount();
  if (count > 2 ||
      (count == 2 && roles.consumer.getOrder() != sck::ConsumerOrder::turns))
    return roles.consumer.emitError()
           << kPass << "one consumer, or two taking turns";
  return roles;
}

/// The loop over key blocks of a role's tile: the scf.for (from a first
/// to a last kept block, by 1) whose body holds the role's put or get of
/// the key/value ring.
template <typename RingOp>
FailureOr<scf::ForOp> keyLoopOf(Operation *tile) {
  scf::ForOp keyLoop;
  tile->walk([&](RingOp op) {
    if (auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
        loop && loop != tile && !keyLoop)
      keyLoop = loop;
  });
  if (!keyLoop || getConstantIntValue(keyLoop.getStep()) != 1)
    return tile->emitError() << kPass << "a tile with a loop over key blocks "
                                         "(by 1) holding the key/value ring's "
                                         "slots";
  return keyLoop;
}

/// What the consumer's tile computes, read off the IR sc-warp-specialize
/// leaves: Q got once (a slot of every half's boxes), per key block the
/// K/V slot got, per half S = Q K^T, one softmax step, O rescaled plus
/// P V; after the blocks O normalized and stored.
struct ConsumerTile {
  scf::ForOp keyLoop;
  sck::GetOp qGet, kvGet;
  sck::ReleaseOp qRelease;
  SmallVector<sck::SoftmaxOp> steps;
  /// Per half: its epilogue (the store of O), and its condition when only
  /// under one (the second half of a tile).
  SmallVector<sck::EpilogueOp> stores;
  Value secondOwns;
  int64_t chunks = 0;

  int64_t halves() { return steps.size(); }
  Value keyRing() { return kvGet.getRing(); }
  Value vBox() { return kvGet.getBoxes().back(); }
};

/// The Q and K boxes S = Q K^T multiplies, chunk by chunk, from zero.
LogicalResult matchScores(Value s, SmallVectorImpl<Value> &q,
                          SmallVectorImpl<Value> &k) {
  SmallVector<sck::MmaOp> chain;
  while (auto mma = s.getDefiningOp<sck::MmaOp>()) {
    chain.push_back(mma);
    s = mma.getAcc();
  }
  if (chain.empty() || !s.getDefiningOp<sck::ZeroOp>())
    return failure();
  for (sck::MmaOp mma : llvm::reverse(chain)) {
    q.push_back(mma.getA());
    k.push_back(mma.getB());
  }
  return success();
}

FailureOr<ConsumerTile> matchConsumerTile(Operation *tileLoop,
                                          int64_t halves) {
  FailureOr<scf::ForOp> keyLoop = keyLoopOf<sck::GetOp>(tileLoop);
  if (failed(keyLoop))
    return failure();
  ConsumerTile tile;
  tile.keyLoop = *keyLoop;
  auto fail = [&](const Twine &what) {
    return tile.keyLoop.emitError() << kPass << what;
  };
  Block *block = tile.keyLoop->getBlock();
  Block *body = tile.keyLoop.getBody();
  auto gets = llvm::to_vector(block->getOps<sck::GetOp>());
  auto kvGets = llvm::to_vector(body->getOps<sck::GetOp>());
  auto qReleases = llvm::to_vector(block->getOps<sck::ReleaseOp>());
  tile.steps = llvm::to_vector(body->getOps<sck::SoftmaxOp>());
  if (gets.size() != 1 || kvGets.size() != 1 || qReleases.size() != 1 ||
      tile.halves() != halves)
    return fail("a tile of one Q slot got, a key loop of one key/value slot "
                "and a softmax step per consumer");
  tile.qGet = gets[0];
  tile.kvGet = kvGets[0];
  tile.qRelease = qReleases[0];
  if (tile.qGet.getPosition() || tile.kvGet.getPosition())
    return fail("a tile not scheduled yet (its slots at no named position)");
  tile.chunks = tile.qGet.getBoxes().size() / halves;
  if (tile.chunks < 1 ||
      static_cast<int64_t>(tile.kvGet.getBoxes().size()) != tile.chunks + 1 ||
      tile.qRelease.getRing() != tile.qGet.getRing() ||
      !tile.keyLoop->isBeforeInBlock(tile.qRelease))
    return fail("Q boxes per consumer for each K box and one V box");
  // Per half h: S from its Q boxes and the slot's K boxes, the step on its
  // statistics, O rescaled to the step's maxima plus P V.
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  ValueRange iters = tile.keyLoop.getRegionIterArgs();
  if (iters.size() != static_cast<size_t>(2 * halves))
    return fail("O and the softmax statistics of each consumer carried");
  for (auto [h, step] : llvm::enumerate(tile.steps)) {
    SmallVector<Value> q, k;
    if (failed(matchScores(step.getS(), q, k)) ||
        static_cast<int64_t>(q.size()) != tile.chunks)
      return fail("S = Q K^T chunk by chunk from zero");
    for (int64_t c = 0; c < tile.chunks; ++c)
      if (q[c] != tile.qGet.getBoxes()[h * tile.chunks + c] ||
          k[c] != tile.kvGet.getBoxes()[c])
        return fail("each consumer's Q boxes times the slot's K boxes");
    auto pv = yield.getOperand(2 * h).getDefiningOp<sck::MmaOp>();
    auto rescale = pv ? pv.getAcc().getDefiningOp<sck::RescaleOp>()
                      : sck::RescaleOp();
    if (step.getState() != iters[2 * h + 1] ||
        yield.getOperand(2 * h + 1) != step.getNewState() || !rescale ||
        pv.getA() != step.getP() || pv.getB() != tile.vBox() ||
        rescale.getO() != iters[2 * h] || rescale.getFrom() != iters[2 * h + 1] ||
        rescale.getTo() != step.getNewState())
      return fail("O rescaled to each step's maxima plus P V");
    // O / row sums, stored (the second half maybe under a condition).
    auto norm = dyn_cast_or_null<sck::NormalizeOp>(
        tile.keyLoop.getResult(2 * h).hasOneUse()
            ? *tile.keyLoop.getResult(2 * h).getUsers().begin()
            : nullptr);
    if (!norm || norm.getState() != tile.keyLoop.getResult(2 * h + 1) ||
        !norm.getResult().hasOneUse())
      return fail("each consumer's O normalized once");
    auto store = dyn_cast<sck::EpilogueOp>(*norm.getResult().getUsers().begin());
    if (!store || !store.getIns().empty() || store.getTransposed() ||
        !store.getBody().empty())
      return fail("each consumer's O stored as it is");
    if (store->getBlock() != block) {
      auto guard = dyn_cast<scf::IfOp>(store->getParentOp());
      if (h != 1 || !guard || guard->getBlock() != block ||
          !guard.getElseRegion().empty() ||
          guard.getThenRegion().front().getOperations().size() != 2)
        return fail("the first consumer's O stored in the tile, the "
                    "second's maybe under a condition of its own");
      tile.secondOwns = guard.getCondition();
    }
    tile.stores.push_back(store);
  }
  return tile;
}

/// Rebuilds what the loop body computes `value` from (its operations in
/// the body, the induction variable taken as `iv`) at `b`'s point.
FailureOr<Value> cloneFromLoopBody(OpBuilder &b, scf::ForOp loop, Value value,
                                   Value iv) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != loop.getBody())
    return value == loop.getInductionVar() ? iv : value;
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.filter = [&](Operation *op) { return op->getBlock() == loop.getBody(); };
  if (failed(getBackwardSlice(def, &slice, options)))
    return failure();
  if (llvm::any_of(slice, [](Operation *op) { return !isPure(op); }))
    return failure();
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : slice)
    b.clone(*op, map);
  return map.lookup(value);
}

/// `value` at `b`'s point: itself where it dominates, a constant again.
FailureOr<Value> available(OpBuilder &b, DominanceInfo &dom, Value value) {
  Operation *at = &*b.getInsertionPoint();
  if (dom.properlyDominates(value, at))
    return value;
  if (auto cst = value.getDefiningOp<arith::ConstantOp>())
    return b.clone(*cst)->getResult(0);
  return failure();
}

/// The rings the schedule reads: Q (a consumer's boxes a slot), K and V.
struct ScheduledRings {
  Value q, k, v;
};

/// Arithmetic on index values at a builder's point.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value ceilDiv(Value x, int64_t d) {
    return arith::DivUIOp::create(b, loc, add(x, cst(d - 1)), cst(d));
  }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value ne(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return x == y ? x : arith::SelectOp::create(b, loc, c, x, y).getResult();
  }
};

/// Ops under a condition (none: always).
void ifThen(OpBuilder &b, Location loc, Value cond, function_ref<void()> body) {
  if (!cond)
    return body();
  auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&op.getThenRegion().front());
  body();
}

/// A consumer's running state between key blocks: O (before the P V of
/// the block whose P it holds), the softmax statistics and P.
struct Rows {
  Value o, state, p;
};

/// The consumer's schedule of one tile, built at a builder's point.
class ConsumerSchedule {
public:
  ConsumerSchedule(OpBuilder &b, ConsumerTile &tile,
                   const ScheduledRings &rings, bool qInRegisters)
      : b(b), m{b, tile.keyLoop.getLoc()}, loc(tile.keyLoop.getLoc()),
        tile(tile), rings(rings), qInRegisters(qInRegisters) {}

  /// Consumer `c`'s tile at index `t`, its key blocks at positions from
  /// `base`; `turns` when both consumers compute (they then take turns),
  /// `waitFirst` when this one waits for its first turn.
  LogicalResult build(Value c, Value t, Value base, Value qPosition,
                      Value turns, Value waitFirst, Value passLast);

  /// A consumer without rows of its own frees its Q slot and every key
  /// block's K and V unread.
  void drain(Value qPosition, Value base);

  /// The tile's Q from ring position `qPosition` (read into registers and
  /// its slot freed, when it is).
  SmallVector<Value> takeQ(Value qPosition);
  /// Block 0: its Q K^T alone, K (0) freed once done, its softmax.
  FailureOr<Rows> firstBlock(ArrayRef<Value> q, Value base, Value turns,
                             Value waitFirst);
  /// A chained walk's tile's block 0, its Q K^T issued with the tile
  /// before's last P V (`before`: its rows, V at ring position `vAt`),
  /// that O (complete) in `doneO`.
  FailureOr<Rows> firstBlockAfter(ArrayRef<Value> q, Value base,
                                  const Rows &before, Value vAt, Value &doneO);
  /// Blocks 1 ..: Q K^T (i) with P V (i - 1).
  FailureOr<Rows> laterBlocks(ArrayRef<Value> q, Value base, const Rows &rows,
                              Value turns);
  /// The last block's P V: the tile's O.
  Value lastPV(Value base, const Rows &rows, Value turns, Value passLast);
  /// The ring position of the tile's last key block.
  Value lastPosition(Value base) {
    return position(base, m.sub(tile.keyLoop.getUpperBound(), m.cst(1)));
  }
  /// O / row sums stored at `coords`.
  void store(Value o, Value state, ValueRange coords);

private:
  /// S = Q K^T of the K boxes `k` (Q boxes or register tiles).
  Value scores(ArrayRef<Value> q, ValueRange k);
  /// The softmax step of the block at key loop index `i`.
  FailureOr<sck::SoftmaxOp> step(Value s, Value state, Value i);
  /// A turn awaited or passed when `when` holds (never without it: one
  /// consumer).
  void turn(Value when, bool pass) {
    if (!when)
      return;
    ifThen(b, loc, when, [&] {
      if (pass)
        sck::PassTurnOp::create(b, loc);
      else
        sck::AwaitTurnOp::create(b, loc);
    });
  }
  /// The key loop's index i -> its ring position, base + i - first.
  Value position(Value base, Value i) {
    return m.add(base, m.sub(i, tile.keyLoop.getLowerBound()));
  }
  Type oType() { return tile.keyLoop.getResult(0).getType(); }
  SmallVector<Type> kTypes() {
    return SmallVector<Type>(tile.chunks,
                             tile.kvGet.getBoxes().front().getType());
  }

  OpBuilder &b;
  IndexMath m;
  Location loc;
  ConsumerTile &tile;
  const ScheduledRings &rings;
  bool qInRegisters;
};

Value ConsumerSchedule::scores(ArrayRef<Value> q, ValueRange k) {
  sck::SoftmaxOp first = tile.steps.front();
  Value s = sck::ZeroOp::create(b, loc, first.getS().getType());
  for (auto [qBox, kBox] : llvm::zip(q, k))
    s = sck::MmaOp::create(b, loc, first.getS().getType(), qBox, kBox, s);
  return s;
}

FailureOr<sck::SoftmaxOp> ConsumerSchedule::step(Value s, Value state,
                                                 Value i) {
  sck::SoftmaxOp first = tile.steps.front();
  FailureOr<Value> keyStart =
      cloneFromLoopBody(b, tile.keyLoop, first.getKeyStart(), i);
  if (failed(keyStart))
    return first.emitError() << kPass
                             << "a key block's first key computed from the "
                                "loop index alone";
  return sck::SoftmaxOp::create(b, loc, first.getP().getType(),
                                first.getNewState().getType(), s, state,
                                *keyStart, first.getKeys(),
                                first.getScaleAttr());
}

SmallVector<Value> ConsumerSchedule::takeQ(Value qPosition) {
  auto qGet = sck::GetOp::create(
      b, loc, TypeRange(tile.qGet.getBoxes()).take_front(tile.chunks), rings.q,
      qPosition);
  SmallVector<Value> q(qGet.getBoxes());
  // Q read into registers once, its slot free at once: every key block's
  // Q K^T then reads only K from shared memory. (Not for pairs of
  // candidates, where it did not pay: docs/decisions.md.)
  if (qInRegisters) {
    for (Value &box : q) {
      auto boxType = cast<sck::BoxType>(box.getType());
      box = sck::LoadFragOp::create(
          b, loc,
          sck::FragType::get(b.getContext(), boxType.getShape(),
                             boxType.getElementType()),
          box);
    }
    sck::ReleaseOp::create(b, loc, rings.q, qPosition);
  }
  return q;
}

FailureOr<Rows> ConsumerSchedule::firstBlock(ArrayRef<Value> q, Value base,
                                             Value turns, Value waitFirst) {
  auto k0 = sck::GetOp::create(b, loc, kTypes(), rings.k, base);
  turn(waitFirst, /*pass=*/false);
  Value s0 = scores(q, k0.getBoxes());
  turn(turns, /*pass=*/true);
  sck::MmaWaitOp::create(b, loc, 0);
  sck::ReleaseOp::create(b, loc, rings.k, base);
  Value init = sck::SoftmaxInitOp::create(
      b, loc, tile.steps.front().getState().getType());
  FailureOr<sck::SoftmaxOp> step0 =
      step(s0, init, tile.keyLoop.getLowerBound());
  if (failed(step0))
    return failure();
  return Rows{sck::ZeroOp::create(b, loc, oType()), step0->getNewState(),
              step0->getP()};
}

FailureOr<Rows> ConsumerSchedule::firstBlockAfter(ArrayRef<Value> q,
                                                  Value base,
                                                  const Rows &before,
                                                  Value vAt, Value &doneO) {
  auto k0 = sck::GetOp::create(b, loc, kTypes(), rings.k, base);
  auto v = sck::GetOp::create(b, loc, tile.vBox().getType(), rings.v, vAt);
  Value s0 = scores(q, k0.getBoxes());
  doneO = sck::MmaOp::create(b, loc, oType(), before.p, v.getBoxes()[0],
                             before.o);
  // Q K^T done: K free, the softmax under the tile before's last P V.
  sck::MmaWaitOp::create(b, loc, 1);
  sck::ReleaseOp::create(b, loc, rings.k, base);
  Value init = sck::SoftmaxInitOp::create(
      b, loc, tile.steps.front().getState().getType());
  FailureOr<sck::SoftmaxOp> step0 =
      step(s0, init, tile.keyLoop.getLowerBound());
  if (failed(step0))
    return failure();
  sck::MmaWaitOp::create(b, loc, 0);
  sck::ReleaseOp::create(b, loc, rings.v, vAt);
  return Rows{sck::ZeroOp::create(b, loc, oType()), step0->getNewState(),
              step0->getP()};
}

FailureOr<Rows> ConsumerSchedule::laterBlocks(ArrayRef<Value> q, Value base,
                                              const Rows &rows, Value turns) {
  Value lb = tile.keyLoop.getLowerBound(), ub = tile.keyLoop.getUpperBound();
  auto blocks = scf::ForOp::create(b, loc, m.add(lb, m.cst(1)), ub, m.cst(1),
                                   ValueRange{rows.o, rows.state, rows.p});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(blocks.getBody());
  Value i = blocks.getInductionVar();
  Value o = blocks.getRegionIterArgs()[0];
  Value state = blocks.getRegionIterArgs()[1];
  Value p = blocks.getRegionIterArgs()[2];
  Value at = position(base, i);
  Value before = m.sub(at, m.cst(1));
  auto k = sck::GetOp::create(b, loc, kTypes(), rings.k, at);
  auto v = sck::GetOp::create(b, loc, tile.vBox().getType(), rings.v, before);
  turn(turns, /*pass=*/false);
  Value s = scores(q, k.getBoxes());
  Value pv = sck::MmaOp::create(b, loc, oType(), p, v.getBoxes()[0], o);
  turn(turns, /*pass=*/true);
  // Q K^T (i) done: K (i) free, its softmax under P V (i - 1).
  sck::MmaWaitOp::create(b, loc, 1);
  sck::ReleaseOp::create(b, loc, rings.k, at);
  FailureOr<sck::SoftmaxOp> stepI = step(s, state, i);
  if (failed(stepI))
    return failure();
  sck::MmaWaitOp::create(b, loc, 0);
  sck::ReleaseOp::create(b, loc, rings.v, before);
  Value rescaled =
      sck::RescaleOp::create(b, loc, oType(), pv, state, stepI->getNewState());
  scf::YieldOp::create(
      b, loc, ValueRange{rescaled, stepI->getNewState(), stepI->getP()});
  return Rows{blocks.getResult(0), blocks.getResult(1), blocks.getResult(2)};
}

Value ConsumerSchedule::lastPV(Value base, const Rows &rows, Value turns,
                               Value passLast) {
  Value last = lastPosition(base);
  auto vLast = sck::GetOp::create(b, loc, tile.vBox().getType(), rings.v, last);
  turn(turns, /*pass=*/false);
  Value o = sck::MmaOp::create(b, loc, oType(), rows.p, vLast.getBoxes()[0],
                               rows.o);
  turn(passLast, /*pass=*/true);
  sck::MmaWaitOp::create(b, loc, 0);
  sck::ReleaseOp::create(b, loc, rings.v, last);
  return o;
}

void ConsumerSchedule::store(Value o, Value state, ValueRange coords) {
  Value out = sck::NormalizeOp::create(b, loc, oType(), o, state);
  sck::EpilogueOp::create(b, loc, tile.stores.front().getResultAttr(), coords,
                          out, ValueRange{}, /*transposed=*/false,
                          /*sum_rows=*/IntegerAttr());
}

LogicalResult ConsumerSchedule::build(Value c, Value t, Value base,
                                      Value qPosition, Value turns,
                                      Value waitFirst, Value passLast) {
  SmallVector<Value> q = takeQ(qPosition);
  FailureOr<Rows> first = firstBlock(q, base, turns, waitFirst);
  if (failed(first))
    return failure();
  FailureOr<Rows> rows = laterBlocks(q, base, *first, turns);
  if (failed(rows))
    return failure();
  // Q's slot is free since its last Q K^T.
  Value o = lastPV(base, *rows, turns, passLast);
  if (!qInRegisters)
    sck::ReleaseOp::create(b, loc, rings.q, qPosition);
  // This consumer's rows of the result.
  SmallVector<Value> coords(tile.stores.front().getCoords());
  if (tile.halves() == 2) {
    Value isFirst = m.eq(c, m.cst(0));
    for (auto [i, other] : llvm::enumerate(tile.stores[1].getCoords()))
      coords[i] = m.select(isFirst, coords[i], other);
  }
  store(o, rows->state, coords);
  return success();
}

void ConsumerSchedule::drain(Value qPosition, Value base) {
  sck::DiscardOp::create(b, loc, rings.q, qPosition);
  auto blocks = scf::ForOp::create(b, loc, tile.keyLoop.getLowerBound(),
                                   tile.keyLoop.getUpperBound(), m.cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(blocks.getBody());
  Value at = position(base, blocks.getInductionVar());
  sck::DiscardOp::create(b, loc, rings.k, at);
  sck::DiscardOp::create(b, loc, rings.v, at);
}

/// The stride of ring positions between tiles: every key block of the
/// keys, so that no two tiles' blocks share a position.
FailureOr<Value> blockStride(OpBuilder &b, DominanceInfo &dom,
                             sck::SoftmaxOp step, Location loc) {
  FailureOr<Value> keys = available(b, dom, step.getKeys());
  if (failed(keys))
    return step.emitError() << kPass
                            << "the key length defined outside the roles";
  int64_t blockN = step.getS().getType().getShape()[1];
  return IndexMath{b, loc}.ceilDiv(*keys, blockN);
}

/// The consumer role: each consumer its own rows of each tile.
LogicalResult scheduleConsumer(AttentionRoles &roles, ConsumerTile &tile,
                               const ScheduledRings &rings,
                               DominanceInfo &dom) {
  Location loc = tile.keyLoop.getLoc();
  int64_t halves = tile.halves();
  OpBuilder b(roles.consumer.getContext());
  Value c;
  if (halves == 2) {
    b.setInsertionPointToStart(&roles.consumer.getBody().front());
    c = sck::ConsumerIndexOp::create(b, loc, b.getIndexType());
  }
  b.setInsertionPointToStart(&roles.consumerLoop.getBody().front());
  Value t = sck::TileIndexOp::create(b, loc, b.getIndexType());
  b.setInsertionPoint(tile.keyLoop);
  IndexMath m{b, loc};
  for (sck::EpilogueOp store : tile.stores)
    for (Value coord : store.getCoords())
      if (!dom.properlyDominates(coord, tile.keyLoop))
        return store.emitError() << kPass
                                 << "the result's coordinates known before "
                                    "the key blocks";
  if (tile.secondOwns && !dom.properlyDominates(tile.secondOwns, tile.keyLoop))
    return tile.stores[1].emitError()
           << kPass << "the second consumer's condition known before the key "
                       "blocks";
  FailureOr<Value> stride = blockStride(b, dom, tile.steps.front(), loc);
  if (failed(stride))
    return failure();
  Value base = m.mul(t, *stride);
  Value qPosition = halves == 2 ? m.add(m.mul(t, m.cst(2)), c) : t;
  // Pairs of candidates come with the pairing kernel's table.
  func::FuncOp kernel = roles.consumer->getParentOfType<func::FuncOp>();
  bool pairs = llvm::any_of(
      llvm::seq<unsigned>(0, kernel.getNumArguments()),
      [&](unsigned i) { return kernel.getArgAttr(i, "sck.candidate_pairs"); });
  ConsumerSchedule schedule(b, tile, rings, /*qInRegisters=*/!pairs);
  if (halves == 1) {
    if (failed(schedule.build(Value(), t, base, qPosition, Value(), Value(),
                              Value())))
      return failure();
  } else {
    // Both consumers compute when the second has rows of its own; then
    // they take turns, consumer 0 first and consumer 1 last.
    Value turns = tile.secondOwns;
    if (!turns)
      turns = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value isFirst = m.eq(c, m.cst(0));
    Value active = arith::OrIOp::create(b, loc, isFirst, turns);
    Value waitFirst =
        arith::AndIOp::create(b, loc, turns, m.ne(c, m.cst(0)));
    Value passLast = arith::AndIOp::create(b, loc, turns, isFirst);
    auto ifActive = scf::IfOp::create(b, loc, active, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifActive.getThenRegion().front());
    if (failed(schedule.build(c, t, base, qPosition, turns, waitFirst,
                              passLast)))
      return failure();
    b.setInsertionPointToStart(&ifActive.getElseRegion().front());
    schedule.drain(qPosition, base);
  }
  // What the schedule replaces.
  for (sck::EpilogueOp store : llvm::reverse(tile.stores)) {
    // (The second's condition, when it has one, goes with it.)
    Operation *op = store;
    if (store->getBlock() != tile.keyLoop->getBlock())
      op = store->getParentOp();
    Operation *norm = store.getAcc().getDefiningOp();
    op->erase();
    norm->erase();
  }
  tile.qRelease.erase();
  // (The halves' zero inits may be one op.)
  SetVector<Operation *> inits;
  for (Value init : tile.keyLoop.getInitArgs())
    if (Operation *def = init.getDefiningOp())
      inits.insert(def);
  tile.keyLoop.erase();
  tile.qGet.erase();
  for (Operation *def : inits)
    if (def->use_empty())
      def->erase();
  return success();
}

/// The chained walk's consumer: its tiles' key blocks one pipeline, each
/// tile's block 0 issued with the tile before's last P V, whose O is then
/// normalized and stored; the first tile's block 0 before the loop over
/// the others, the last tile's last P V after it.
LogicalResult scheduleChainedConsumer(AttentionRoles &roles,
                                      ConsumerTile &tile,
                                      const ScheduledRings &rings,
                                      DominanceInfo &dom) {
  scf::ForOp walk = roles.consumerWalk;
  Location loc = tile.keyLoop.getLoc();
  Block *body = walk.getBody();
  if (tile.keyLoop->getBlock() != body)
    return tile.keyLoop.emitError()
           << kPass << "a chained tile's key loop in the tile itself";
  for (Value bound : {tile.keyLoop.getLowerBound(), tile.keyLoop.getUpperBound()})
    if (!dom.properlyDominates(bound, walk))
      return tile.keyLoop.emitError()
             << kPass << "a chained walk's key blocks the same for every tile";
  // The tile's own ops before its Q: its coordinates.
  SmallVector<Operation *> prefix;
  for (Operation &op : body->without_terminator()) {
    if (&op == tile.qGet.getOperation())
      break;
    prefix.push_back(&op);
  }
  SmallVector<Value> coords(tile.stores.front().getCoords());
  OpBuilder b(walk);
  IndexMath m{b, loc};
  FailureOr<Value> stride = blockStride(b, dom, tile.steps.front(), loc);
  if (failed(stride))
    return failure();
  Value size = walk.getUpperBound();
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, size,
                                    m.cst(0));
  auto ifAny = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  ConsumerSchedule schedule(b, tile, rings, /*qInRegisters=*/true);
  // Tile 0: its coordinates, Q, blocks.
  IRMapping first;
  first.map(walk.getInductionVar(), m.cst(0));
  for (Operation *op : prefix)
    b.clone(*op, first);
  SmallVector<Value> q0 = schedule.takeQ(m.cst(0));
  FailureOr<Rows> block0 = schedule.firstBlock(q0, m.cst(0), Value(), Value());
  if (failed(block0))
    return failure();
  FailureOr<Rows> rows0 = schedule.laterBlocks(q0, m.cst(0), *block0, Value());
  if (failed(rows0))
    return failure();
  SmallVector<Value> inits = {rows0->o, rows0->state, rows0->p};
  for (Value c : coords)
    inits.push_back(first.lookupOrDefault(c));
  // Tiles 1 ..: the tile's ops moved into a loop carrying the tile before's
  // rows and coordinates.
  auto tiles = scf::ForOp::create(b, loc, m.cst(1), size, m.cst(1), inits);
  Block *tilesBody = tiles.getBody();
  // (An anchor where the tile's ops go, replaced by the real yield.)
  if (tilesBody->empty() || !tilesBody->back().hasTrait<OpTrait::IsTerminator>()) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(tilesBody);
    scf::YieldOp::create(b, loc, tiles.getRegionIterArgs());
  }
  Operation *yieldAt = tilesBody->getTerminator();
  for (Operation *op : prefix)
    op->moveBefore(yieldAt);
  walk.getInductionVar().replaceAllUsesWith(tiles.getInductionVar());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(yieldAt);
    Value i = tiles.getInductionVar();
    ValueRange carried = tiles.getRegionIterArgs();
    Rows before{carried[0], carried[1], carried[2]};
    Value base = m.mul(i, *stride);
    SmallVector<Value> q = schedule.takeQ(i);
    Value lastBefore = schedule.lastPosition(m.sub(base, *stride));
    Value doneO;
    FailureOr<Rows> block = schedule.firstBlockAfter(q, base, before,
                                                     lastBefore, doneO);
    if (failed(block))
      return failure();
    schedule.store(doneO, before.state, carried.drop_front(3));
    FailureOr<Rows> rows = schedule.laterBlocks(q, base, *block, Value());
    if (failed(rows))
      return failure();
    SmallVector<Value> yields = {rows->o, rows->state, rows->p};
    llvm::append_range(yields, coords);
    scf::YieldOp::create(b, loc, yields);
  }
  yieldAt->erase();
  // The last tile's last P V and store.
  Value lastBase = m.mul(m.sub(size, m.cst(1)), *stride);
  Rows last{tiles.getResult(0), tiles.getResult(1), tiles.getResult(2)};
  Value o = schedule.lastPV(lastBase, last, Value(), Value());
  schedule.store(o, last.state, tiles.getResults().drop_front(3));
  walk.erase();
  return success();
}

/// A chained walk's producer loads the next tile's Q a block into the
/// tile before's key blocks (the ring keeps the producer only a couple of
/// blocks ahead of the consumer, too little to hide Q's trip from memory
/// when it follows the tile's last block): tile 0's before the walk, tile
/// t + 1's after block min(1, blocks - 1) of tile t.
void prefetchNextQ(scf::ForOp walk, scf::ForOp keyLoop) {
  Block *body = walk.getBody();
  sck::PutOp qPut;
  for (auto put : body->getOps<sck::PutOp>())
    qPut = put;
  // What the put needs of the tile: its loads and their coordinates.
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.filter = [&](Operation *op) { return op->getBlock() == body; };
  (void)getBackwardSlice(qPut.getOperation(), &slice, options);
  Location loc = qPut.getLoc();
  auto cloneFor = [&](OpBuilder &b, Value tileIndex) {
    IRMapping map;
    map.map(walk.getInductionVar(), tileIndex);
    for (Operation *op : slice)
      b.clone(*op, map);
  };
  OpBuilder b(walk);
  IndexMath m{b, loc};
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                    walk.getUpperBound(), m.cst(0));
  ifThen(b, loc, any, [&] { cloneFor(b, m.cst(0)); });
  // After the block's own K and V (as the writer orders them).
  b.setInsertionPoint(keyLoop.getBody()->getTerminator());
  Value lb = keyLoop.getLowerBound();
  Value blocks = m.sub(keyLoop.getUpperBound(), lb);
  Value at = m.add(lb, arith::MinUIOp::create(b, loc, m.cst(1),
                                              m.sub(blocks, m.cst(1))));
  Value next = m.add(walk.getInductionVar(), m.cst(1));
  Value here = arith::AndIOp::create(
      b, loc, m.eq(keyLoop.getInductionVar(), at),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, next,
                            walk.getUpperBound()));
  ifThen(b, loc, here, [&] { cloneFor(b, next); });
  for (Operation *op : llvm::reverse(slice))
    if (op->use_empty())
      op->erase();
}

/// The producer role: each consumer's Q in a slot of its own, each key
/// block's K and V in their rings, at the positions the consumers get.
LogicalResult scheduleProducer(AttentionRoles &roles,
                               ConsumerTile &tile,
                               const ScheduledRings &rings,
                               DominanceInfo &dom) {
  FailureOr<scf::ForOp> keyLoop = keyLoopOf<sck::PutOp>(roles.producerTile());
  if (failed(keyLoop))
    return failure();
  Block *block = keyLoop->getOperation()->getBlock();
  auto qPuts = llvm::to_vector(block->getOps<sck::PutOp>());
  auto kvPuts = llvm::to_vector(keyLoop->getBody()->getOps<sck::PutOp>());
  int64_t halves = tile.halves();
  if (qPuts.size() != 1 || kvPuts.size() != 1 ||
      qPuts[0].getBoxes().size() != tile.qGet.getBoxes().size() ||
      kvPuts[0].getBoxes().size() != tile.kvGet.getBoxes().size() ||
      qPuts[0].getPosition() || kvPuts[0].getPosition())
    return keyLoop->emitError()
           << kPass << "a producer tile of one Q put and a key loop of one "
                       "key/value put, as the consumers get them";
  Location loc = keyLoop->getLoc();
  OpBuilder b(roles.producer.getContext());
  Value t;
  if (roles.producerWalk) {
    t = roles.producerWalk.getInductionVar();
  } else {
    b.setInsertionPointToStart(&roles.producerLoop.getBody().front());
    t = sck::TileIndexOp::create(b, loc, b.getIndexType());
  }
  IndexMath m{b, loc};
  b.setInsertionPoint(qPuts[0]);
  for (int64_t h = 0; h < halves; ++h) {
    Value at = halves == 2 ? m.add(m.mul(t, m.cst(2)), m.cst(h)) : t;
    sck::PutOp::create(
        b, loc, rings.q, at,
        qPuts[0].getBoxes().slice(h * tile.chunks, tile.chunks));
  }
  qPuts[0].erase();
  if (roles.producerWalk)
    prefetchNextQ(roles.producerWalk, *keyLoop);
  b.setInsertionPoint(*keyLoop);
  FailureOr<Value> stride = blockStride(b, dom, tile.steps.front(), loc);
  if (failed(stride))
    return failure();
  Value base = m.mul(t, *stride);
  b.setInsertionPoint(kvPuts[0]);
  Value at =
      m.add(base, m.sub(keyLoop->getInductionVar(), keyLoop->getLowerBound()));
  ValueRange boxes = kvPuts[0].getBoxes();
  sck::PutOp::create(b, loc, rings.k, at, boxes.drop_back());
  sck::PutOp::create(b, loc, rings.v, at, boxes.take_back());
  kvPuts[0].erase();
  return success();
}

LogicalResult scheduleAttention(func::FuncOp kernel) {
  FailureOr<AttentionRoles> roles = matchRoles(kernel);
  if (failed(roles))
    return failure();
  bool chained = roles->consumerLoop.getSchedule() == sck::TileSchedule::chained;
  if (chained) {
    if (roles->consumer.getCount() != 1)
      return roles->consumer.emitError()
             << kPass << "a chained walk of one consumer";
    roles->producerWalk = explicateChainedWalk(roles->producerLoop);
    roles->consumerWalk = explicateChainedWalk(roles->consumerLoop);
  }
  FailureOr<ConsumerTile> tile =
      matchConsumerTile(roles->consumerTile(), roles->consumer.getCount());
  if (failed(tile))
    return failure();
  // Q a consumer's boxes a slot; K and V each a ring of the key/value
  // ring's stages.
  auto oldQ = tile->qGet.getRing().getDefiningOp<sck::RingOp>();
  auto oldKV = tile->keyRing().getDefiningOp<sck::RingOp>();
  if (!oldQ || !oldKV)
    return kernel.emitError() << kPass << "rings of the kernel";
  OpBuilder b(oldKV);
  Location loc = oldKV.getLoc();
  auto ring = [&](TypeRange boxes, int64_t stages) {
    return sck::RingOp::create(b, loc,
                               sck::RingType::get(b.getContext(),
                                                  llvm::to_vector(boxes)),
                               b.getI64IntegerAttr(stages))
        .getResult();
  };
  TypeRange qTypes = TypeRange(tile->qGet.getBoxes()).take_front(tile->chunks);
  TypeRange kvTypes = TypeRange(tile->kvGet.getBoxes());
  ScheduledRings rings{ring(qTypes, oldQ.getStages()),
                       ring(kvTypes.drop_back(), oldKV.getStages()),
                       ring(kvTypes.take_back(), oldKV.getStages())};
  DominanceInfo dom(kernel);
  if (failed(scheduleProducer(*roles, *tile, rings, dom)) ||
      failed(chained ? scheduleChainedConsumer(*roles, *tile, rings, dom)
                     : scheduleConsumer(*roles, *tile, rings, dom)))
    return failure();
  if (!oldQ->use_empty() || !oldKV->use_empty())
    return kernel.emitError() << kPass << "rings used outside the tile";
  oldKV.erase();
  oldQ.erase();
  return success();
}

/// A warp-specialized attention kernel (grid or chained walk).
bool isWarpSpecializedAttention(func::FuncOp func) {
  if (func.isExternal() || func.getBody().front().getOps<sck::RoleOp>().empty())
    return false;
  bool attention = false, walks = true;
  func.walk([&](sck::TileLoopOp loop) {
    attention |= loop.isAttention();
    walks &= loop.getSchedule() == sck::TileSchedule::grid ||
             loop.getSchedule() == sck::TileSchedule::chained;
  });
  return attention && walks;
}

struct ScScheduleAttentionPass
    : sc::impl::ScScheduleAttentionPassBase<ScScheduleAttentionPass> {
  void runOnOperation() final {
    WalkResult result = getOperation()->walk([&](func::FuncOp func) {
      if (!isWarpSpecializedAttention(func))
        return WalkResult::advance();
      return failed(scheduleAttention(func)) ? WalkResult::interrupt()
                                             : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
