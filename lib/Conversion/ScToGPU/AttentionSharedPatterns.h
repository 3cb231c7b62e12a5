//===- AttentionSharedPatterns.h - what both attention lowerings share -*- C++ -*-===//
//
// The pieces of the Hopper (SckAttentionToNVGPU.cpp) and the sm_80 / sm_86
// / sm_89 (SckAttentionToMmaSync.cpp) attention lowerings that do not
// depend on the chip: the sck types' conversions, the tables the kernel
// reads (kernel arguments, or constants made globals of the module), and
// sck.softmax_init, sck.softmax, sck.rescale and sck.normalize lowered on
// accumulators in the m16n8 fragment layout (a thread's rows r and r + 8,
// column pairs 2 (lane % 4)), which wgmma and mma.sync share, writing
// AttentionSteps's steps. A frame gives `s` (AttentionShape), `v`
// (AttentionStepValues), `steps` (each softmax step's factors, kept for
// the rescale that uses them) and `globals` (each constant table's
// global, from attentionTableGlobals).
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONSHAREDPATTERNS_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONSHAREDPATTERNS_H

#include "AttentionKernelWriter.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::sc::detail {

/// The sck types as the lowerings carry them: rings and boxes as shared
/// memory offsets (index), a register tile as its A-fragment registers (4
/// a k16 step), an accumulator as a struct of f32, the softmax's
/// statistics as each thread's rows' maxima and sums (4 f32).
inline void addAttentionTypeConversions(TypeConverter &converter) {
  addSharedMemoryTypeConversions(converter);
  converter.addConversion([](sck::FragType t, SmallVectorImpl<Type> &out) {
    out.append(t.getShape()[1] / 16 * 4, IntegerType::get(t.getContext(), 32));
    return success();
  });
  converter.addConversion([](sck::AccType t, SmallVectorImpl<Type> &out) {
    MLIRContext *c = t.getContext();
    if (t.getShape()[1] == 2) {
      out.append(4, Float32Type::get(c));
      return success();
    }
    out.push_back(LLVM::LLVMStructType::getLiteral(
        c, SmallVector<Type>(t.getShape()[1] / 2, Float32Type::get(c))));
    return success();
  });
}

/// The reads of a kernel argument's table or a constant one must go
/// (AttentionTableToLoad); other tensor.extracts may stay.
inline void addAttentionTableLegality(ConversionTarget &target) {
  target.addDynamicallyLegalOp<tensor::ExtractOp>([](tensor::ExtractOp op) {
    if (kernelArgumentOf(op.getTensor()))
      return false;
    return !op.getTensor().getDefiningOp<arith::ConstantOp>();
  });
}

/// Each constant table `kernel` reads (a static mask's) as a private
/// global of its module, `<kernel>_table<i>`.
inline DenseMap<Operation *, std::string>
attentionTableGlobals(gpu::GPUFuncOp kernel) {
  DenseMap<Operation *, std::string> globals;
  auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
  OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
  int64_t tables = 0;
  kernel.walk([&](tensor::ExtractOp extract) {
    auto constant = extract.getTensor().getDefiningOp<arith::ConstantOp>();
    if (!constant || globals.count(constant))
      return;
    auto values = cast<DenseIntElementsAttr>(constant.getValue());
    std::string name = (kernel.getName() + "_table" + Twine(tables++)).str();
    memref::GlobalOp::create(
        top, kernel.getLoc(), name, top.getStringAttr("private"),
        MemRefType::get(values.getType().getShape(),
                        values.getType().getElementType()),
        values, /*constant=*/true, IntegerAttr());
    globals[constant] = name;
  });
  return globals;
}

/// AttentionSteps at a pattern's point, on a frame's values.
struct SoftmaxEmitter : AttentionSteps {
  SoftmaxEmitter(OpBuilder &b, Location loc, const AttentionShape &s,
                 const AttentionStepValues &v)
      : AttentionSteps(b, loc, s, v) {}
  using AttentionSteps::f32;
  using KernelArith::index;
};

template <typename Op, typename Frame>
struct SoftmaxPattern : FramePattern<Op, Frame> {
  using FramePattern<Op, Frame>::FramePattern;
  SoftmaxEmitter emitter(OpBuilder &b, Location loc) const {
    return SoftmaxEmitter(b, loc, this->frame.s, this->frame.v);
  }
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

/// A kernel argument's table (the index, the pairs, the runtime's BSR
/// tables) or a constant one (a static mask's, the frame's global) read at
/// an index.
template <typename Frame>
struct AttentionTableToLoad : SoftmaxPattern<tensor::ExtractOp, Frame> {
  using SoftmaxPattern<tensor::ExtractOp, Frame>::SoftmaxPattern;
  LogicalResult
  matchAndRewrite(tensor::ExtractOp extract,
                  typename tensor::ExtractOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Value memref = kernelArgumentOf(extract.getTensor());
    if (!memref) {
      auto it = this->frame.globals.find(extract.getTensor().getDefiningOp());
      if (it == this->frame.globals.end())
        return failure();
      auto type = cast<RankedTensorType>(extract.getTensor().getType());
      memref = memref::GetGlobalOp::create(
          rewriter, extract.getLoc(),
          MemRefType::get(type.getShape(), type.getElementType()), it->second);
    }
    rewriter.replaceOpWithNewOp<memref::LoadOp>(extract, memref,
                                                adaptor.getIndices());
    return success();
  }
};

/// The softmax's four patterns and the table reads, on `frame`.
template <typename Frame>
void populateAttentionSharedPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     const Frame &frame) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SoftmaxInitToRows<Frame>, SoftmaxToRows<Frame>,
               RescaleToMultiply<Frame>, NormalizeToRowSums<Frame>,
               AttentionTableToLoad<Frame>>(converter, ctx, frame);
}

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONSHAREDPATTERNS_H
