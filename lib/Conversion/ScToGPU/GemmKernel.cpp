//===- GemmKernel.cpp - sc.batch_matmul to a GPU kernel ------------------===//
//
// Which kernel an sc.batch_matmul gets, and what the kernels share. On
// sm_90a, when the op fits TMA and wgmma: the warp-specialized kernel its
// kernel-level IR describes (cooperative, ping-pong or the transposed
// tile), lowered by sc-convert-sck-to-nvgpu (SckToNVGPU.cpp); else the
// portable kernel (GemmPortableKernel.cpp), with a remark saying why. The
// epilogue region becomes a device function, built op by op.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Transforms/KernelConfig.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using mlir::sc::detail::typeToString;

namespace mlir::sc::detail {

MemRefType memrefOf(RankedTensorType t) {
  return MemRefType::get(t.getShape(), t.getElementType());
}

RankedTensorType rhsTypeAsRead(BatchMatmulOp op, const GemmBinding &binding) {
  RankedTensorType rhsType = op.getRhs().getType();
  SmallVector<int64_t> dims(rhsType.getShape());
  if (binding.rhsSourceK)
    dims[dims.size() - 2] = binding.rhsSourceK;
  return RankedTensorType::get(dims, rhsType.getElementType());
}

FailureOr<std::pair<gpu::GPUFuncOp, func::FuncOp>>
createMemrefGemmKernel(BatchMatmulOp op, gpu::GPUModuleOp module,
                       StringRef name, int64_t threads, Block *epilogueBody,
                       OpBuilder &b) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<Type> params = {memrefOf(op.getLhs().getType()),
                              memrefOf(op.getRhs().getType()),
                              memrefOf(op.getType())};
  SmallVector<Type> epilogueTypes = {Float32Type::get(ctx)};
  epilogueTypes.append(3, IndexType::get(ctx));
  for (Value in : op.getEpilogueIns()) {
    params.push_back(memrefOf(cast<RankedTensorType>(in.getType())));
    epilogueTypes.push_back(params.back());
  }
  auto func = createKernelFunction(b, loc, module, name, params, threads);
  b.setInsertionPointToEnd(module.getBody());
  auto epilogue = func::FuncOp::create(
      b, loc, (name + "_epilogue").str(),
      b.getFunctionType(epilogueTypes, {op.getEpilogueElementType()}));
  epilogue.setPrivate();
  if (failed(buildEpilogueFunction(op, epilogueBody, epilogue, std::nullopt)))
    return failure();
  b.setInsertionPointToStart(&func.getBody().front());
  return std::make_pair(func, epilogue);
}

std::vector<LaunchParam> memrefGemmParams(const GemmBinding &binding) {
  std::vector<LaunchParam> params;
  for (const std::string &name : {binding.lhs, binding.rhs, binding.result})
    params.push_back(LaunchParam::memref(name));
  for (const std::string &name : binding.epilogueIns)
    params.push_back(LaunchParam::memref(name));
  return params;
}

/// Whether `div` may run as a full-range approximate f32 division: the
/// epilogue asked for approximate functions (fastmath<afn>).
static bool isApproximateF32Division(arith::DivFOp div) {
  return div.getType().isF32() &&
         arith::bitEnumContainsAll(div.getFastmath(),
                                   arith::FastMathFlags::afn);
}

