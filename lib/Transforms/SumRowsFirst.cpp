//===- SumRowsFirst.cpp - a shared lhs's rows summed before the matmul ----===//
//
// sum_m (W E)[m, n] = (sum_m W[m, :]) E[:, n]: a matmul whose result rows
// are summed (sum_rows) multiplies the row sum of its shared lhs instead,
// one row (two 16-bit rows, hi + lo) in place of M.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "sc-sum-rows-first"

namespace mlir::sc {
#define GEN_PASS_DEF_SCSUMROWSFIRSTPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

constexpr unsigned kLead = BatchMatmulOp::kNumEpilogueLeadingArgs;

/// Whether `v` depends on any of `args` (block arguments of its block).
bool dependsOn(Value v, ArrayRef<Value> args) {
  if (llvm::is_contained(args, v))
    return true;
  Operation *def = v.getDefiningOp();
  return def && llvm::any_of(def->getOperands(),
                             [&](Value x) { return dependsOn(x, args); });
}

/// What an epilogue adds to the accumulator before it is (maybe) rounded
/// and yielded: nothing (null `term`); operand `operand` read at [g, m, n]
/// (`read`; a gathered tile, BatchMatmulOp::getGatheredTileIndex), whose
/// rows are then summed; or a term that depends on neither the
/// accumulator nor the row (a bias at [n]), then added M times.
struct AffineEpilogue {
  Value term;
  tensor::ExtractOp read;
  unsigned operand = 0;
  /// The ops that go: the addition, the rounding, the read and its
  /// extension.
  SmallVector<Operation *> replaced;
};

/// The affine form of `op`'s epilogue (none without a region), or
/// failure for any other epilogue.
FailureOr<AffineEpilogue> matchAffineEpilogue(BatchMatmulOp op) {
  AffineEpilogue form;
  if (!op.hasEpilogue())
    return form;
  Block &body = op.getEpilogue().front();
  Value acc = body.getArgument(0), m = body.getArgument(2);
  Value v = body.getTerminator()->getOperand(0);
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>()) {
    form.replaced.push_back(trunc);
    v = trunc.getIn();
  }
  if (v == acc)
    return form;
  auto add = v.getDefiningOp<arith::AddFOp>();
  if (!add || (add.getLhs() != acc && add.getRhs() != acc) ||
      add.getLhs() == add.getRhs())
    return failure();
  form.replaced.push_back(add);
  form.term = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (!dependsOn(form.term, {acc, m}))
    return form;
  Value x = form.term;
  auto ext = x.getDefiningOp<arith::ExtFOp>();
  if (ext)
    x = ext.getIn();
  auto read = x.getDefiningOp<tensor::ExtractOp>();
  auto in = read ? dyn_cast<BlockArgument>(read.getTensor()) : BlockArgument();
  // A gathered tile's read, its only one (its rows are summed).
  std::string why;
  if (!in || in.getOwner() != &body || in.getArgNumber() < kLead ||
      !in.hasOneUse() ||
      !BatchMatmulOp::getGatheredTileIndex(body, in.getArgNumber() - kLead, why))
    return failure();
  form.read = read;
  form.operand = in.getArgNumber() - kLead;
  form.replaced.push_back(read);
  if (ext)
    form.replaced.push_back(ext);
  return form;
}

/// `like`'s matmul of `lhs` (its rhs and layout) with its rows summed
/// into an f32 `resultType`, epilogue operands `ins`, and an epilogue of
/// (acc, b, m, n, ins...) that yields acc.
BatchMatmulOp createSummedRows(PatternRewriter &rewriter, BatchMatmulOp like,
                               RankedTensorType resultType, Value lhs,
                               ValueRange ins) {
  Location loc = like.getLoc();
  auto op = BatchMatmulOp::create(rewriter, loc, resultType, lhs, like.getRhs(),
                                  ins, like.getTransposeRhsAttr());
  op.setSumRows(true);
  op->setDiscardableAttrs(like->getDiscardableAttrDictionary());
  Type index = rewriter.getIndexType();
  SmallVector<Type> types = {rewriter.getF32Type(), index, index, index};
  for (Value in : ins)
    types.push_back(in.getType());
  SmallVector<Location> locs(types.size(), loc);
  OpBuilder::InsertionGuard guard(rewriter);
  Block *body = rewriter.createBlock(&op.getEpilogue(), {}, types, locs);
  sc::YieldOp::create(rewriter, loc, body->getArgument(0));
  return op;
}

