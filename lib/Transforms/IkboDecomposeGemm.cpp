//===- IkboDecomposeGemm.cpp - request GEMM + candidate GEMM + gather-add -===//
//
// IKBO type I: when the contraction operand of a batched matmul concatenates
// request features broadcast to candidates with candidate features,
//
//   W @ concat_K(gather(R, idx), C)  ==  gather(W_R @ R, idx) + W_C @ C,
//
// so the request part is multiplied once per request (B_user rows) instead
// of once per candidate. Global decision (it needs lineage), so the pass
// analyzes first, collects the matmuls, then rewrites them.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Analysis/LineageAnalysis.h"
#include "sparcast/Transforms/Passes.h"
#include "sparcast/Transforms/Transforms.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "sc-ikbo-decompose-gemm"

namespace mlir::sc {
#define GEN_PASS_DEF_SCIKBODECOMPOSEGEMMPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// One input of the concatenation along K.
struct Segment {
  Value value;       // the concatenated value
  Value request;     // for a broadcast request segment: the request tensor
  int64_t offset = 0;
  int64_t size = 0;
};

/// Concatenates `values` along `dim` (the value itself when there is one).
Value concat(RewriterBase &rewriter, Location loc, int64_t dim,
             ArrayRef<Value> values) {
  if (values.size() == 1)
    return values.front();
  return tensor::ConcatOp::create(rewriter, loc, dim, values);
}

} // namespace

Value mlir::sc::sliceWeightAlongK(OpBuilder &b, Location loc, Value weight,
                                  int64_t kDim, int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(weight.getType());
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(type.getDimSize(0)),
                                     b.getIndexAttr(type.getDimSize(1))};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  offsets[kDim] = b.getIndexAttr(offset);
  sizes[kDim] = b.getIndexAttr(size);
  return tensor::ExtractSliceOp::create(b, loc, weight, offsets, sizes,
                                        strides);
}