/// Clones `inner`, an op of an epilogue region, into `b`: tensor.extract on
/// an epilogue operand becomes memref.load; an f32 arith.divf with
/// fastmath<afn> becomes div.full.f32 (within 2 ulp over the whole range,
/// with no call to the IEEE division's slow path, which dominates the
/// similarity tile kernels: docs/decisions.md); ops on tensors or with
/// regions are refused.
static LogicalResult cloneEpilogueOp(Operation &inner, OpBuilder &b,
                                     IRMapping &mapping) {
  if (auto div = dyn_cast<arith::DivFOp>(inner);
      div && isApproximateF32Division(div)) {
    b.getContext()->getOrLoadDialect<LLVM::LLVMDialect>();
    Value quotient =
        LLVM::CallIntrinsicOp::create(
            b, inner.getLoc(), b.getF32Type(),
            b.getStringAttr("llvm.nvvm.div.full"),
            ValueRange{mapping.lookup(div.getLhs()), mapping.lookup(div.getRhs())})
            .getResult(0);
    mapping.map(div.getResult(), quotient);
    return success();
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
    Value memref = mapping.lookupOrNull(extract.getTensor());
    if (!memref || !isa<MemRefType>(memref.getType()))
      return inner.emitError()
             << "the GPU epilogue reads only the epilogue operands";
    SmallVector<Value> indices;
    for (Value i : extract.getIndices())
      indices.push_back(mapping.lookup(i));
    Value loaded = memref::LoadOp::create(b, inner.getLoc(), memref, indices);
    mapping.map(extract.getResult(), loaded);
    return success();
  }
  bool touchesTensors =
      llvm::any_of(inner.getOperandTypes(), llvm::IsaPred<TensorType>) ||
      llvm::any_of(inner.getResultTypes(), llvm::IsaPred<TensorType>) ||
      inner.getNumRegions() != 0;
  if (touchesTensors)
    return inner.emitError() << "'" << inner.getName()
                             << "' is not supported in a GPU epilogue";
  b.clone(inner, mapping);
  return success();
}

/// The epilogue of `op`'s result ("C") in its kernel-level function
/// (sc.kernel_ir), if any (a multi-stage kernel also has stage 1's, "C1").
static sck::EpilogueOp kernelIREpilogue(BatchMatmulOp op) {
  Operation *kernel = op.getKernelIR();
  sck::EpilogueOp found;
  if (kernel)
    kernel->walk([&](sck::EpilogueOp epilogue) {
      if (epilogue.getResult() != "C")
        return WalkResult::advance();
      found = epilogue;
      return WalkResult::interrupt();
    });
  return found;
}

Block *epilogueBlock(BatchMatmulOp op) {
  sck::EpilogueOp epilogue = kernelIREpilogue(op);
  // An epilogue with a prefetched box reads it from shared memory, which
  // only sck-to-nvgpu's kernels stream; a kernel reading its operands in
  // place takes the op's region (the same meaning).
  if (!epilogue || llvm::any_of(epilogue.getIns().getTypes(),
                                llvm::IsaPred<sck::BoxType>))
    return op.getEpilogueBlock();
  return epilogue.getBody().empty() ? nullptr : &epilogue.getBody().front();
}

/// The epilogue `body` ((acc, b, m, n, ins...) -> element, see
/// epilogueBlock; null: the accumulator converted) as a device function
/// (acc, b, m, n, memrefs...) -> result element: tensor.extract on the
/// epilogue operands becomes memref.load; everything else is cloned. With
/// `prefetched` (an epilogue operand the kernel already loaded: see
/// BatchMatmulOp::getGatheredTileIndex), the function is
/// (acc, b, m, n, value, memrefs...) and that operand's reads are `value`.
LogicalResult buildEpilogueFunction(BatchMatmulOp op, Block *body,
                                    func::FuncOp func,
                                    std::optional<unsigned> prefetched) {
  return buildEpilogueFunction(op.getLoc(), op.getEpilogueElementType(),
                               BatchMatmulOp::kNumEpilogueLeadingArgs, body,
                               func, prefetched);
}