/// sum_m x[.., m, ..] over dim `dim` of `x`, in f32 from zeros, as a
/// linalg.generic (the kernels' generic path runs it).
Value sumOverDim(PatternRewriter &rewriter, Location loc, Value x,
                 int64_t dim) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == dim)
      continue;
    shape.push_back(type.getDimSize(d));
    if (type.isDynamicDim(d))
      dynamic.push_back(tensor::DimOp::create(rewriter, loc, x, d));
    outExprs.push_back(rewriter.getAffineDimExpr(d));
  }
  Value empty = tensor::EmptyOp::create(rewriter, loc, shape,
                                        rewriter.getF32Type(), dynamic);
  Value zero = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getF32FloatAttr(0));
  Value zeros = linalg::FillOp::create(rewriter, loc, zero, empty).result();
  SmallVector<AffineMap> maps = {
      rewriter.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, outExprs, rewriter.getContext())};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators[dim] = utils::IteratorType::reduction;
  auto sum = linalg::GenericOp::create(
      rewriter, loc, zeros.getType(), ValueRange{x}, ValueRange{zeros}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Value v = args[0];
        if (!v.getType().isF32())
          v = arith::ExtFOp::create(b, l, b.getF32Type(), v);
        linalg::YieldOp::create(b, l, arith::AddFOp::create(b, l, args[1], v).getResult());
      });
  return sum.getResult(0);
}

/// The f32 row `row` [K] as two rows [2, K] of `element`: hi = round(row),
/// lo = round(row - hi), whose sum is the row to about twice the
/// element's precision.
Value splitHiLo(PatternRewriter &rewriter, Location loc, Value row,
                Type element) {
  int64_t k = cast<RankedTensorType>(row.getType()).getDimSize(0);
  Value empty = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{2, k},
                                        element);
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::get(2, 0, {rewriter.getAffineDimExpr(1)}, ctx),
      rewriter.getMultiDimIdentityMap(2)};
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  auto split = linalg::GenericOp::create(
      rewriter, loc, empty.getType(), ValueRange{row}, ValueRange{empty}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Value hi = arith::TruncFOp::create(b, l, element, args[0]);
        Value rest = arith::SubFOp::create(
            b, l, args[0], arith::ExtFOp::create(b, l, b.getF32Type(), hi));
        Value lo = arith::TruncFOp::create(b, l, element, rest);
        Value first = arith::CmpIOp::create(
            b, l, arith::CmpIPredicate::eq, linalg::IndexOp::create(b, l, 0),
            arith::ConstantIndexOp::create(b, l, 0));
        linalg::YieldOp::create(
            b, l, arith::SelectOp::create(b, l, first, hi, lo).getResult());
      });
  return split.getResult(0);
}

