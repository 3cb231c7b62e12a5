//===- FuseEpilogue.cpp - element-wise consumers into the GEMM epilogue ---===//
//
// A linalg.generic that is element-wise over the [B, M, N] result of an
// sc.batch_matmul (its only user) becomes the matmul's epilogue: the
// accumulator flows into the generic's body, its other inputs are read at
// their indexing maps' indices, and inputs produced by sc.gather_rows are
// read through the index, so a broadcast is never materialized.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Transforms/Transforms.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#define DEBUG_TYPE "sc-fuse-epilogue"

namespace mlir::sc {
#define GEN_PASS_DEF_SCFUSEEPILOGUEPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// How one input of the generic is read inside the new epilogue.
struct InputRead {
  enum class Kind { Accumulator, Mapped, Gathered } kind;
  Value tensor;   // Mapped: the tensor; Gathered: the gather's source
  Value index;    // Gathered: the index
  AffineMap map;  // Mapped: the input's indexing map
};

/// Whether `generic` can become the epilogue of the batch_matmul it reads:
/// an element-wise generic over [B, M, N] that reads exactly one
/// batch_matmul result, used only by it (and by tensor.dim, which the
/// operands answer), at the same element. On success sets `matmul`, how
/// each input is read (`reads`) and the values the body captures from
/// above (`captured`); else returns why not (empty when `generic` reads no
/// batch_matmul result at all).
static std::string checkFusable(linalg::GenericOp generic, BatchMatmulOp &matmul,
                                SmallVector<InputRead> &reads,
                                SetVector<Value> &captured) {
  bool readsMatmul = llvm::any_of(generic.getDpsInputs(), [](Value v) {
    return v.getDefiningOp<BatchMatmulOp>();
  });
  // (A refusal leaves `matmul` null, even when it was found first.)
  auto refuse = [&](const char *why) {
    matmul = {};
    return readsMatmul ? std::string(why) : std::string();
  };
  if (generic.getNumResults() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != 3 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return refuse("it is not element-wise over a [B, M, N] result");
  auto resultType = dyn_cast<RankedTensorType>(generic.getResultTypes()[0]);
  if (!resultType || !resultType.getElementType().isIntOrFloat())
    return refuse("its result is not a tensor of scalars");
  OpOperand *init = generic.getDpsInitOperand(0);
  if (!generic.getMatchingIndexingMap(init).isIdentity() ||
      !generic.getMatchingBlockArgument(init).use_empty())
    return refuse("it reads its output");

  // Exactly one input is a batch_matmul used only here (and by tensor.dim,
  // which the operands answer), read element-wise.
  auto onlyUsedHere = [&](BatchMatmulOp producer) {
    return llvm::all_of(producer->getUsers(), [&](Operation *user) {
      if (user == generic.getOperation())
        return true;
      auto dim = dyn_cast<tensor::DimOp>(user);
      std::optional<int64_t> d = dim ? dim.getConstantIndex() : std::nullopt;
      return d && (*d == 0 || !producer.getType().isDynamicDim(*d));
    }) && llvm::count(generic->getOperands(), producer.getResult()) == 1;
  };
  const char *matmulWhy = nullptr;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    auto producer = input->get().getDefiningOp<BatchMatmulOp>();
    if (producer && !matmul) {
      if (!map.isIdentity()) {
        matmulWhy = "it reads the GEMM's result other than element by element";
      } else if (!onlyUsedHere(producer)) {
        matmulWhy = "the GEMM's result has other users (it is written out "
                    "for them)";
      } else {
        matmul = producer;
        reads.push_back({InputRead::Kind::Accumulator, {}, {}, map});
        continue;
      }
    }
    // (A 0 result reads a size-1 dim: numpy / tosa broadcasting.)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return refuse("an input is read through a map that is not a "
                    "projected permutation");
    auto gather = input->get().getDefiningOp<GatherRowsOp>();
    if (gather && map.isIdentity()) {
      reads.push_back({InputRead::Kind::Gathered, gather.getSource(),
                       gather.getIndices(), map});
      continue;
    }
    reads.push_back({InputRead::Kind::Mapped, input->get(), {}, map});
  }
  if (!matmul)
    return refuse(matmulWhy ? matmulWhy : "");
  // Values the body captures from above: tensors become epilogue operands,
  // constants are cloned; anything else stays out.
  getUsedValuesDefinedAbove(generic.getRegion(), captured);
  for (Value v : captured)
    if (!isa<RankedTensorType>(v.getType()) &&
        !v.getDefiningOp<arith::ConstantOp>())
      return refuse("its body uses a value from above that is neither a "
                    "tensor nor a constant");
  return "";
}

