//===- IkboAttention.cpp - attention reading K/V through the index --------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Transforms/Transforms.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "sc-ikbo-attention"

namespace mlir::sc {
#define GEN_PASS_DEF_SCIKBOATTENTIONPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// attention(q, gather(K, i), gather(V, i)) == attention(q, K, V, index i):
/// the definition of the indexed op.
struct IndexBroadcastKeysAndValues : OpRewritePattern<AttentionOp> {
  IndexBroadcastKeysAndValues(MLIRContext *ctx, bool report)
      : OpRewritePattern(ctx), report(report) {}
  bool report;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getIndex())
      return failure();
    auto key = op.getKey().getDefiningOp<GatherRowsOp>();
    auto value = op.getValue().getDefiningOp<GatherRowsOp>();
    if (!key || !value || key.getIndices() != value.getIndices())
      return failure();
    if (report)
      op.emitRemark() << "keys and values read through the index: "
                         "the B_cand-row broadcasts are gone";
    auto indexed = AttentionOp::create(
        rewriter, op.getLoc(), op.getType(), op.getQuery(), key.getSource(),
        value.getSource(), key.getIndices(), op.getMaskAttr(),
        op.getScaleAttr());
    // What was asked of the kernel (a pinned sc.attention_config) stays
    // with the op.
    indexed->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.replaceOp(op, indexed);
    return success();
  }
};

struct ScIkboAttentionPass
    : sc::impl::ScIkboAttentionPassBase<ScIkboAttentionPass> {
  using Base::Base;
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    populateScIkboAttentionPatterns(patterns, report);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::sc::populateScIkboAttentionPatterns(RewritePatternSet &patterns,
                                               bool report) {
  patterns.add<IndexBroadcastKeysAndValues>(patterns.getContext(), report);
}