struct SumLhsRowsFirst : OpRewritePattern<BatchMatmulOp> {
  SumLhsRowsFirst(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;

  LogicalResult matchAndRewrite(BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType lhsType = op.getLhs().getType();
    Type element = lhsType.getElementType();
    // A shared lhs of more than the two rows it would become.
    if (!op.getSumRows() || lhsType.getRank() != 2 ||
        !lhsType.hasStaticShape() || lhsType.getDimSize(0) <= 2 ||
        (!element.isF16() && !element.isBF16()) ||
        op.getRhs().getType().getEncoding())
      return failure();
    FailureOr<AffineEpilogue> form = matchAffineEpilogue(op);
    if (failed(form))
      return rewriter.notifyMatchFailure(op, "an epilogue other than acc (+ "
                                             "an operand at [g, m, n] or a "
                                             "term independent of m)");
    Location loc = op.getLoc();
    SmallVector<Value> ins(op.getEpilogueIns());
    if (form->read) {
      // The read operand's rows summed: by its matmul where it has no
      // other use, else by a reduction.
      Value x = ins[form->operand];
      auto xType = cast<RankedTensorType>(x.getType());
      auto producer = x.getDefiningOp<BatchMatmulOp>();
      auto oneRow = RankedTensorType::get(
          {xType.getDimSize(0), 1, xType.getDimSize(2)}, rewriter.getF32Type());
      if (producer && x.hasOneUse() && !producer.getSumRows() &&
          producer.getLhs().getType().getRank() == 2 &&
          xType.getElementType().isF32() && !producer.hasEpilogue()) {
        ins[form->operand] =
            createSummedRows(rewriter, producer, oneRow, producer.getLhs(),
                             producer.getEpilogueIns())
                .getResult();
      } else {
        Value sum = sumOverDim(rewriter, loc, x, 1);
        ins[form->operand] = tensor::ExpandShapeOp::create(
            rewriter, loc, oneRow, sum,
            ArrayRef<ReassociationIndices>{{0}, {1, 2}});
      }
    }
    Value rowSum = sumOverDim(rewriter, loc, op.getLhs(), 0);
    Value lhs = splitHiLo(rewriter, loc, rowSum, element);
    // The region: the accumulator in f32, plus, on row 0 only, the term
    // summed over the rows (the old body's other ops cloned).
    auto first = createSummedRows(rewriter, op, op.getType(), lhs, ins);
    Block &body = first.getEpilogue().front();
    if (form->term) {
      Block &old = op.getEpilogue().front();
      IRMapping mapping;
      mapping.map(old.getArguments(), body.getArguments());
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(body.getTerminator());
      for (Operation &inner : old.without_terminator())
        if (!llvm::is_contained(form->replaced, &inner))
          rewriter.clone(inner, mapping);
      Value zeroIndex = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value summed;
      if (form->read) {
        Value g = mapping.lookupOrDefault(form->read.getIndices()[0]);
        summed = tensor::ExtractOp::create(
            rewriter, loc, body.getArgument(kLead + form->operand),
            ValueRange{g, zeroIndex, body.getArgument(3)});
      } else {
        Value rows = arith::ConstantOp::create(
            rewriter, loc, rewriter.getF32FloatAttr(lhsType.getDimSize(0)));
        summed = arith::MulFOp::create(rewriter, loc,
                                       mapping.lookupOrDefault(form->term), rows);
      }
      Value onFirstRow = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, body.getArgument(2), zeroIndex);
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getF32FloatAttr(0));
      Value added = arith::SelectOp::create(rewriter, loc, onFirstRow, summed, zero);
      Value sum = arith::AddFOp::create(rewriter, loc, body.getArgument(0), added);
      body.getTerminator()->setOperand(0, sum);
    }
    if (report)
      op.emitRemark() << "its lhs's " << lhsType.getDimSize(0)
                      << " rows summed before the product (one f32 row as "
                         "hi + lo "
                      << element << " rows)"
                      << (form->read   ? ", the gathered operand's rows "
                                           "summed and added once"
                          : form->term ? ", the term added to each row added "
                                         "M times once"
                                       : "");
    rewriter.replaceOp(op, first.getResult());
    return success();
  }
};

struct ScSumRowsFirstPass
    : sc::impl::ScSumRowsFirstPassBase<ScSumRowsFirstPass> {
  using Base::Base;
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    patterns.add<SumLhsRowsFirst>(&getContext(), report);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