LogicalResult buildEpilogueFunction(Location loc, Type resultElement,
                                    unsigned lead, Block *body,
                                    func::FuncOp func,
                                    std::optional<unsigned> prefetched) {
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  if (!body) {
    Value acc = entry->getArgument(0);
    Value out = acc;
    if (resultElement != acc.getType())
      out = arith::TruncFOp::create(b, loc, resultElement, acc);
    func::ReturnOp::create(b, loc, out);
    return success();
  }
  // Region argument i -> function argument i (i + 1 past the leading ones
  // when a prefetched value comes first).
  auto funcArg = [&](unsigned i) {
    return entry->getArgument(prefetched && i >= lead ? i + 1 : i);
  };
  IRMapping mapping;
  for (unsigned i = 0; i < body->getNumArguments(); ++i) {
    Value to = funcArg(i);
    // The runtime passes only 16-byte aligned tensors: saying so lets LLVM
    // merge the loads of neighbouring columns into vector loads.
    if (isa<MemRefType>(to.getType()))
      to = memref::AssumeAlignmentOp::create(b, loc, to, 16).getResult();
    mapping.map(body->getArgument(i), to);
  }
  Value prefetchedArg =
      prefetched ? body->getArgument(lead + *prefetched) : Value();
  for (Operation &inner : *body) {
    // sc.yield or sck.yield: the element.
    if (inner.hasTrait<OpTrait::IsTerminator>()) {
      func::ReturnOp::create(b, loc, mapping.lookup(inner.getOperand(0)));
      continue;
    }
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner);
        extract && prefetchedArg && extract.getTensor() == prefetchedArg) {
      mapping.map(extract.getResult(), entry->getArgument(lead));
      continue;
    }
    if (failed(cloneEpilogueOp(inner, b, mapping)))
      return failure();
  }
  return success();
}

/// Parameters of the TMA kernels: A's and B's tensor maps, then C and the
/// epilogue operands as memrefs.
std::vector<LaunchParam> tmaKernelParams(BatchMatmulOp op,
                                         const GemmBinding &binding,
                                         int64_t tileM) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  int64_t m = op.getRowCount(), n = op.getType().getDimSize(2);
  int64_t k = lhsType.getShape().back();
  int64_t bytes = lhsType.getElementType().getIntOrFloatBitWidth() / 8;
  LaunchParam a;
  a.kind = LaunchParam::Kind::Tma;
  a.tensor = binding.lhs;
  a.dims = {LaunchDim::of(k), LaunchDim::of(m)};
  a.stridesBytes = {LaunchDim::of(k * bytes)};
  a.box = {kTileK, tileM};
  if (lhsType.getRank() == 3) {
    a.dims.push_back(binding.batchOf(lhsType));
    a.stridesBytes.push_back(LaunchDim::of(m * k * bytes));
    a.box.push_back(1);
  }
  LaunchParam b;
  b.kind = LaunchParam::Kind::Tma;
  b.tensor = binding.rhs;
  // The rows past K read as zeros: the padding along K, if any, too.
  int64_t rhsK = binding.rhsSourceK ? binding.rhsSourceK : k;
  // [K, N] row-major, or [N, K] when transposed; boxes of 64 x 64.
  if (op.getTransposeRhs()) {
    b.dims = {LaunchDim::of(rhsK), LaunchDim::of(n)};
    b.stridesBytes = {LaunchDim::of(rhsK * bytes)};
  } else {
    b.dims = {LaunchDim::of(n), LaunchDim::of(rhsK)};
    b.stridesBytes = {LaunchDim::of(n * bytes)};
  }
  b.box = {64, kTileK};
  // A slice of a weight read in place: the weight's rows, from the slice.
  if (binding.rhsSourceRowElems) {
    b.stridesBytes = {LaunchDim::of(binding.rhsSourceRowElems * bytes)};
    b.offsetBytes = binding.rhsSourceOffsetElems * bytes;
  }
  if (rhsType.getRank() == 3) {
    b.dims.push_back(binding.batchOf(rhsType));
    b.stridesBytes.push_back(LaunchDim::of(rhsK * n * bytes));
    b.box.push_back(1);
  }
  LaunchParam c;
  c.tensor = binding.result;
  std::vector<LaunchParam> params = {a, b, c};
  for (const std::string &name : binding.epilogueIns) {
    LaunchParam e;
    e.tensor = name;
    params.push_back(e);
  }
  return params;
}

} // namespace mlir::sc::detail

