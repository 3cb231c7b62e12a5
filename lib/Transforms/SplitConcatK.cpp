//===- SplitConcatK.cpp - a GEMM over a concatenation along K, split -----===//
//
// A model that concatenates features before a layer (x = cat(a, b);
// h = x @ W^T) copies every row of a and b into x. With the GEMM split at
// the concatenation,
//
//   cat_K(a, b) @ W  ==  a @ W[0:Ka] + b @ W[Ka:],
//
// the first product is written once in f32 and the second's epilogue adds
// it: 8 N bytes a row moved instead of 4 K (a 16-bit row copied in and
// read back), so the split runs where K > 2 N. The partial sum is f32, the
// accumulator's own precision.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Transforms/Transforms.h"

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "sc-split-concat-k"

namespace mlir::sc {
#define GEN_PASS_DEF_SCSPLITCONCATKPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// 16-bit elements in the 16 bytes a TMA row must be a multiple of.
constexpr int64_t kAlign = 8;

/// The concatenation along K that `lhs` ([B, M, K]) is, directly or through
/// an expand_shape that keeps K whole (a raised matmul's rows), and that
/// expand_shape if any.
std::pair<tensor::ConcatOp, tensor::ExpandShapeOp> concatAlongK(Value lhs) {
  if (auto concat = lhs.getDefiningOp<tensor::ConcatOp>())
    return {concat.getDim() == 2 ? concat : tensor::ConcatOp(), {}};
  auto expand = lhs.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand)
    return {};
  auto concat = expand.getSrc().getDefiningOp<tensor::ConcatOp>();
  int64_t last = expand.getSrcType().getRank() - 1;
  ArrayRef<int64_t> lastGroup = expand.getReassociationIndices().back();
  if (!concat || concat.getDim() != static_cast<uint64_t>(last) ||
      lastGroup.size() != 1)
    return {};
  // The parts' shapes follow from their own sizes: at most one dynamic dim
  // a group.
  for (ArrayRef<int64_t> group : expand.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t d) {
          return expand.getResultType().isDynamicDim(d);
        }) > 1)
      return {};
  return {concat, expand};
}

/// Rows [offset, offset + size) of a shared weight's K dim `kDim`: a
/// constant's values (the kernels read no slice of a constant), else a
/// slice (sliceWeightAlongK).
Value sliceK(PatternRewriter &rewriter, Location loc, Value weight,
             int64_t kDim, int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(weight.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[kDim] = size;
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  DenseElementsAttr dense;
  if (matchPattern(weight, m_Constant(&dense)) && !dense.isSplat()) {
    SmallVector<Attribute> values;
    auto all = dense.getValues<Attribute>();
    for (int64_t i = 0; i < shape[0]; ++i)
      for (int64_t j = 0; j < shape[1]; ++j) {
        int64_t row = kDim == 0 ? i + offset : i;
        int64_t col = kDim == 1 ? j + offset : j;
        values.push_back(all[row * type.getDimSize(1) + col]);
      }
    return arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(sliceType, values));
  }
  return sliceWeightAlongK(rewriter, loc, weight, kDim, offset, size);
}

