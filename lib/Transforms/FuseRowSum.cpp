//===- FuseRowSum.cpp - a sum over a matmul's rows folded into it ---------===//
//
// A sum over the rows of a batched matmul's result (a mean pooling's sum)
// becomes the matmul with `sum_rows`: the [B, M, N] result is never
// written and read back.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "sc-fuse-row-sum"

namespace mlir::sc {
#define GEN_PASS_DEF_SCFUSEROWSUMPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// Whether `body` (of a generic with one input and one output) yields
/// output + input in f32, the input extended if narrower.
bool isF32RowSum(Block &body) {
  if (body.getNumArguments() != 2 || !body.getArgument(1).getType().isF32())
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues().front().getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return false;
  Value in = body.getArgument(0), out = body.getArgument(1);
  auto isInput = [&](Value v) {
    if (v == in)
      return true;
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext && ext.getIn() == in;
  };
  bool shaped = (add.getLhs() == out && isInput(add.getRhs())) ||
                (add.getRhs() == out && isInput(add.getLhs()));
  // Nothing else in the body (the add and at most the extension).
  int64_t ops = std::distance(body.without_terminator().begin(),
                              body.without_terminator().end());
  return shaped && ops <= 2;
}

struct FoldRowSum : OpRewritePattern<linalg::GenericOp> {
  FoldRowSum(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;

  LogicalResult matchAndRewrite(linalg::GenericOp sum,
                                PatternRewriter &rewriter) const override {
    if (sum.getNumDpsInputs() != 1 || sum.getNumDpsInits() != 1 ||
        sum.getNumLoops() != 3)
      return failure();
    auto matmul = sum.getDpsInputs()[0].getDefiningOp<BatchMatmulOp>();
    if (!matmul || matmul.getSumRows() || !matmul->hasOneUse())
      return failure();
    // A shared lhs (rows of one batch element a tile) times a dense rhs.
    if (matmul.getLhs().getType().getRank() != 2 ||
        matmul.getRhs().getType().getEncoding())
      return failure();
    // Over (b, m, n), the rows reduced into [b, n].
    MLIRContext *ctx = getContext();
    SmallVector<utils::IteratorType> iterators = sum.getIteratorTypesArray();
    AffineMap rows = AffineMap::get(
        3, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(2, ctx)}, ctx);
    if (iterators[0] != utils::IteratorType::parallel ||
        iterators[1] != utils::IteratorType::reduction ||
        iterators[2] != utils::IteratorType::parallel ||
        !sum.getIndexingMapsArray()[0].isIdentity() ||
        sum.getIndexingMapsArray()[1] != rows || !isF32RowSum(*sum.getBody()))
      return failure();
    // From +0 (the kernel's partial sums add into zeros).
    auto fill = sum.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    if (!fill || !matchPattern(fill.value(), m_PosZeroFloat()))
      return failure();

    Location loc = matmul.getLoc();
    RankedTensorType type = matmul.getType();
    auto oneRow = RankedTensorType::get(
        {type.getDimSize(0), 1, type.getDimSize(2)}, rewriter.getF32Type());
    auto fused = BatchMatmulOp::create(rewriter, loc, oneRow, matmul.getLhs(),
                                       matmul.getRhs(), matmul.getEpilogueIns(),
                                       matmul.getTransposeRhsAttr());
    fused.setSumRows(true);
    fused->setDiscardableAttrs(matmul->getDiscardableAttrDictionary());
    if (matmul.hasEpilogue()) {
      rewriter.inlineRegionBefore(matmul.getEpilogue(), fused.getEpilogue(),
                                  fused.getEpilogue().end());
    } else {
      // The conversion the op did to its result element, made explicit.
      Type index = rewriter.getIndexType();
      Block *body = rewriter.createBlock(
          &fused.getEpilogue(), {},
          {rewriter.getF32Type(), index, index, index}, {loc, loc, loc, loc});
      Value acc = body->getArgument(0);
      Type element = type.getElementType();
      if (!element.isF32())
        acc = arith::TruncFOp::create(rewriter, loc, element, acc);
      sc::YieldOp::create(rewriter, loc, acc);
    }
    if (report)
      matmul.emitRemark() << "its rows summed where they are computed (a "
                             "sum over M folded in): the result is not stored";
    rewriter.setInsertionPoint(sum);
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, sum.getLoc(), sum.getResultTypes()[0], fused.getResult(),
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    rewriter.replaceOp(sum, collapsed);
    rewriter.eraseOp(matmul);
    return success();
  }
};

struct ScFuseRowSumPass : sc::impl::ScFuseRowSumPassBase<ScFuseRowSumPass> {
  using Base::Base;
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldRowSum>(&getContext(), report);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