LogicalResult mlir::sc::decomposeIkboGemm(RewriterBase &rewriter,
                                          BatchMatmulOp op,
                                          const LineageAnalysis &lineage,
                                          bool report,
                                          bool requestInResultType) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  bool transposed = op.getTransposeRhs();
  // A request tensor broadcast to the candidates inside a K concatenation:
  // what the decomposition removes.
  auto broadcastsRequest = [&](tensor::ConcatOp concat) {
    return concat && llvm::any_of(concat.getInputs(), [&](Value input) {
             auto gather = input.getDefiningOp<GatherRowsOp>();
             std::optional<LineageKind> source =
                 gather ? lineage.lookup(gather.getSource()) : std::nullopt;
             return source && *source == LineageKind::request;
           });
  };
  // Why a GEMM that broadcasts request rows stays as it is (a remark with
  // `report`: the broadcast is then still computed).
  auto keep = [&](const Twine &why) {
    if (report)
      op.emitRemark() << "not decomposed: " << why;
    return failure();
  };
  // Which operand concatenates along K: the rhs of W @ E[b] (K = dim 1 of
  // [B, K, N], dim 2 of [B, N, K]) or the lhs of E[b] @ W (K = dim 2).
  bool concatOnRhs;
  tensor::ConcatOp concatOp;
  if (lhsType.getRank() == 2 && rhsType.getRank() == 3) {
    concatOnRhs = true;
    concatOp = op.getRhs().getDefiningOp<tensor::ConcatOp>();
    if (!concatOp || concatOp.getDim() != (transposed ? 2u : 1u))
      return failure();
  } else if (lhsType.getRank() == 3 && rhsType.getRank() == 2) {
    concatOnRhs = false;
    concatOp = op.getLhs().getDefiningOp<tensor::ConcatOp>();
    if (!concatOp || concatOp.getDim() != 2)
      return failure();
  } else {
    if (broadcastsRequest(op.getLhs().getDefiningOp<tensor::ConcatOp>()) ||
        broadcastsRequest(op.getRhs().getDefiningOp<tensor::ConcatOp>()))
      return keep("the weight is batched (the request GEMM shares one "
                  "weight across the candidates)");
    return failure();
  }
  if (!broadcastsRequest(concatOp))
    return failure();

  // Classify the segments; every broadcast must use the same index.
  SmallVector<Segment> requests, candidates;
  Value index;
  int64_t offset = 0;
  for (auto [i, input] : llvm::enumerate(concatOp.getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t size = type.getDimSize(concatOp.getDim());
    if (ShapedType::isDynamic(size))
      return keep("segment #" + Twine(i) +
                  " of the K concatenation has a dynamic size");
    Segment segment{input, Value(), offset, size};
    offset += size;
    if (auto gather = input.getDefiningOp<GatherRowsOp>()) {
      std::optional<LineageKind> source = lineage.lookup(gather.getSource());
      if (source && *source == LineageKind::request) {
        if (index && index != gather.getIndices())
          return keep("its request segments are broadcast by different "
                      "indices");
        index = gather.getIndices();
        segment.request = gather.getSource();
        requests.push_back(segment);
        continue;
      }
    }
    // (Request rows next to broadcast ones are a lineage conflict, which
    // the analysis has reported.)
    std::optional<LineageKind> l = lineage.lookup(input);
    if (l && *l == LineageKind::request)
      return failure();
    candidates.push_back(segment);
  }
  if (candidates.empty())
    return keep("every segment of the K concatenation is a broadcast "
                "request: no candidate part");

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value weight = concatOnRhs ? op.getLhs() : op.getRhs();
  // K dim of the shared weight: [M, K] (lhs), [N, K] (transposed rhs) or
  // [K, N] (rhs).
  int64_t weightK = concatOnRhs ? 1 : (transposed ? 1 : 0);
  int64_t segmentK = concatOp.getDim();
  Type f32 = rewriter.getF32Type();
  RankedTensorType resultType = op.getType();

  // The request GEMM's result: f32, or the op's result type on request.
  Type requestType =
      requestInResultType ? resultType.getElementType() : Type(f32);
  auto buildGemm = [&](ArrayRef<Segment> segments, bool useRequest) {
    SmallVector<Value> slices, parts;
    for (const Segment &s : segments) {
      slices.push_back(
          sliceWeightAlongK(rewriter, loc, weight, weightK, s.offset, s.size));
      parts.push_back(useRequest ? s.request : s.value);
    }
    Value w = concat(rewriter, loc, weightK, slices);
    Value e = concat(rewriter, loc, segmentK, parts);
    int64_t batch = cast<RankedTensorType>(e.getType()).getDimSize(0);
    auto type = RankedTensorType::get(
        {batch, resultType.getDimSize(1), resultType.getDimSize(2)},
        useRequest ? requestType : f32);
    Value lhs = concatOnRhs ? w : e, rhs = concatOnRhs ? e : w;
    return BatchMatmulOp::create(rewriter, loc, type, lhs, rhs, ValueRange{},
                                 op.getTransposeRhsAttr())
        .getResult();
  };
  Value user = buildGemm(requests, /*useRequest=*/true);
  Value cand = buildGemm(candidates, /*useRequest=*/false);
  if (report) {
    int64_t kUser = 0, kCand = 0;
    for (const Segment &s : requests)
      kUser += s.size;
    for (const Segment &s : candidates)
      kCand += s.size;
    op.emitRemark() << "decomposed: request GEMM with K = " << kUser << " ("
                    << requests.size() << " segment(s)) at request rows, "
                    << "candidate GEMM with K = " << kCand << " ("
                    << candidates.size()
                    << " segment(s)) at candidate rows, joined by a gather-add";
  }
  auto candType = cast<RankedTensorType>(cand.getType());
  auto gatheredType = RankedTensorType::get(candType.getShape(), requestType);
  Value gathered =
      GatherRowsOp::create(rewriter, loc, gatheredType, user, index);

  // out = epilogue(cand + gathered), element-wise over [B, M, N].
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, cand);
  Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                       resultType.getElementType());
  AffineMap id = rewriter.getMultiDimIdentityMap(3);
  SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
  auto combine = linalg::GenericOp::create(
      rewriter, loc, init.getType(), ValueRange{cand, gathered},
      ValueRange{init}, SmallVector<AffineMap>(3, id), iters,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value request = args[1];
        if (request.getType() != f32)
          request = arith::ExtFOp::create(b, l, f32, request);
        Value sum = arith::AddFOp::create(b, l, args[0], request);
        Type out = resultType.getElementType();
        if (!op.hasEpilogue()) {
          Value v = sum;
          if (out != f32)
            v = arith::TruncFOp::create(b, l, out, sum);
          linalg::YieldOp::create(b, l, v);
          return;
        }
        Block &body = op.getEpilogue().front();
        IRMapping mapping;
        mapping.map(body.getArgument(0), sum);
        for (unsigned d = 0; d < 3; ++d)
          mapping.map(body.getArgument(1 + d), linalg::IndexOp::create(b, l, d));
        for (auto [i, v] : llvm::enumerate(op.getEpilogueIns()))
          mapping.map(body.getArgument(BatchMatmulOp::kNumEpilogueLeadingArgs + i), v);
        for (Operation &inner : body.without_terminator())
          b.clone(inner, mapping);
        linalg::YieldOp::create(
            b, l, mapping.lookup(cast<YieldOp>(body.getTerminator()).getValue()));
      });
  Value result = combine.getResult(0);
  if (result.getType() != resultType)
    result = tensor::CastOp::create(rewriter, loc, resultType, result);
  rewriter.replaceOp(op, result);
  return success();
}

namespace {
struct ScIkboDecomposeGemmPass
    : sc::impl::ScIkboDecomposeGemmPassBase<ScIkboDecomposeGemmPass> {
  using Base::Base;
  void runOnOperation() final {
    LineageAnalysis lineage(getOperation());
    if (lineage.hasConflicts())
      return signalPassFailure();
    SmallVector<BatchMatmulOp> matmuls;
    // (A sum of rows is the decomposed form's consumer, never decomposed.)
    getOperation()->walk([&](BatchMatmulOp op) {
      if (!op.getSumRows())
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (BatchMatmulOp op : matmuls)
      (void)decomposeIkboGemm(rewriter, op, lineage, report,
                              requestInResultType);
  }
};
} // namespace
