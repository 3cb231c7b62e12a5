//===- SplitK.cpp - a GEMM's K range cut across CTAs ---------------------===//
//
// sc-split-k: a GEMM whose output tiles are too few for the SMs runs each
// tile as several tiles, each over a contiguous share of the k-tiles;
// `sck.reduce_splits` adds the partial sums in the tile that finishes
// last, whose epilogue then runs on the whole sum:
//
//   sck.tile_loop %B, %M, %N { ^bb0(%b, %m, %n):
//     %acc = scf.for %k = 0 to %K ...
//     sck.epilogue "C"[..] %acc
//   }
// becomes
//   sck.tile_loop %B x S, %M, %N { ^bb0(%bs, %m, %n):
//     %b = %bs / S, %s = %bs mod S
//     %acc = scf.for %k = <part s's k-tiles> ...
//     %sum, %last = sck.reduce_splits %acc into "C"[tile (b, m, n)] split %s of S
//     scf.if %last { sck.epilogue "C"[..] %sum }
//   }
//
// Two kernels take it. A decode GEMM over a hybrid-tiled weight runs one
// CTA per 64 weight rows (docs/decisions.md, "Decode is limited by the
// grid"): S is a constant, part s walks k-tiles [s x ceil(K / S), min(K,
// (s + 1) x ceil(K / S))). A dense warp-specialized GEMM (one CTA an SM)
// often has a tile count only the call knows (rows of a dynamic batch):
// S is computed in the kernel from its tile count, every part walks K / S
// k-tiles (the ring positions stay tile x K / S + k), and S = 1 where the
// tiles fill the SMs.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCSPLITKPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;

