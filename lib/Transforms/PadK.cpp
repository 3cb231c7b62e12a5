//===- PadK.cpp - zero-pad the contraction dim to 16 bytes ----------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Transforms/Transforms.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "sc-pad-k"

namespace mlir::sc {
#define GEN_PASS_DEF_SCPADKPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// Zero-pads dim `dim` of `value` up to `size` with tensor.pad.
Value padDim(PatternRewriter &rewriter, Location loc, Value value,
             int64_t dim, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> low(rank, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> high(rank, rewriter.getIndexAttr(0));
  high[dim] = rewriter.getIndexAttr(size - type.getDimSize(dim));
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  Value zero = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(rewriter, loc, paddedType, value, low, high,
                               zero);
}

struct PadContractionDim : OpRewritePattern<BatchMatmulOp> {
  PadContractionDim(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;
  LogicalResult matchAndRewrite(BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType lhsType = op.getLhs().getType();
    int64_t k = lhsType.getShape().back();
    unsigned bits = lhsType.getElementType().getIntOrFloatBitWidth();
    int64_t align = 128 / bits; // elements in 16 bytes
    if (ShapedType::isDynamic(k) || k % align == 0)
      return failure();
    int64_t padded = llvm::alignTo(k, align);
    Location loc = op.getLoc();
    if (report)
      op.emitRemark() << "padded K " << k << " -> " << padded
                      << " (16-byte rows) on both operands";
    Value lhs = padDim(rewriter, loc, op.getLhs(), lhsType.getRank() - 1, padded);
    int64_t rhsRank = op.getRhs().getType().getRank();
    int64_t rhsK = op.getTransposeRhs() ? rhsRank - 1 : rhsRank - 2;
    Value rhs = padDim(rewriter, loc, op.getRhs(), rhsK, padded);
    auto padded_op = BatchMatmulOp::create(
        rewriter, loc, op.getType(), lhs, rhs, op.getEpilogueIns(),
        op.getTransposeRhsAttr());
    padded_op.setSumRows(op.getSumRows());
    padded_op->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(op.getEpilogue(), padded_op.getEpilogue(),
                                padded_op.getEpilogue().end());
    rewriter.replaceOp(op, padded_op.getResult());
    return success();
  }
};

struct ScPadKPass : sc::impl::ScPadKPassBase<ScPadKPass> {
  using Base::Base;
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    populateScPadKPatterns(patterns, report);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::sc::populateScPadKPatterns(RewritePatternSet &patterns,
                                      bool report) {
  patterns.add<PadContractionDim>(patterns.getContext(), report);
}
