//===- PadN.cpp - zero-pad a 16-bit product's columns to 16 bytes ---------===//

#include "sparcast/Transforms/Passes.h"

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "sc-pad-n"

namespace mlir::sc {
#define GEN_PASS_DEF_SCPADNPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// 16-bit elements in the 16 bytes TMA wants a row to be a multiple of.
constexpr int64_t kAlign = 8;

struct PadOutputColumns : OpRewritePattern<BatchMatmulOp> {
  PadOutputColumns(MLIRContext *ctx, bool report, bool oddOnly)
      : OpRewritePattern(ctx), report(report), oddOnly(oddOnly) {}
  bool report, oddOnly;

  LogicalResult matchAndRewrite(BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType rhsType = op.getRhs().getType();
    RankedTensorType type = op.getType();
    int64_t n = type.getDimSize(2);
    unsigned bits = rhsType.getElementType().getIntOrFloatBitWidth();
    if (bits != 16 || ShapedType::isDynamic(n) || n % kAlign == 0 ||
        (oddOnly && n % 2 == 0) || rhsType.getEncoding())
      return failure();
    int64_t padded = llvm::alignTo(n, kAlign);
    Location loc = op.getLoc();
    if (report)
      op.emitRemark() << "padded N " << n << " -> " << padded
                      << " (16-byte rows), the result sliced back";
    // The rhs's N: its last dim, or the one before when read transposed.
    int64_t rank = rhsType.getRank();
    int64_t dim = op.getTransposeRhs() ? rank - 2 : rank - 1;
    SmallVector<OpFoldResult> low(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> high(rank, rewriter.getIndexAttr(0));
    high[dim] = rewriter.getIndexAttr(padded - n);
    SmallVector<int64_t> shape(rhsType.getShape());
    shape[dim] = padded;
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(rhsType.getElementType()));
    Value rhs = tensor::PadOp::create(
        rewriter, loc, RankedTensorType::get(shape, rhsType.getElementType()),
        op.getRhs(), low, high, zero);
    auto paddedType = RankedTensorType::get(
        {type.getDimSize(0), type.getDimSize(1), padded}, type.getElementType());
    auto product = BatchMatmulOp::create(rewriter, loc, paddedType, op.getLhs(),
                                         rhs, op.getEpilogueIns(),
                                         op.getTransposeRhsAttr());
    product.setSumRows(op.getSumRows());
    product->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(op.getEpilogue(), product.getEpilogue(),
                                product.getEpilogue().end());
    if (product.hasEpilogue()) {
      // The region reads its operands at columns < N only.
      Block &body = product.getEpilogue().front();
      Value column = body.getArgument(3);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&body);
      Value last = arith::ConstantIndexOp::create(rewriter, loc, n - 1);
      Value clamped = arith::MinUIOp::create(rewriter, loc, column, last);
      rewriter.replaceAllUsesExcept(column, clamped, clamped.getDefiningOp());
    }
    SmallVector<OpFoldResult> offsets(3, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = {
        tensor::getMixedSize(rewriter, loc, product.getResult(), 0),
        rewriter.getIndexAttr(type.getDimSize(1)), rewriter.getIndexAttr(n)};
    SmallVector<OpFoldResult> strides(3, rewriter.getIndexAttr(1));
    Value result = tensor::ExtractSliceOp::create(
        rewriter, loc, type, product.getResult(), offsets, sizes, strides);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScPadNPass : sc::impl::ScPadNPassBase<ScPadNPass> {
  using Base::Base;
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    patterns.add<PadOutputColumns>(&getContext(), report, oddOnly);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