namespace {

constexpr StringLiteral kPass = "sc-split-k: ";
/// The SMs of an H100 / H200; auto fills two CTAs on each.
constexpr int64_t kSMs = 132;
constexpr int64_t kResidentCtas = 2 * kSMs;
/// The fewest k-tiles a part keeps (each part fills and drains its ring).
constexpr int64_t kMinKTilesPerSplit = 8;

/// The parts auto cuts a kernel of `tiles` tiles (of one batch element) of
/// `kTiles` k-tiles into: 1 where the tiles alone keep at least half the
/// SMs busy (measured on the H100: N = 8192, 128 tiles, in two parts
/// 0.84-0.91x the time of one), else as many as keep every part resident,
/// a power of two, each part at least kMinKTilesPerSplit k-tiles (N =
/// 4096, 64 tiles, in four parts: 1.24-1.57x).
int64_t autoSplits(int64_t tiles, int64_t kTiles) {
  if (2 * tiles > kSMs)
    return 1;
  int64_t splits = 1;
  while (2 * splits <= sck::kMaxSplits &&
         tiles * 2 * splits <= kResidentCtas &&
         kTiles / (2 * splits) >= kMinKTilesPerSplit)
    splits *= 2;
  return splits;
}

/// Dense warp-specialized GEMMs: one CTA an SM, so S x tiles at most the
/// SMs; the part counts S tried, largest first.
constexpr int64_t kDenseSplitChoices[] = {8, 4, 2};

/// The loop over k-tiles of a tile's body: the scf.for whose result is the
/// accumulator the epilogue stores.
FailureOr<scf::ForOp> kLoopOf(sck::EpilogueOp epilogue) {
  auto loop = epilogue.getAcc().getDefiningOp<scf::ForOp>();
  if (!loop || loop->getBlock() != epilogue->getBlock())
    return epilogue.emitError()
           << kPass << "an epilogue of the accumulator a k loop yields";
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (lb != 0 || step != 1)
    return loop.emitError() << kPass << "a k loop from 0 by 1";
  return loop;
}

/// A tile loop's epilogue and the k loop whose accumulator it stores.
struct SplitTile {
  sck::EpilogueOp epilogue;
  scf::ForOp kLoop;
};

FailureOr<SplitTile> splitTileOf(sck::TileLoopOp loop) {
  auto epilogues =
      llvm::to_vector(loop.getBody().front().getOps<sck::EpilogueOp>());
  if (epilogues.size() != 1)
    return loop.emitError() << kPass << "a tile loop of one epilogue";
  FailureOr<scf::ForOp> kLoop = kLoopOf(epilogues.front());
  if (failed(kLoop))
    return failure();
  return SplitTile{epilogues.front(), *kLoop};
}

/// The loop runs `splits` tiles for each tile, the parts of one tile
/// adjacent: at the body's start, the batch element b = bs / S and the
/// part s = bs mod S.
std::pair<Value, Value> cutBatches(OpBuilder &b, sck::TileLoopOp loop,
                                   Value splits) {
  Location loc = loop.getLoc();
  Block &body = loop.getBody().front();
  b.setInsertionPoint(loop);
  loop.getBatchesMutable().assign(
      arith::MulIOp::create(b, loc, loop.getBatches(), splits));
  b.setInsertionPointToStart(&body);
  Value bs = body.getArgument(0);
  Value batch = arith::DivUIOp::create(b, loc, bs, splits);
  Value split = arith::RemUIOp::create(b, loc, bs, splits);
  bs.replaceUsesWithIf(batch, [&](OpOperand &use) {
    return use.getOwner() != batch.getDefiningOp() &&
           use.getOwner() != split.getDefiningOp();
  });
  return {batch, split};
}

/// The parts' sums added in the last to arrive, whose epilogue then runs
/// on the whole sum. The tile's index among the loop's tiles of one part:
/// (b, m, n), n fastest.
void reduceInLastPart(OpBuilder &b, sck::TileLoopOp loop,
                      sck::EpilogueOp epilogue, Value batch, Value split,
                      Value splits, IntegerAttr maxParts) {
  Location loc = loop.getLoc();
  Block &body = loop.getBody().front();
  b.setInsertionPoint(epilogue);
  Value bm = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, batch, loop.getMTiles()),
      body.getArgument(1));
  Value tile = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bm, loop.getNTiles()),
      body.getArgument(2));
  auto reduce = sck::ReduceSplitsOp::create(
      b, loc, epilogue.getAcc().getType(), b.getI1Type(),
      epilogue.getResultAttr(), tile, split, epilogue.getAcc(), splits,
      maxParts);
  auto ifLast = scf::IfOp::create(b, loc, reduce.getLast(),
                                  /*withElseRegion=*/false);
  epilogue->moveBefore(ifLast.thenBlock()->getTerminator());
  epilogue.getAccMutable().assign(reduce.getSum());
}

LogicalResult splitTileLoop(sck::TileLoopOp loop, int64_t option,
                            bool report) {
  FailureOr<SplitTile> parts = splitTileOf(loop);
  if (failed(parts))
    return failure();
  auto [epilogue, kLoop] = *parts;
  std::optional<int64_t> kTiles = getConstantIntValue(kLoop.getUpperBound());
  std::optional<int64_t> mTiles = getConstantIntValue(loop.getMTiles());
  std::optional<int64_t> nTiles = getConstantIntValue(loop.getNTiles());
  if (!kTiles || !mTiles || !nTiles)
    return loop.emitError() << kPass << "static k-tile and tile counts";
  int64_t splits = option ? option : autoSplits(*mTiles * *nTiles, *kTiles);
  if (splits == 1) {
    if (report)
      loop.emitRemark() << "split-K: none (" << *mTiles * *nTiles
                        << " tiles a batch element keep half the SMs busy, or "
                        << *kTiles << " k-tiles are too few to cut)";
    return success();
  }
  if (splits > *kTiles)
    return loop.emitError() << kPass << splits << " splits of " << *kTiles
                            << " k-tiles";
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value count = arith::ConstantIndexOp::create(b, loc, splits);
  auto [batch, split] = cutBatches(b, loop, count);
  // Part s: k-tiles [s x share, min(K, (s + 1) x share)).
  int64_t share = llvm::divideCeil(*kTiles, splits);
  Value shareValue = arith::ConstantIndexOp::create(b, loc, share);
  Value lo = arith::MulIOp::create(b, loc, split, shareValue);
  Value hi = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lo, shareValue),
      arith::ConstantIndexOp::create(b, loc, *kTiles));
  kLoop.getLowerBoundMutable().assign(lo);
  kLoop.getUpperBoundMutable().assign(hi);
  reduceInLastPart(b, loop, epilogue, batch, split, count,
                   /*maxParts=*/nullptr);
  if (report)
    loop.emitRemark() << "split-K: " << splits << " parts of " << share
                      << " k-tiles (of " << *kTiles << ") a tile, "
                      << *mTiles * *nTiles * splits
                      << " CTAs a batch element";
  return success();
}