/// Why the Hopper path cannot take `op`, or an empty string when it can.
static std::string hopperPathLimitation(BatchMatmulOp op, StringRef schedule) {
  RankedTensorType lhsType = op.getLhs().getType();
  Type elementType = lhsType.getElementType();
  int64_t n = op.getType().getDimSize(2), k = lhsType.getShape().back();
  if (!elementType.isF16() && !elementType.isBF16())
    return "wgmma takes f16/bf16 operands here, got " + typeToString(elementType);
  if (k % 8 != 0)
    return "TMA needs 16-byte aligned rows: K (" + std::to_string(k) +
           ") must be a multiple of 8 (pad K with sc-pad-k)";
  // Rows of other even N are copied and stored in 4-byte pieces.
  if (n % 2 != 0)
    return "N (" + std::to_string(n) + ") must be even (pad N with sc-pad-n)";
  if (schedule == "transposed") {
    std::string why = op.getTransposedTileLimitation();
    if (!why.empty())
      return "the transposed schedule cannot take it: " + why;
  }
  return "";
}


/// The schedule of `op`: the one recorded on it (sc.gemm_schedule, see
/// sc-select-kernel-config), else `requested`, where "auto" is the op's
/// default.
static StringRef resolveSchedule(BatchMatmulOp op, StringRef requested) {
  if (op->hasAttr(BatchMatmulOp::getScheduleAttrName()) || requested == "auto")
    return stringifyGemmSchedule(getGemmSchedule(op));
  return requested;
}

bool mlir::sc::usesHopperGemmPath(BatchMatmulOp op,
                                  const GemmKernelOptions &options) {
  return options.chip == "sm_90a" &&
         hopperPathLimitation(op, resolveSchedule(op, options.schedule))
             .empty();
}

bool mlir::sc::usesMultistageGemmPath(BatchMatmulOp op,
                                      const GemmKernelOptions &options) {
  return isAmpereOrAda(options.chip) && op.getKernelIR() &&
         getGemmSchedule(op) == GemmSchedule::multistage;
}


