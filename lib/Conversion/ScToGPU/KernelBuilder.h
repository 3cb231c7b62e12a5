//===- KernelBuilder.h - what the kernels built with OpBuilder share -*- C++ -*-===//
#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_KERNELBUILDER_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_KERNELBUILDER_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <string>

namespace mlir::sc::detail {

/// A conversion pattern of `Op` that lowers into a kernel's frame (the
/// values and layout its patterns share, built before they run).
template <typename Op, typename Frame>
struct FramePattern : OpConversionPattern<Op> {
  FramePattern(const TypeConverter &converter, MLIRContext *ctx,
               const Frame &frame)
      : OpConversionPattern<Op>(converter, ctx), frame(frame) {}
  const Frame &frame;
};

/// The type conversions every sck lowering shares: other types as they are,
/// a ring and a box as their shared-memory offsets (index). Each lowering
/// adds its accumulator's (and fragments').
inline void addSharedMemoryTypeConversions(TypeConverter &converter) {
  converter.addConversion([](Type t) { return t; });
  converter.addConversion(
      [](sck::RingType t) -> Type { return IndexType::get(t.getContext()); });
  converter.addConversion(
      [](sck::BoxType t) -> Type { return IndexType::get(t.getContext()); });
}

/// Shared memory the Hopper kernels keep for aligning their region to 1024
/// bytes (128B-swizzled TMA tiles need it) past the mbarriers ptxas places
/// at the dynamic-memory symbol.
constexpr int64_t kSmemAlignReserve = 1280;

/// The wgmma descriptor bits of a 128B-swizzled operand: swizzle mode 1 in
/// bits 62-63, 1024-byte stride between 8-row groups, 8192-byte leading
/// offset between 64-element column blocks (an N-major B); the start
/// address (>> 4, bits 0-13, from an address masked to 18 bits) is or-ed
/// in.
constexpr int64_t kWgmmaDescriptorBits = 0x4000004002000000;
constexpr int64_t kDescriptorAddressMask = 0x3ffff;

std::string typeToString(Type type);

/// The integer arithmetic the kernel writers build their addresses,
/// ring positions and tile decodes with: index and i32 constants and
/// unsigned index operations, at the writer's location.
class KernelArith {
protected:
  KernelArith(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }
  /// The f32 `v` summed over the lanes whose ids differ from this one's in
  /// the bits of `masks` (a butterfly of xor shuffles over the warp).
  Value sumOverLanes(Value v, ArrayRef<int64_t> masks) {
    for (int64_t mask : masks)
      v = arith::AddFOp::create(
          b, loc, v,
          gpu::ShuffleOp::create(b, loc, v, i32(mask), i32(32),
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult());
    return v;
  }
  /// ceil(x / y) for x + y within the index range.
  Value ceilDiv(Value x, Value y) {
    return div(sub(add(x, y), index(1)), y);
  }
  /// Ring position `j` of a ring of `stages` slots -> its slot and the
  /// parity its full barrier has once the slot is full (`free`: the empty
  /// barrier's once it is free again, one phase earlier, so that the first
  /// wait for a free slot passes at once).
  std::pair<Value, Value> ringSlotAndParity(Value j, int64_t stages,
                                            bool free) {
    Value slot = rem(j, index(stages));
    Value phase = rem(div(j, index(stages)), index(2));
    if (free)
      phase = arith::XOrIOp::create(b, loc, phase, index(1));
    return {slot,
            arith::IndexCastOp::create(b, loc, b.getI1Type(), phase).getResult()};
  }
  /// A consumer warp frees ring slot `slot`: its lane 0 (by thread id
  /// `tid`) arrives on the slot's empty barrier of `barriers` and, in a
  /// cluster of two whose loads fill the slot in both CTAs (`peer`, the
  /// other's rank as i32, non-null), on the same barrier there (mapa).
  void releaseByLaneZero(Value tid, Value barriers, Value slot, Value peer);
  /// The wgmma shared-memory descriptor of the 128B-swizzled box
  /// `byteOffset` bytes into the region whose shared address (i64) is
  /// `smemBase`.
  Value wgmmaDescriptor(Value smemBase, Value byteOffset) {
    auto i64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
    };
    Value offset = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOffset);
    Value masked = arith::AndIOp::create(b, loc, add(smemBase, offset),
                                         i64(kDescriptorAddressMask));
    Value encoded = arith::ShRUIOp::create(b, loc, masked, i64(4));
    return arith::OrIOp::create(b, loc, encoded, i64(kWgmmaDescriptorBits));
  }