/// `v`'s value where it is arithmetic on constants (sc-lower-to-sck
/// builds tile counts from the shapes, unfolded).
std::optional<int64_t> staticIndex(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *op = v.getDefiningOp();
  if (!isa_and_nonnull<arith::MulIOp, arith::CeilDivUIOp>(op))
    return std::nullopt;
  std::optional<int64_t> lhs = staticIndex(op->getOperand(0));
  std::optional<int64_t> rhs = staticIndex(op->getOperand(1));
  if (!lhs || !rhs || *rhs <= 0)
    return std::nullopt;
  return isa<arith::MulIOp>(op) ? *lhs * *rhs : llvm::divideCeil(*lhs, *rhs);
}

/// Whether sc-prefetch-epilogue-operands would load one of `epilogue`'s
/// operands under the MMAs (a tile at [g(b), m, n]: IKBO's gather-add, a
/// residual): a split tile's epilogue runs in one part only, so it would
/// lose that. (Flat rows' epilogues are not prefetched.)
bool readsPrefetchableTile(sck::EpilogueOp epilogue, sck::TileLoopOp loop) {
  if (epilogue.getBody().empty() || epilogue.getCoords().size() != 3)
    return false;
  for (unsigned i = 0; i < epilogue.getIns().size(); ++i) {
    Value g;
    if (sc::epiloguePrefetchLimitation(epilogue, loop, i, g).empty())
      return true;
  }
  return false;
}

/// The part counts a dense GEMM of `kTiles` k-tiles can take: those that
/// divide them into parts of at least kMinKTilesPerSplit, largest first.
SmallVector<int64_t> densePartCounts(int64_t kTiles) {
  SmallVector<int64_t> counts;
  for (int64_t parts : kDenseSplitChoices)
    if (kTiles % parts == 0 && kTiles / parts >= kMinKTilesPerSplit)
      counts.push_back(parts);
  return counts;
}

