//===- WarpSpecialize.cpp - producer and consumer roles of a tile loop ----===//
//
// On the kernel-level IR (sck): a tile loop becomes a producer copy that
// keeps the loads and puts each k-tile's boxes into a ring, and a consumer
// copy that gets them from the ring, frees the slot after their last use,
// and keeps the MMAs and the epilogue. Everything else follows from data
// flow: each copy keeps what its ops need (dead code is dropped). The tile
// loops of one block run in sequence in one pair of roles sharing one
// ring.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCWARPSPECIALIZEPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sck;

namespace {

/// Drops what a role's copy does not need: ops without side effects whose
/// results are unused, loop-carried values nobody reads (canonicalization).
LogicalResult simplify(RoleOp role) {
  RewritePatternSet patterns(role.getContext());
  scf::ForOp::getCanonicalizationPatterns(patterns, role.getContext());
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return applyPatternsGreedily(role.getBody(), std::move(patterns), config);
}

/// Replaces the results of `cases` that every case yields from outside it
/// by that value; when none is left, the switch is rebuilt without results.
void dropUniformResults(scf::IndexSwitchOp cases) {
  for (unsigned i = 0; i < cases.getNumResults(); ++i) {
    Value same = cases.getDefaultBlock().getTerminator()->getOperand(i);
    if (cases->isAncestor(same.getParentRegion()->getParentOp()))
      continue;
    if (llvm::all_of(cases->getRegions(), [&](Region &r) {
          return r.front().getTerminator()->getOperand(i) == same;
        }))
      cases.getResult(i).replaceAllUsesWith(same);
  }
  if (cases.getNumResults() == 0 || !cases->use_empty())
    return;
  OpBuilder b(cases);
  auto bare = scf::IndexSwitchOp::create(b, cases.getLoc(), TypeRange(),
                                         cases.getArg(), cases.getCases(),
                                         cases.getNumCases());
  for (auto [from, to] : llvm::zip(cases->getRegions(), bare->getRegions())) {
    to.takeBody(from);
    Operation *yield = to.front().getTerminator();
    OpBuilder at(yield);
    scf::YieldOp::create(at, yield->getLoc());
    yield->erase();
  }
  cases.erase();
}

struct ScWarpSpecializePass
    : sc::impl::ScWarpSpecializePassBase<ScWarpSpecializePass> {
  using Base::Base;

  void runOnOperation() final {
    if (order != "auto" && order != "pingpong" && order != "cooperative") {
      getOperation()->emitError() << "unknown order '" << order
                                  << "', expected auto, pingpong or cooperative";
      return signalPassFailure();
    }
    // What the roles and the ring accept (their verifiers say the same).
    auto badRegs = [](int64_t r) { return r < 24 || r > 256 || r % 8 != 0; };
    if (consumers < 1 || consumers > 2 ||
        (producerRegs != 0 && badRegs(producerRegs)) ||
        badRegs(consumerRegs) || stages == 1 || stages < 0) {
      getOperation()->emitError()
          << "sc-warp-specialize: 1 or 2 consumers, registers multiples of 8 "
             "in [24, 256] (producer: or 0, the kernel's default), stages 0 "
             "(as many as fit) or >= 2";
      return signalPassFailure();
    }
    // The tile loops outside roles, grouped by block, in order.
    SmallVector<SmallVector<TileLoopOp>> groups;
    getOperation()->walk([&](TileLoopOp loop) {
      if (loop->getParentOfType<RoleOp>())
        return;
      // sm_80's multistage kernel: every warp loads and computes.
      if (sck::inMultistageKernel(loop)) {
        if (report)
          loop.emitRemark() << "not warp-specialized: a multistage kernel "
                               "(every warp loads and computes)";
        return;
      }
      if (groups.empty() ||
          groups.back().front()->getBlock() != loop->getBlock())
        groups.emplace_back();
      groups.back().push_back(loop);
    });
    for (ArrayRef<TileLoopOp> group : groups)
      if (failed(specialize(group)))
        return signalPassFailure();
  }

  /// What the producer puts per pass: "2 box(es) per k-tile" (one ring),
  /// or per ring "2 + 3 box(es) per pass through their blocks".
  static std::string boxesText(ArrayRef<SmallVector<LoadOp>> loadBlocks) {
    if (loadBlocks.size() == 1)
      return std::to_string(loadBlocks.front().size()) + " box(es) per k-tile";
    std::string text;
    for (ArrayRef<LoadOp> loads : loadBlocks)
      text += (text.empty() ? "" : " + ") + std::to_string(loads.size());
    return text + " box(es) per pass through their blocks (one ring each)";
  }

  LogicalResult specialize(ArrayRef<TileLoopOp> group) {
    TileLoopOp loop = group.front();
    int64_t stages = this->stages, producerRegs = this->producerRegs,
            consumerRegs = this->consumerRegs, consumers = this->consumers;
    std::string order = this->order;
    if (order == "auto") {
      // The schedule sc-lower-to-sck recorded on the kernel function.
      auto func = loop->getParentOfType<func::FuncOp>();
      std::optional<KernelSchedule> recorded = kernelSchedule(loop);
      // A hybrid-tiled GEMM: a consumer per 64 weight rows of its tile
      // (sc-lower-to-sck records how many).
      if (recorded == KernelSchedule::hybrid) {
        auto count = func->getAttrOfType<IntegerAttr>(sck::kConsumersAttrName);
        consumers = count ? count.getInt() : 1;
      }
      order = recorded ? stringifyKernelSchedule(*recorded).str() : "pingpong";
      // The transposed tile: a tile per consumer, in turns.
      if (order == "transposed")
        order = "pingpong";
      // Two consumers of a hybrid-tiled GEMM split one tile's weight rows.
      if (order == "hybrid" && consumers > 1)
        order = "cooperative";
    }
    // Per loop, its loads by the block they are in: one ring per block
    // (a slot per pass through it), in the order of the blocks' first
    // loads. A GEMM loads in one block (its k-tile); an attention kernel
    // (its key blocks in an online softmax) in two: Q once per tile, K and
    // V per key block. Every loop of a group loads the same boxes (the
    // rings are shared).
    bool attention = llvm::any_of(
        group, [](TileLoopOp each) { return each.isAttention(); });
    // A hybrid-tiled GEMM loads in three blocks: the tokens' box per
    // k-tile, a dense tile's box or a 2:4 tile's two in their cases.
    bool hybrid = kernelSchedule(loop) == KernelSchedule::hybrid;
    // CTAs an SM: the attention generator runs one-consumer kernels two
    // an SM (so 128 registers a thread at launch), everything else one.
    int64_t ctasPerSM = 1;
    // The hybrid-tiled GEMM's one-consumer kernel runs two CTAs an SM (its
    // rings are sized for that: more weight bytes in flight an SM).
    if (hybrid && consumers == 1)
      ctasPerSM = 2;
    if (attention) {
      // The attention generator's consumer count (sc-lower-to-sck records
      // it).
      auto func = loop->getParentOfType<func::FuncOp>();
      auto recorded =
          func ? func->getAttrOfType<IntegerAttr>(sck::kConsumersAttrName)
               : IntegerAttr();
      if (recorded)
        consumers = recorded.getInt();
      if (consumers == 1)
        ctasPerSM = 2;
      // Two attention consumers work on a pair of query tiles that read
      // the same keys, sharing each K/V box and taking turns for their
      // MMAs (the generator's only two-consumer form).
      if (this->order != "auto" && consumers == 2)
        return loop.emitError()
               << "an attention kernel's two consumers take turns on tiles "
                  "sharing their K/V; order '"
               << this->order << "' is for GEMMs";
      order = "turns";
    }
    // Unless asked for, the kernels' own split (the consumers' option
    // default, 232, stands for it when the producer's is left to it too).
    RoleRegisters defaults = defaultRoleRegisters(consumers, ctasPerSM);
    if (this->producerRegs == 0 && consumerRegs == 232)
      consumerRegs = defaults.consumer;
    if (producerRegs == 0)
      producerRegs = defaults.producer;
    // The hybrid-tiled GEMM's two warpgroups keep the launch's registers
    // (two consumers move them by setmaxnreg, the defaults' split).
    if (hybrid && consumers == 1 && this->producerRegs == 0 &&
        this->consumerRegs == 232)
      producerRegs = consumerRegs = launchRegisters(2, ctasPerSM);
    SmallVector<SmallVector<SmallVector<LoadOp>>> loadsOf;
    for (TileLoopOp each : group) {
      SmallVector<SmallVector<LoadOp>> &perBlock = loadsOf.emplace_back();
      LogicalResult status = success();
      each.walk([&](LoadOp load) {
        auto at = llvm::find_if(perBlock, [&](ArrayRef<LoadOp> loads) {
          return loads.front()->getBlock() == load->getBlock();
        });
        if (at == perBlock.end()) {
          if (!perBlock.empty() && !attention && !hybrid) {
            status = load.emitError("loads in more than one block: one ring "
                                    "slot holds the boxes of one pass through "
                                    "a block");
            return;
          }
          at = &perBlock.emplace_back();
        }
        at->push_back(load);
      });
      if (failed(status))
        return failure();
      if (perBlock.empty())
        return each.emitError("nothing to produce: the tile loop loads no box");
      for (ArrayRef<LoadOp> loads : perBlock) {
        Block *stage = loads.front()->getBlock();
        for (LoadOp load : loads)
          // The slot is freed at the end of the block's pass: a box read
          // after it (yielded, or used outside the block) would read a
          // slot the producer may already refill.
          for (Operation *user : load->getUsers())
            if (!stage->findAncestorOpInBlock(*user) ||
                isa<scf::YieldOp>(user))
              return load.emitError("a box is used outside the pass through "
                                    "its block that loads it");
      }
      auto typesOf = [](ArrayRef<SmallVector<LoadOp>> l) {
        SmallVector<SmallVector<Type>> types;
        for (ArrayRef<LoadOp> loads : l)
          types.push_back(llvm::map_to_vector(
              loads, [](LoadOp x) -> Type { return x.getType(); }));
        return types;
      };
      if (typesOf(perBlock) != typesOf(loadsOf.front()))
        return each.emitError("the tile loops of one kernel share its ring: "
                              "this one loads other boxes than the first");
    }
    ArrayRef<SmallVector<LoadOp>> loadBlocks = loadsOf.front();
    // Register budgets: 65536 registers for 128 x (1 + consumers) threads
    // of each CTA on an SM, allocated in steps of 8 at launch, then moved
    // between roles.
    int64_t warpgroups = 1 + consumers;
    int64_t launch = launchRegisters(warpgroups, ctasPerSM);
    if (producerRegs + consumers * consumerRegs > launch * warpgroups)
      return loop.emitError()
             << "registers: producer " << producerRegs << " + " << consumers
             << " x " << consumerRegs << " exceeds the launch budget of "
             << warpgroups << " x " << launch
             << (ctasPerSM > 1 ? " (two CTAs an SM)" : "");

    // The roles go where the last loop is: what every loop's operands
    // need is defined by then.
    OpBuilder b(group.back());
    Location loc = loop.getLoc();
    SmallVector<SmallVector<Type>> boxesOf;
    SmallVector<Value> rings;
    for (ArrayRef<LoadOp> loads : loadBlocks) {
      SmallVector<Type> &boxes = boxesOf.emplace_back();
      for (LoadOp load : loads)
        boxes.push_back(load.getType());
      auto ringType = RingType::get(b.getContext(), boxes);
      rings.push_back(
          RingOp::create(b, loc, ringType, b.getI64IntegerAttr(stages)));
    }

    // The producer: the loads, then the boxes into a free slot.
    auto producer = RoleOp::create(b, loc, RoleKind::producer, producerRegs,
                                   /*count=*/1, ConsumerOrderAttr());
    producer.getBody().emplaceBlock();
    OpBuilder inProducer = OpBuilder::atBlockBegin(&producer.getBody().front());
    for (auto [each, eachBlocks] : llvm::zip(group, loadsOf)) {
      IRMapping map;
      Operation *copy = inProducer.clone(*each, map);
      for (auto [ring, eachLoads] : llvm::zip(rings, eachBlocks)) {
        SmallVector<Value> put;
        for (LoadOp load : eachLoads)
          put.push_back(map.lookup(load.getResult()));
        auto lastLoad = cast<LoadOp>(put.back().getDefiningOp());
        OpBuilder after(lastLoad->getContext());
        after.setInsertionPointAfter(lastLoad);
        PutOp::create(after, loc, ring, /*position=*/Value(), put);
      }
      // No MMAs or epilogues here: an MMA's result is its accumulator.
      SmallVector<Operation *> drop;
      copy->walk([&](Operation *op) {
        if (isa<MmaOp, MmaSparseOp, EpilogueOp, SoftmaxOp, RescaleOp,
                NormalizeOp, ReduceSplitsOp>(op))
          drop.push_back(op);
      });
      for (Operation *op : llvm::reverse(drop)) {
        if (auto mma = dyn_cast<MmaOp>(op))
          mma.getResult().replaceAllUsesWith(mma.getAcc());
        if (auto mma = dyn_cast<MmaSparseOp>(op))
          mma.getResult().replaceAllUsesWith(mma.getAcc());
        // The softmax's statistics and output go through unchanged; its P
        // (read only by the MMAs dropped with it) has no users left.
        if (auto step = dyn_cast<SoftmaxOp>(op))
          step.getNewState().replaceAllUsesWith(step.getState());
        if (auto rescale = dyn_cast<RescaleOp>(op))
          rescale.getResult().replaceAllUsesWith(rescale.getO());
        if (auto norm = dyn_cast<NormalizeOp>(op))
          norm.getResult().replaceAllUsesWith(norm.getO());
        // The split's reduction is the consumer's; its epilogue went too.
        if (auto reduce = dyn_cast<ReduceSplitsOp>(op)) {
          reduce.getSum().replaceAllUsesWith(reduce.getAcc());
          OpBuilder at(reduce);
          reduce.getLast().replaceAllUsesWith(
              arith::ConstantIntOp::create(at, reduce.getLoc(), 0, 1));
        }
        op->erase();
      }
      // A switch whose every case now yields the same outer value (the
      // accumulator, its MMAs gone) yields nothing.
      SmallVector<scf::IndexSwitchOp> switches;
      copy->walk([&](scf::IndexSwitchOp cases) { switches.push_back(cases); });
      for (scf::IndexSwitchOp cases : switches)
        dropUniformResults(cases);
    }
    if (failed(simplify(producer)))
      return producer.emitError("cannot simplify the producer's copy");

    // The consumers: the boxes from the ring, the slot freed after their
    // last use, the MMAs and the epilogue.
    // One consumer has no order to keep.
    // (By now `order` is one the roles take: the checks above.)
    auto consumer = RoleOp::create(
        b, loc, RoleKind::consumer, consumerRegs, consumers,
        consumers > 1 ? ConsumerOrderAttr::get(b.getContext(),
                                               *symbolizeConsumerOrder(order))
                      : ConsumerOrderAttr());
    consumer.getBody().emplaceBlock();
    OpBuilder inConsumer = OpBuilder::atBlockBegin(&consumer.getBody().front());
    for (auto [each, eachBlocks] : llvm::zip(group, loadsOf)) {
      IRMapping map;
      inConsumer.clone(*each, map);
      for (auto [ring, boxes, eachLoads] : llvm::zip(rings, boxesOf, eachBlocks)) {
        auto firstLoad = cast<LoadOp>(map.lookup(eachLoads.front().getResult())
                                          .getDefiningOp());
        OpBuilder at(firstLoad);
        auto get = GetOp::create(at, loc, boxes, ring, /*position=*/Value());
        for (auto [load, box] : llvm::zip(eachLoads, get.getBoxes())) {
          Operation *copied = map.lookup(load.getResult()).getDefiningOp();
          copied->getResult(0).replaceAllUsesWith(box);
          copied->erase();
        }
        // The last op of the block that reads a box (uses nested in
        // regions count at their ancestor in this block).
        Block *block = get->getBlock();
        Operation *last = get;
        for (Value box : get.getBoxes())
          for (Operation *user : box.getUsers()) {
            Operation *inBlock = block->findAncestorOpInBlock(*user);
            if (inBlock && last->isBeforeInBlock(inBlock))
              last = inBlock;
          }
        OpBuilder release(last->getContext());
        release.setInsertionPointAfter(last);
        ReleaseOp::create(release, loc, ring, Value());
      }
    }
    if (failed(simplify(consumer)))
      return consumer.emitError("cannot simplify the consumers' copy");

    if (report)
      loop.emitRemark() << "warp-specialized: "
                        << (group.size() > 1
                                ? std::to_string(group.size()) +
                                      " tile loops in sequence, "
                                : std::string())
                        << "producer (" << boxesText(loadBlocks)
                        << ", " << producerRegs
                        << " registers) + " << consumers << " consumer(s) ("
                        << (consumers > 1 ? order + ", " : std::string())
                        << consumerRegs
                        << " registers), ring of "
                        << (stages ? std::to_string(stages) + " slots"
                                   : std::string("as many slots as fit"));
    for (TileLoopOp each : group)
      each.erase();
    return success();
  }
};
} // namespace
