//===- RaiseLinalg.cpp - linalg matmuls as sc.batch_matmul ----------------===//
//
// An imported model's matmuls (linalg.matmul of rows by a weight,
// linalg.batch_matmul) become sc.batch_matmul, so the IKBO passes and the
// tensor-core kernels take them. One pattern an op.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "sc-raise-linalg"

namespace mlir::sc {
#define GEN_PASS_DEF_SCRAISELINALGPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// Whether `init` is all zeros: a zero fill or a zero constant.
bool isZero(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  return matchPattern(init, m_AnyZeroFloat());
}

/// Why `op` is not a plain product sc.batch_matmul can take (default maps,
/// a zero accumulator, f16 / bf16 / f32 operands of one type), or "".
std::string whyNotPlain(linalg::LinalgOp op) {
  if (op.hasUserDefinedMaps() || op->getNumResults() != 1)
    return "indexing maps of its own";
  auto lhs = cast<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
  auto rhs = cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto takes = [](Type t) { return t.isF16() || t.isBF16() || t.isF32(); };
  if (lhs.getElementType() != rhs.getElementType() ||
      !takes(lhs.getElementType()) || !takes(result.getElementType()))
    return "operands other than f16, bf16 or f32 of one type";
  if (!isZero(op.getDpsInitOperand(0)->get()))
    return "an accumulator that is not zero";
  return "";
}

/// Why `op` (a linalg.matmul or linalg.batch_matmul) is not raised, or "".
std::string whyNotRaised(linalg::LinalgOp op) {
  std::string why = whyNotPlain(op);
  if (!why.empty())
    return why;
  auto x = cast<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
  auto w = cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
  if (isa<linalg::MatmulOp>(op) && (!w.hasStaticShape() || x.isDynamicDim(1)))
    return "a dynamic K or N";
  if (isa<linalg::BatchMatmulOp>(op) &&
      (x.isDynamicDim(1) || x.isDynamicDim(2) || w.isDynamicDim(2)))
    return "a dynamic M, K or N";
  return "";
}

/// The w^T [N, K] that `w` [K, N] transposes, if `w` is a linalg.transpose.
Value transposedSource(Value w) {
  auto transpose = w.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return Value();
  return transpose.getInput();
}

/// x [R, K] * w [K, N] from zero: R one-row items against the shared w.
struct RaiseMatmul : OpRewritePattern<linalg::MatmulOp> {
  RaiseMatmul(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;
  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!whyNotRaised(op).empty())
      return rewriter.notifyMatchFailure(op, "not raised");
    Value x = op.getInputs()[0], w = op.getInputs()[1];
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    Location loc = op.getLoc();
    int64_t k = wType.getDimSize(0), n = wType.getDimSize(1);
    bool transposed = false;
    if (Value source = transposedSource(w)) {
      w = source;
      transposed = true;
    }
    SmallVector<ReassociationIndices> rows = {{0, 1}, {2}};
    auto x3Type = RankedTensorType::get({xType.getDimSize(0), 1, k},
                                        xType.getElementType());
    SmallVector<OpFoldResult> x3Shape = {
        tensor::getMixedSize(rewriter, loc, x, 0), rewriter.getIndexAttr(1),
        rewriter.getIndexAttr(k)};
    Value x3 = tensor::ExpandShapeOp::create(rewriter, loc, x3Type, x, rows,
                                             x3Shape);
    auto y3Type = RankedTensorType::get({xType.getDimSize(0), 1, n},
                                        resultType.getElementType());
    auto product = BatchMatmulOp::create(rewriter, loc, y3Type, x3, w,
                                         ValueRange{});
    if (transposed)
      product.setTransposeRhs(true);
    if (report)
      op->emitRemark() << "raised to sc.batch_matmul over one-row items"
                       << (transposed ? ", the weight read transposed" : "");
    Value y = tensor::CollapseShapeOp::create(rewriter, loc, product.getResult(),
                                              rows);
    if (y.getType() != resultType)
      y = tensor::CastOp::create(rewriter, loc, resultType, y);
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// x [B, M, K] * w [B, K, N] from zero, M, K and N static.
struct RaiseBatchMatmul : OpRewritePattern<linalg::BatchMatmulOp> {
  RaiseBatchMatmul(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;
  LogicalResult matchAndRewrite(linalg::BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!whyNotRaised(op).empty())
      return rewriter.notifyMatchFailure(op, "not raised");
    if (report)
      op->emitRemark() << "raised to sc.batch_matmul";
    rewriter.replaceOpWithNewOp<BatchMatmulOp>(
        op, op.getResult(0).getType(), op.getInputs()[0], op.getInputs()[1],
        ValueRange{});
    return success();
  }
};

/// tosa.matmul a [N, H, C] by b [N, C, W] of floats with zero zero-points
/// (TOSA has no broadcast of the batch: both batched).
struct RaiseTosaMatmul : OpRewritePattern<tosa::MatMulOp> {
  RaiseTosaMatmul(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;
  LogicalResult matchAndRewrite(tosa::MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto a = cast<RankedTensorType>(op.getA().getType());
    auto b = cast<RankedTensorType>(op.getB().getType());
    auto result = cast<RankedTensorType>(op.getType());
    auto floats = [](Type t) { return t.isF16() || t.isBF16() || t.isF32(); };
    if (!floats(a.getElementType()) || a.getElementType() != b.getElementType() ||
        !floats(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "not floats sc.batch_matmul takes");
    auto zero = [](Value zp) {
      DenseElementsAttr value;
      return matchPattern(zp, m_Constant(&value)) && value.isSplat() &&
             value.getSplatValue<APFloat>().isZero();
    };
    if (!zero(op.getAZp()) || !zero(op.getBZp()))
      return rewriter.notifyMatchFailure(op, "zero points other than zero");
    if (a.isDynamicDim(1) || a.isDynamicDim(2) || b.isDynamicDim(2))
      return rewriter.notifyMatchFailure(op, "a dynamic H, C or W");
    if (report)
      op->emitRemark() << "raised to sc.batch_matmul";
    rewriter.replaceOpWithNewOp<BatchMatmulOp>(op, result, op.getA(), op.getB(),
                                               ValueRange{});
    return success();
  }
};

/// Whether `consumer` is element-wise (all loops parallel) and reads
/// `operand` element for element (identity map).
bool isElementwiseRead(linalg::GenericOp consumer, OpOperand *operand) {
  return consumer.getNumLoops() == consumer.getNumParallelLoops() &&
         consumer.getMatchingIndexingMap(operand).isIdentity();
}

/// tensor.dim of a collapse as the product of its source's dims: the
/// collapse of a raised product then has no reader left but the ones
/// expanded above.
struct DimOfCollapse : OpRewritePattern<tensor::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::DimOp op,
                                PatternRewriter &rewriter) const override {
    auto collapse = op.getSource().getDefiningOp<tensor::CollapseShapeOp>();
    std::optional<int64_t> index = op.getConstantIndex();
    if (!collapse || !index)
      return failure();
    Location loc = op.getLoc();
    Value size;
    for (int64_t d : collapse.getReassociationIndices()[*index]) {
      Value dim = tensor::DimOp::create(rewriter, loc, collapse.getSrc(), d);
      size = size ? arith::MulIOp::create(rewriter, loc, size, dim) : dim;
    }
    rewriter.replaceOp(op, size);
    return success();
  }
};

struct ScRaiseLinalgPass
    : sc::impl::ScRaiseLinalgPassBase<ScRaiseLinalgPass> {
  using Base::Base;
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseBatchMatmul, RaiseMatmul, RaiseTosaMatmul>(&getContext(),
                                                                 report);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Element-wise consumers of a raised product read it without the
    // collapse (they are expanded instead), fused with each other as
    // --sc-kernel-pipeline fuses them later anyway, so sc-fuse-epilogue can
    // take them into the product's epilogue.
    RewritePatternSet sink(&getContext());
    sink.add<DimOfCollapse>(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        sink, [](OpOperand *operand) {
          // Chains of element-wise ops over a raised product's rows.
          Operation *producer = operand->get().getDefiningOp();
          return producer && isa<linalg::GenericOp>(producer) &&
                 operand->get().hasOneUse();
        });
    tensor::DimOp::getCanonicalizationPatterns(sink, &getContext());
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        sink, [](OpOperand *operand) {
          // The collapse of a raised product, or of an element-wise op
          // already moved above one.
          auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
          Operation *source =
              collapse ? collapse.getSrc().getDefiningOp() : nullptr;
          auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
          return source && isa<BatchMatmulOp, linalg::GenericOp>(source) &&
                 consumer && isElementwiseRead(consumer, operand);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(sink))))
      return signalPassFailure();
    if (report)
      getOperation()->walk([](Operation *op) {
        if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
          op->emitRemark() << "not raised to sc.batch_matmul: "
                           << whyNotRaised(cast<linalg::LinalgOp>(op));
      });
  }
};

} // namespace