/// A dense warp-specialized GEMM's tile loop split into a part count the
/// kernel computes from its tiles: the largest of `counts` that keeps
/// tiles x S within the SMs, else 1. Part s walks k-tiles [s x K / S,
/// (s + 1) x K / S), its k loop from 0 to K / S.
LogicalResult splitDenseTileLoop(sck::TileLoopOp loop, bool report) {
  FailureOr<SplitTile> parts = splitTileOf(loop);
  if (failed(parts))
    return failure();
  auto [epilogue, kLoop] = *parts;
  std::optional<int64_t> kTiles = getConstantIntValue(kLoop.getUpperBound());
  if (!kTiles)
    return kLoop.emitError() << kPass << "a static k-tile count";
  SmallVector<int64_t> counts = densePartCounts(*kTiles);
  // The fewest tiles the loop runs (a dynamic count at least 1): where
  // they keep half the SMs busy, it never splits.
  int64_t leastTiles = 1;
  for (Value count : {loop.getBatches(), loop.getMTiles(), loop.getNTiles()})
    leastTiles *= staticIndex(count).value_or(1);
  bool gathers = readsPrefetchableTile(epilogue, loop);
  if (counts.empty() || 2 * leastTiles > kSMs || gathers) {
    if (report) {
      auto remark = loop.emitRemark() << "split-K: none (";
      if (counts.empty())
        remark << *kTiles << " k-tiles do not cut into parts of "
               << kMinKTilesPerSplit << " or more)";
      else if (gathers)
        remark << "its epilogue reads an operand's tile, prefetched under "
                  "the MMAs)";
      else
        remark << "at least " << leastTiles
               << " tiles keep half the SMs busy)";
    }
    return success();
  }
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // S: the largest count whose parts all fit the SMs at once.
  Value tiles = arith::MulIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, loop.getBatches(), loop.getMTiles()),
      loop.getNTiles());
  Value splits = cst(1);
  for (int64_t parts : llvm::reverse(counts)) {
    Value fit = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ule,
        arith::MulIOp::create(b, loc, tiles, cst(parts)), cst(kSMs));
    splits = arith::SelectOp::create(b, loc, fit, cst(parts), splits);
  }
  Value share = arith::DivUIOp::create(b, loc, cst(*kTiles), splits);
  auto [batch, split] = cutBatches(b, loop, splits);
  // The k loop counts the part's k-tiles from 0; its loads read k-tile
  // s x K / S + k.
  Value first = arith::MulIOp::create(b, loc, split, share);
  kLoop.getUpperBoundMutable().assign(share);
  Value k = kLoop.getInductionVar();
  b.setInsertionPointToStart(kLoop.getBody());
  Value kTile = arith::AddIOp::create(b, loc, first, k);
  k.replaceUsesWithIf(kTile, [&](OpOperand &use) {
    return use.getOwner() != kTile.getDefiningOp();
  });
  reduceInLastPart(b, loop, epilogue, batch, split, splits,
                   b.getI64IntegerAttr(kSMs));
  if (report) {
    auto remark = loop.emitRemark();
    remark << "split-K: parts chosen at run time, the largest of";
    for (int64_t parts : counts)
      remark << " " << parts;
    remark << " with tiles x parts <= " << kSMs << " (else 1), of "
           << *kTiles << " k-tiles";
  }
  return success();
}

/// The schedules of the dense warp-specialized GEMMs split-K takes.
bool isDenseWarpSpecializedGemm(func::FuncOp kernel) {
  std::optional<sck::KernelSchedule> schedule = sck::kernelSchedule(kernel);
  return schedule && (*schedule == sck::KernelSchedule::cooperative ||
                      *schedule == sck::KernelSchedule::pingpong);
}

struct ScSplitKPass : sc::impl::ScSplitKPassBase<ScSplitKPass> {
  using Base::Base;
  void runOnOperation() final {
    if (splits < 0 || splits > sck::kMaxSplits || splits == 1) {
      emitError(getOperation()->getLoc())
          << kPass << "splits must be 0 (auto) or 2 to " << sck::kMaxSplits
          << ", got " << static_cast<int64_t>(splits);
      return signalPassFailure();
    }
    WalkResult result = getOperation()->walk([&](func::FuncOp kernel) {
      if (dense && isDenseWarpSpecializedGemm(kernel)) {
        for (auto loop : kernel.getBody().getOps<sck::TileLoopOp>()) {
          if (loop.getSchedule() != sck::TileSchedule::grid) {
            loop.emitError() << kPass << "a grid tile loop (run it before "
                                         "sc-persistent)";
            return WalkResult::interrupt();
          }
          if (failed(splitDenseTileLoop(loop, report)))
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      }
      // The decode form of the hybrid-tiled GEMM: one consumer, 64 weight
      // rows a tile (prefill's tiles fill the SMs).
      auto consumers = kernel->getAttrOfType<IntegerAttr>(sck::kConsumersAttrName);
      if (!hybrid || sck::kernelSchedule(kernel) != sck::KernelSchedule::hybrid ||
          !consumers || consumers.getInt() != 1)
        return WalkResult::advance();
      for (auto loop : kernel.getBody().getOps<sck::TileLoopOp>()) {
        if (loop.getSchedule() != sck::TileSchedule::grid) {
          loop.emitError() << kPass << "a grid tile loop (run it before "
                                       "sc-persistent)";
          return WalkResult::interrupt();
        }
        if (failed(splitTileLoop(loop, splits, report)))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