struct FuseElementwiseConsumer : OpRewritePattern<linalg::GenericOp> {
  FuseElementwiseConsumer(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;

  LogicalResult matchAndRewrite(linalg::GenericOp generic,
                                PatternRewriter &rewriter) const override {
    BatchMatmulOp matmul;
    SmallVector<InputRead> reads;
    SetVector<Value> captured;
    (void)checkFusable(generic, matmul, reads, captured);
    // A sum of rows reads no element of the rows: nothing folds into it.
    if (!matmul || matmul.getSumRows())
      return failure();
    RankedTensorType resultType =
        cast<RankedTensorType>(generic.getResultTypes()[0]);

    // The new epilogue operands: the matmul's, then one per tensor read.
    SmallVector<Value> ins(matmul.getEpilogueIns());
    auto operandIndex = [&](Value v) {
      auto it = llvm::find(ins, v);
      if (it != ins.end())
        return static_cast<unsigned>(it - ins.begin());
      ins.push_back(v);
      return static_cast<unsigned>(ins.size() - 1);
    };
    SmallVector<unsigned> tensorSlot(reads.size()), indexSlot(reads.size());
    for (auto [i, read] : llvm::enumerate(reads)) {
      if (read.kind == InputRead::Kind::Accumulator)
        continue;
      tensorSlot[i] = operandIndex(read.tensor);
      if (read.kind == InputRead::Kind::Gathered)
        indexSlot[i] = operandIndex(read.index);
    }
    SmallVector<unsigned> capturedSlot;
    for (Value v : captured)
      capturedSlot.push_back(isa<RankedTensorType>(v.getType())
                                 ? operandIndex(v)
                                 : ~0u);

    Location loc = generic.getLoc();
    if (report) {
      unsigned gathered = llvm::count_if(reads, [](const InputRead &r) {
        return r.kind == InputRead::Kind::Gathered;
      });
      matmul.emitRemark() << "fused an element-wise consumer into the "
                             "epilogue ("
                          << gathered
                          << " gathered input(s) read through the index, "
                          << reads.size() - 1 - gathered
                          << " other input(s))";
    }
    auto fused = BatchMatmulOp::create(rewriter, loc, resultType,
                                       matmul.getLhs(), matmul.getRhs(), ins,
                                       matmul.getTransposeRhsAttr());
    Block *body = rewriter.createBlock(&fused.getEpilogue());
    Type f32 = rewriter.getF32Type(), idx = rewriter.getIndexType();
    body->addArguments({f32, idx, idx, idx}, {loc, loc, loc, loc});
    for (Value v : ins)
      body->addArgument(v.getType(), loc);
    auto operand = [&](unsigned slot) {
      return body->getArgument(BatchMatmulOp::kNumEpilogueLeadingArgs + slot);
    };
    SmallVector<Value> ivs = {body->getArgument(1), body->getArgument(2),
                              body->getArgument(3)};

    // The matmul's own epilogue first (if any): its value is what the
    // generic read.
    IRMapping mapping;
    Value accumulator = body->getArgument(0);
    if (matmul.hasEpilogue()) {
      Block &old = matmul.getEpilogue().front();
      mapping.map(old.getArgument(0), accumulator);
      for (unsigned d = 0; d < 3; ++d)
        mapping.map(old.getArgument(1 + d), ivs[d]);
      for (auto [i, v] : llvm::enumerate(matmul.getEpilogueIns()))
        mapping.map(old.getArgument(BatchMatmulOp::kNumEpilogueLeadingArgs + i),
                    operand(i));
      for (Operation &inner : old.without_terminator())
        rewriter.clone(inner, mapping);
      accumulator =
          mapping.lookup(cast<YieldOp>(old.getTerminator()).getValue());
    }
    // The generic read the matmul's result: the fp32 accumulator rounded to
    // the result's element type first (an f16 / bf16 product).
    Type resultElement = matmul.getType().getElementType();
    if (accumulator.getType() != resultElement)
      accumulator = arith::TruncFOp::create(rewriter, loc, resultElement,
                                            accumulator);

    // Then the generic's body, its block arguments read from the operands.
    Block &gbody = generic.getRegion().front();
    IRMapping gmap;
    for (auto [i, read] : llvm::enumerate(reads)) {
      Value value;
      switch (read.kind) {
      case InputRead::Kind::Accumulator:
        value = accumulator;
        break;
      case InputRead::Kind::Mapped: {
        SmallVector<Value> at;
        for (AffineExpr e : read.map.getResults())
          at.push_back(isa<AffineDimExpr>(e)
                           ? ivs[cast<AffineDimExpr>(e).getPosition()]
                           : arith::ConstantIndexOp::create(rewriter, loc, 0)
                                 .getResult());
        value = tensor::ExtractOp::create(rewriter, loc, operand(tensorSlot[i]),
                                          at);
        break;
      }
      case InputRead::Kind::Gathered: {
        Value row = tensor::ExtractOp::create(rewriter, loc,
                                              operand(indexSlot[i]), ivs[0]);
        Value rowIndex = arith::IndexCastOp::create(rewriter, loc, idx, row);
        SmallVector<Value> at = {rowIndex, ivs[1], ivs[2]};
        value = tensor::ExtractOp::create(rewriter, loc, operand(tensorSlot[i]),
                                          at);
        break;
      }
      }
      gmap.map(gbody.getArgument(i), value);
    }
    for (auto [v, slot] : llvm::zip(captured, capturedSlot))
      gmap.map(v, slot == ~0u
                      ? Value(rewriter.clone(*v.getDefiningOp())->getResult(0))
                      : Value(operand(slot)));
    for (Operation &inner : gbody.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        gmap.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      rewriter.clone(inner, gmap);
    }
    auto yield = cast<linalg::YieldOp>(gbody.getTerminator());
    YieldOp::create(rewriter, loc, gmap.lookup(yield.getValues()[0]));

    rewriter.replaceOp(generic, fused.getResult());
    // tensor.dim of the old result: the batch comes from the batched
    // operand, M and N are constants (checked when matching).
    Value batched = matmul.getLhs().getType().getRank() == 3 ? matmul.getLhs()
                                                             : matmul.getRhs();
    for (Operation *user : llvm::make_early_inc_range(matmul->getUsers())) {
      auto dim = cast<tensor::DimOp>(user);
      int64_t d = *dim.getConstantIndex();
      rewriter.setInsertionPoint(dim);
      Value size = d == 0 ? tensor::DimOp::create(rewriter, dim.getLoc(),
                                                  batched, 0)
                                .getResult()
                          : arith::ConstantIndexOp::create(
                                rewriter, dim.getLoc(),
                                matmul.getType().getDimSize(d))
                                .getResult();
      rewriter.replaceOp(dim, size);
    }
    rewriter.eraseOp(matmul);
    return success();
  }
};

struct ScFuseEpiloguePass
    : sc::impl::ScFuseEpiloguePassBase<ScFuseEpiloguePass> {
  using Base::Base;
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    populateScFuseEpiloguePatterns(patterns, report);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    if (!report)
      return;
    // What still reads a GEMM's result was not fused: say why (the result
    // is then written out and read again).
    getOperation()->walk([](linalg::GenericOp generic) {
      BatchMatmulOp matmul;
      SmallVector<InputRead> reads;
      SetVector<Value> captured;
      std::string why = checkFusable(generic, matmul, reads, captured);
      if (!why.empty())
        generic.emitRemark() << "not fused into the GEMM's epilogue: " << why;
    });
  }
};

} // namespace

void mlir::sc::populateScFuseEpiloguePatterns(RewritePatternSet &patterns,
                                              bool report) {
  patterns.add<FuseElementwiseConsumer>(patterns.getContext(), report);
}