/// The consumers' order (the schedule) the kernel-level IR chose for `op`
/// (its `sc.kernel` function after sc-warp-specialize), empty when the op
/// has no such function or it has no roles; a located error for IR whose
/// epilogue reads other tensors than the op's or that has other than two
/// consumers.
static LogicalResult orderFromKernelIR(BatchMatmulOp op, std::string &order) {
  FailureOr<func::FuncOp> kernel = sc::detail::kernelIRFunction(op);
  if (failed(kernel) || !*kernel)
    return failed(kernel) ? failure() : success();
  WalkResult walk = kernel->walk([&](Operation *inner) {
    // The kernel's parameters are the op's epilogue operands (a prefetched
    // box stands for one of them).
    if (auto epilogue = dyn_cast<sck::EpilogueOp>(inner);
        epilogue && epilogue.getResult() == "C" &&
        !llvm::any_of(epilogue.getIns().getTypes(), llvm::IsaPred<sck::BoxType>) &&
        epilogue.getIns().getTypes() != op.getEpilogueIns().getTypes()) {
      epilogue.emitError("the kernel-level epilogue reads other tensors than "
                         "the op's epilogue operands");
      return WalkResult::interrupt();
    }
    auto role = dyn_cast<sck::RoleOp>(inner);
    if (!role || role.getKind() == sck::RoleKind::producer)
      return WalkResult::advance();
    if (role.getCount() != 2) {
      role.emitError("the GPU kernels have two consumer warpgroups");
      return WalkResult::interrupt();
    }
    order = sck::stringifyConsumerOrder(
                role.getOrder().value_or(sck::ConsumerOrder::pingpong))
                .str();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The warp-specialized kernels compute tileM x 256 tiles (tileM = 64
/// ping-pong, 128 cooperative), or the transposed schedule's 128 x TM
/// tiles of the result transposed (E^T W^T: both operands read transposed,
/// TM = transposedTileRows), in 64-wide k-tiles of the op's element type: a
/// kernel-level IR that multiplies other boxes is not what they would run,
/// so it is refused rather than silently not followed.
static LogicalResult checkKernelIRTiling(BatchMatmulOp op, StringRef schedule) {
  Operation *kernel = op.getKernelIR();
  if (!kernel)
    return success();
  bool transposed = schedule == "transposed";
  int64_t rows = schedule == "pingpong" ? 64 : 128;
  int64_t cols = transposed ? transposedTileRows(op.getType().getDimSize(1))
                            : gemmTileCols(op.getType().getDimSize(2));
  Type element = op.getLhs().getType().getElementType();
  // The layouts: A as stored, B transposed exactly when the op's rhs is;
  // both transposed in the transposed tile.
  WalkResult layouts = kernel->walk([&](sck::LoadOp load) {
    bool want = transposed || (load.getOperand() == "B" && op.getTransposeRhs());
    if (load.getTransposed() == want)
      return WalkResult::advance();
    load.emitError() << "the GPU kernel reads operand " << load.getOperand()
                     << (want ? " transposed" : " as stored")
                     << "; the kernel-level IR says otherwise";
    return WalkResult::interrupt();
  });
  if (layouts.wasInterrupted())
    return failure();
  WalkResult epilogues = kernel->walk([&](sck::EpilogueOp epilogue) {
    if (epilogue.getTransposed() == transposed)
      return WalkResult::advance();
    epilogue.emitError() << "the " << schedule << " GPU kernel stores "
                         << (transposed ? "transposed" : "as computed")
                         << " accumulators; the kernel-level IR says otherwise";
    return WalkResult::interrupt();
  });
  if (epilogues.wasInterrupted())
    return failure();
  WalkResult walk = kernel->walk([&](sck::MmaOp mma) {
    Type a = mma.getA().getType();
    sck::BoxType b = mma.getB().getType();
    sck::AccType acc = mma.getAcc().getType();
    if (mma.getABox() && mma.getAShape() == ArrayRef<int64_t>{rows, 64} &&
        b.getShape() == ArrayRef<int64_t>{64, cols} &&
        mma.getAElementType() == element &&
        acc.getShape() == ArrayRef<int64_t>{rows, cols})
      return WalkResult::advance();
    mma.emitError() << "the " << schedule << " GPU kernel multiplies "
                    << rows << "x64 by 64x" << cols << " boxes of " << element
                    << " into " << rows << "x" << cols
                    << " accumulators; the kernel-level IR asks for "
                    << a << " by " << b << " into " << acc;
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<KernelLaunch>
mlir::sc::buildGemmKernel(BatchMatmulOp op, gpu::GPUModuleOp gpuModule,
                          StringRef kernelName, const GemmBinding &binding,
                          const GemmKernelOptions &options) {
  detail::GemmShape shape(op);
  if (ShapedType::isDynamic(shape.m) || ShapedType::isDynamic(shape.n) ||
      ShapedType::isDynamic(shape.k))
    return op.emitError() << "the GEMM lowering needs static M, N, K";
  for (Value v : op.getEpilogueIns())
    if (!isa<RankedTensorType>(v.getType()))
      return op.emitError() << "GPU epilogue operands must be ranked tensors, "
                               "got "
                            << v.getType();
  std::string order;
  if (failed(orderFromKernelIR(op, order)))
    return failure();
  // A warp-specialized kernel IR decides the schedule.
  StringRef requested = order.empty() ? StringRef(options.schedule) : order;
  if (requested != "auto" && !symbolizeGemmSchedule(requested))
    return op.emitError()
           << "unknown GEMM schedule '" << requested
           << "', expected auto, cooperative, pingpong or transposed";
  StringRef schedule = resolveSchedule(op, requested);
  if (options.chip == "sm_90a") {
    std::string limitation = hopperPathLimitation(op, schedule);
    if (limitation.empty()) {
      if (failed(checkKernelIRTiling(op, schedule)))
        return failure();
      return detail::buildGemmKernelFromIR(op, gpuModule, kernelName, binding);
    }
    op.emitRemark() << "using the portable GEMM path: " << limitation;
  }
  // sm_80 / sm_86 / sm_89: the multistage kernel where
  // sc-select-kernel-config chose it (it says why not otherwise).
  if (usesMultistageGemmPath(op, options))
    return detail::buildMultistageGemmKernel(op, gpuModule, kernelName, binding,
                                             options.chip);
  if (binding.rhsSourceK)
    return op.emitError() << "internal error: K padding can only be left to "
                             "the zero fill of the sm_90a and multistage "
                             "kernels";
  return detail::buildPortableGemmKernel(op, gpuModule, kernelName, binding);
}