struct SplitConcatK : OpRewritePattern<BatchMatmulOp> {
  SplitConcatK(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;

  LogicalResult matchAndRewrite(BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType lhsType = op.getLhs().getType();
    RankedTensorType rhsType = op.getRhs().getType();
    RankedTensorType type = op.getType();
    // (Not a structured binding: the lambdas below capture them.)
    tensor::ConcatOp concat;
    tensor::ExpandShapeOp expand;
    std::tie(concat, expand) = concatAlongK(op.getLhs());
    if (!concat || op.getSumRows() || lhsType.getRank() != 3 || rhsType.getRank() != 2 ||
        rhsType.getEncoding() || !rhsType.hasStaticShape())
      return failure();
    int64_t k = lhsType.getDimSize(2), n = type.getDimSize(2);
    int64_t kLast =
        cast<RankedTensorType>(concat.getInputs().back().getType()).getShape().back();
    int64_t kFirst = k - kLast;
    // Where the copy moves more than the partial sum, and both parts keep
    // 16-byte rows.
    if (ShapedType::isDynamic(n) || k <= 2 * n || kFirst % kAlign != 0 ||
        kLast % kAlign != 0)
      return rewriter.notifyMatchFailure(op, "not worth splitting");
    Location loc = op.getLoc();
    if (report)
      op.emitRemark() << "split at the concatenation along K (" << kFirst
                      << " + " << kLast << "): the second GEMM's epilogue "
                      << "adds the first's f32 result, no copy of the rows";
    // The two parts of the rows, as the op read the whole (through the
    // same expand_shape).
    auto part = [&](ValueRange inputs, int64_t size) -> Value {
      Value rows = inputs.size() == 1
                       ? inputs.front()
                       : tensor::ConcatOp::create(rewriter, loc,
                                                  concat.getDim(), inputs)
                             .getResult();
      if (!expand)
        return rows;
      // (Its dynamic sizes from the part's own dims: the concatenation
      // itself is left unused.)
      SmallVector<int64_t> shape(lhsType.getShape());
      shape[2] = size;
      auto partType = RankedTensorType::get(shape, lhsType.getElementType());
      FailureOr<SmallVector<OpFoldResult>> sizes =
          tensor::ExpandShapeOp::inferOutputShape(
              rewriter, loc, partType, expand.getReassociationIndices(),
              tensor::getMixedSizes(rewriter, loc, rows));
      assert(succeeded(sizes) && "one dynamic dim a group (concatAlongK)");
      return tensor::ExpandShapeOp::create(rewriter, loc, partType, rows,
                                           expand.getReassociationIndices(),
                                           *sizes);
    };
    ValueRange inputs = concat.getInputs();
    Value lhsFirst = part(inputs.drop_back(), kFirst);
    Value lhsLast = part(inputs.take_back(), kLast);
    int64_t kDim = op.getTransposeRhs() ? 1 : 0;
    Value rhsFirst = sliceK(rewriter, loc, op.getRhs(), kDim, 0, kFirst);
    Value rhsLast = sliceK(rewriter, loc, op.getRhs(), kDim, kFirst, kLast);
    // First: its f32 sum.
    auto partialType = RankedTensorType::get(type.getShape(),
                                             rewriter.getF32Type());
    Value partial = BatchMatmulOp::create(rewriter, loc, partialType, lhsFirst,
                                          rhsFirst, ValueRange(),
                                          op.getTransposeRhsAttr());
    // Second: the epilogue adds it at the element's place, then runs the
    // op's epilogue (or converts).
    SmallVector<Value> ins(op.getEpilogueIns());
    ins.push_back(partial);
    auto product = BatchMatmulOp::create(rewriter, loc, type, lhsLast, rhsLast,
                                         ins, op.getTransposeRhsAttr());
    product->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    Block *body = rewriter.createBlock(&product.getEpilogue());
    SmallVector<Type> argTypes = {rewriter.getF32Type(), rewriter.getIndexType(),
                                  rewriter.getIndexType(),
                                  rewriter.getIndexType()};
    for (Value in : ins)
      argTypes.push_back(in.getType());
    for (Type t : argTypes)
      body->addArgument(t, loc);
    rewriter.setInsertionPointToStart(body);
    Value sum = arith::AddFOp::create(
        rewriter, loc, body->getArgument(0),
        tensor::ExtractOp::create(rewriter, loc, body->getArguments().back(),
                                  body->getArguments().slice(1, 3)));
    if (!op.hasEpilogue()) {
      Value out = sum;
      if (type.getElementType() != sum.getType())
        out = arith::TruncFOp::create(rewriter, loc, type.getElementType(), sum);
      sc::YieldOp::create(rewriter, loc, out);
    } else {
      IRMapping mapping;
      Block &old = op.getEpilogue().front();
      mapping.map(old.getArgument(0), sum);
      for (unsigned i = 1; i < old.getNumArguments(); ++i)
        mapping.map(old.getArgument(i), body->getArgument(i));
      for (Operation &inner : old)
        rewriter.clone(inner, mapping);
    }
    rewriter.replaceOp(op, product.getResult());
    return success();
  }
};

struct ScSplitConcatKPass : sc::impl::ScSplitConcatKPassBase<ScSplitConcatKPass> {
  using Base::Base;
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitConcatK>(&getContext(), report);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