  OpBuilder &b;
  Location loc;
};

/// ldmatrix .x4 of 16-bit elements at `sharedPtr` (an !llvm.ptr<3>, this
/// lane's row), `.trans` when `transposed`: the four registers.
SmallVector<Value> loadMatrixX4(OpBuilder &b, Location loc, Value sharedPtr,
                                bool transposed);

/// The argument of `kernel` named `name` by its `sck.operand` attribute
/// (the kernels lowered from the kernel-level IR), or null.
Value namedKernelArgument(gpu::GPUFuncOp kernel, StringRef name);

/// The kernel argument a tensor of the kernel-level IR stands for (the
/// IR cloned into a kernel reads its tensors through unrealized casts of
/// memref arguments), or null.
Value kernelArgumentOf(Value tensor);

/// What a conversion of the kernel-level IR takes as legal: no sck op but
/// an sck.load whose users are all sck.put (a put's pattern reads its
/// loads and erases them: erasePutAndItsLoads), every other op.
void addKernelConversionLegality(ConversionTarget &target);

/// sck.mma_wait -> wgmma.wait_group (the Hopper conversions' MMAs leave
/// their group in flight).
struct MmaWaitToWgmmaWait : OpConversionPattern<sck::MmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::MmaWaitOp wait, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final;
};

/// After thread 0 initialized the mbarriers (at `b`): the CTA meets before
/// any thread uses them; in a cluster of two (`pairs`), whose CTAs use
/// each other's barriers, the inits are fenced and the cluster meets, and
/// it meets again before `kernel` returns (no CTA leaves while the other
/// may still write into it or arrive on its barriers).
void publishBarrierInits(OpBuilder &b, Location loc, gpu::GPUFuncOp kernel,
                         bool pairs);

/// Erases a lowered `put` and the sck.load ops that made its boxes.
void erasePutAndItsLoads(ConversionPatternRewriter &rewriter, sck::PutOp put);

/// Applies a conversion of the kernel-level IR in `kernel`: a refusing
/// pattern's located error is the only diagnostic (the driver's "failed
/// to legalize" after it would repeat it); once converted, the argument
/// names and the kernel's sck attributes are dropped, and with `cse`
/// common subexpressions merged.
LogicalResult applyKernelConversion(gpu::GPUFuncOp kernel,
                                    const ConversionTarget &target,
                                    RewritePatternSet &&patterns, bool cse);

/// A kernel parameter: its type in the gpu.func and what the launch passes
/// for it (one list, so the signature and the launch cannot disagree).
struct KernelParam {
  Type type;
  LaunchParam launch;
};

/// The kernel-level function `op` points at (its sc.kernel_ir attribute,
/// from sc-lower-to-sck): a null function when it has none, failure (with
/// a located error) when the symbol names no function.
FailureOr<func::FuncOp> kernelIRFunction(Operation *op);

/// Kernel `name` (params, and shared-memory buffers `workgroup`) at the end
/// of `module`, launched with `threads` threads a CTA (nvvm.maxntid); `b`
/// is left at the start of its body.
inline gpu::GPUFuncOp createKernelFunction(OpBuilder &b, Location loc,
                                           gpu::GPUModuleOp module,
                                           StringRef name, TypeRange params,
                                           int64_t threads,
                                           TypeRange workgroup = {}) {
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     b.getFunctionType(params, {}), workgroup);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("nvvm.maxntid",
                b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  return func;
}

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_KERNELBUILDER_H
