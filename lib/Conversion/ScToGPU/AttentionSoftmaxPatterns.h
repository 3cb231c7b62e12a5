//===- AttentionSoftmaxPatterns.h - the online softmax's ops, any chip -*- C++ -*-===//
//
// sck.softmax_init, sck.softmax, sck.rescale and sck.normalize lowered on
// accumulators in the m16n8 fragment layout (a thread's rows r and r + 8,
// column pairs 2 (lane % 4)), which Hopper's wgmma and sm_80's mma.sync
// share: the patterns of both attention lowerings (SckAttentionToNVGPU.cpp,
// SckAttentionToMmaSync.cpp), writing AttentionSteps's steps. A frame gives
// `s` (AttentionShape), `v` (AttentionStepValues) and `steps` (each softmax
// step's factors, kept for the rescale that uses them).
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONSOFTMAXPATTERNS_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONSOFTMAXPATTERNS_H

#include "AttentionKernelWriter.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::sc::detail {

/// AttentionSteps at a pattern's point, on a frame's values.
struct SoftmaxEmitter : AttentionSteps {
  SoftmaxEmitter(OpBuilder &b, Location loc, const AttentionShape &s,
                 const AttentionStepValues &v)
      : AttentionSteps(b, loc, s, v) {}
  using AttentionSteps::f32;
  using KernelArith::index;
};

template <typename Op, typename Frame>
struct SoftmaxPattern : OpConversionPattern<Op> {
  SoftmaxPattern(const TypeConverter &converter, MLIRContext *ctx,
                 const Frame &frame)
      : OpConversionPattern<Op>(converter, ctx), frame(frame) {}
  SoftmaxEmitter emitter(OpBuilder &b, Location loc) const {
    return SoftmaxEmitter(b, loc, frame.s, frame.v);
  }
  const Frame &frame;
};

/// Each row's maximum (scaled, so that exp2 needs one fma) and sum: -1e30
/// and 0 (finite: no inf - inf).
template <typename Frame>
struct SoftmaxInitToRows : SoftmaxPattern<sck::SoftmaxInitOp, Frame> {
  using SoftmaxPattern<sck::SoftmaxInitOp, Frame>::SoftmaxPattern;
  LogicalResult
  matchAndRewrite(sck::SoftmaxInitOp op, typename sck::SoftmaxInitOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    SoftmaxEmitter e = this->emitter(rewriter, op.getLoc());
    Value m = e.f32(-1.0e30), l = e.f32(0.0);
    rewriter.replaceOpWithMultiple(op, {{m, m, l, l}});
    return success();
  }
};

/// The online softmax step: the block's key start masks keys past the
/// length; skipping unmoved maxima and guessing that none moves as the
/// frame's shape says (the guess never on a row's first block).
template <typename Frame>
struct SoftmaxToRows : SoftmaxPattern<sck::SoftmaxOp, Frame> {
  using SoftmaxPattern<sck::SoftmaxOp, Frame>::SoftmaxPattern;
  LogicalResult
  matchAndRewrite(sck::SoftmaxOp op,
                  typename sck::SoftmaxOp::template GenericAdaptor<
                      ArrayRef<ValueRange>>
                      adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const Frame &frame = this->frame;
    SoftmaxEmitter e = this->emitter(rewriter, op.getLoc());
    ValueRange state = adaptor.getState();
    RowState rows{state[0], state[1], state[2], state[3], {}};
    Value keyBlock = arith::DivUIOp::create(
        rewriter, op.getLoc(), adaptor.getKeyStart().front(),
        e.index(frame.s.blockN));
    bool first =
        static_cast<bool>(op.getState().template getDefiningOp<sck::SoftmaxInitOp>());
    Value s = adaptor.getS().front();
    SoftmaxStep step =
        frame.s.speculativeSoftmax && !first
            ? e.speculativeSoftmax(s, keyBlock, rows)
            : e.softmax(s, keyBlock, rows, frame.s.skipUnmovedMaxima);
    frame.steps[op.getNewState()] = step;
    rewriter.replaceOpWithMultiple(
        op, {step.p, {step.mNew0, step.mNew8, step.lNew0, step.lNew8}});
    return success();
  }
};

/// O brought to the new maxima (rows that took one).
template <typename Frame>
struct RescaleToMultiply : SoftmaxPattern<sck::RescaleOp, Frame> {
  using SoftmaxPattern<sck::RescaleOp, Frame>::SoftmaxPattern;
  LogicalResult
  matchAndRewrite(sck::RescaleOp op,
                  typename sck::RescaleOp::template GenericAdaptor<
                      ArrayRef<ValueRange>>
                      adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    auto it = this->frame.steps.find(op.getTo());
    if (it == this->frame.steps.end())
      return op.emitError("sck-to-nvgpu: O rescaled to the maxima of a "
                          "softmax step lowered before it");
    SoftmaxEmitter e = this->emitter(rewriter, op.getLoc());
    rewriter.replaceOpWithMultiple(
        op, {{e.rescale(adaptor.getO().front(), it->second)}});
    return success();
  }
};

/// O times its rows' inverse sums.
template <typename Frame>
struct NormalizeToRowSums : SoftmaxPattern<sck::NormalizeOp, Frame> {
  using SoftmaxPattern<sck::NormalizeOp, Frame>::SoftmaxPattern;
  LogicalResult
  matchAndRewrite(sck::NormalizeOp op,
                  typename sck::NormalizeOp::template GenericAdaptor<
                      ArrayRef<ValueRange>>
                      adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    SoftmaxEmitter e = this->emitter(rewriter, op.getLoc());
    ValueRange state = adaptor.getState();
    rewriter.replaceOpWithMultiple(
        op, {{e.normalized(adaptor.getO().front(), state[2], state[3])}});
    return success();
  }
};

/// The four patterns, on `frame`.
template <typename Frame>
void populateAttentionSoftmaxPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      const Frame &frame) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SoftmaxInitToRows<Frame>, SoftmaxToRows<Frame>,
               RescaleToMultiply<Frame>, NormalizeToRowSums<Frame>>(
      converter, ctx, frame);
}

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONSOFTMAXPATTERNS_H
