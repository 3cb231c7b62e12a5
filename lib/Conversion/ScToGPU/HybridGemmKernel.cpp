//===- HybridGemmKernel.cpp - a hybrid-tiled GEMM from its sck IR --------===//
//
// y = x W^T with W in hybrid dense / 2:4 / zero tiles (docs/hybrid-tiles.md):
// the GEMM's warp-specialized kernel-level function (sc-lower-to-sck,
// sc-persistent, sc-warp-specialize) cloned into a gpu.func whose
// arguments are named for its ops and lowered by sc-convert-sck-to-nvgpu,
// one pattern per op (SckHybridToNVGPU.cpp); here the rings' stages (as
// many as keep two CTAs an SM, else as fit), the signature and the
// launch.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Conversion/ScToGPU/GemmKernel.h"
#include "sparcast/Conversion/ScToGPU/HybridKernel.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
/// Rows of W a consumer (the wgmma's M), threads of a warpgroup.
constexpr int64_t kBand = 64, kWarpgroup = 128;
/// Dynamic shared memory that keeps two CTAs an SM.
constexpr int64_t kTwoCtaShared = 113 * 1024;

/// The kernel-level function's body cloned before `func`'s return, its
/// arguments named for the ops (SckHybridToNVGPU.cpp), its rings of
/// `stages` slots: the batch count is C's first dim, the epilogue's
/// tensors the memrefs they stand for.
void cloneKernelIR(func::FuncOp kernel, gpu::GPUFuncOp func, int64_t stages,
                   bool split) {
  OpBuilder b(func.getBody().front().getTerminator());
  Location loc = kernel.getLoc();
  StringRef names[] = {"A", "B.dense", "B.sparse", "B.meta",
                       "B.kinds", "B.slots", "C"};
  for (auto [i, name] : llvm::enumerate(names))
    func.setArgAttr(i, kOperandAttrName, b.getStringAttr(name));
  for (StringRef attr : {sck::kKernelScheduleAttrName.data(),
                         sck::kConsumersAttrName.data()})
    if (Attribute value = kernel->getAttr(attr))
      func->setAttr(attr, value);
  IRMapping mapping;
  mapping.map(kernel.getArgument(0),
              memref::DimOp::create(b, loc, func.getArgument(6), 0).getResult());
  for (unsigned i = 1; i < kernel.getNumArguments(); ++i) {
    func.setArgAttr(6 + i, kOperandAttrName, b.getStringAttr("in" + Twine(i - 1)));
    Value in = kernel.getArgument(i);
    mapping.map(in, UnrealizedConversionCastOp::create(
                        b, loc, in.getType(), func.getArgument(6 + i))
                        .getResult(0));
  }
  // Split-K's workspaces after the epilogue's operands.
  if (split) {
    unsigned at = 6 + kernel.getNumArguments();
    func.setArgAttr(at, kOperandAttrName, b.getStringAttr("C.partials"));
    func.setArgAttr(at + 1, kOperandAttrName, b.getStringAttr("C.arrivals"));
  }
  for (Operation &inner : kernel.getBody().front().without_terminator()) {
    Operation *copy = b.clone(inner, mapping);
    if (auto ring = dyn_cast<sck::RingOp>(copy))
      ring.setStages(stages);
  }
}
} // namespace

HybridSplit mlir::sc::hybridSplitOf(BatchMatmulOp op) {
  HybridSplit split;
  auto ref = op->getAttrOfType<FlatSymbolRefAttr>(BatchMatmulOp::getKernelAttrName());
  auto kernel = ref ? dyn_cast_or_null<func::FuncOp>(
                          SymbolTable::lookupNearestSymbolFrom(op, ref))
                    : func::FuncOp();
  if (!kernel)
    return split;
  kernel.walk([&](sck::ReduceSplitsOp reduce) {
    auto loop = reduce->getParentOfType<sck::TileLoopOp>();
    std::optional<int64_t> m = getConstantIntValue(loop.getMTiles());
    std::optional<int64_t> n = getConstantIntValue(loop.getNTiles());
    std::optional<int64_t> splits = reduce.getStaticSplits();
    if (!m || !n || !splits)
      return;
    ArrayRef<int64_t> shape = reduce.getAcc().getType().getShape();
    split = {*splits, shape[0] * shape[1], *m * *n,
             shape[0] / 16};
  });
  return split;
}

std::string mlir::sc::hybridGemmLimitation(BatchMatmulOp op, StringRef chip) {
  if (chip != "sm_90a")
    return "the hybrid-tiled GEMM runs on sm_90a only (sparse wgmma), not " +
           chip.str();
  auto layout = dyn_cast<HybridTilesAttr>(op.getRhs().getType().getEncoding());
  if (!layout || !op.getRhs().getDefiningOp<AssembleHybridOp>())
    return "the hybrid-tiled weight must come from sc.assemble_hybrid";
  Type element = op.getLhs().getType().getElementType();
  if (!element.isF16() && !element.isBF16())
    return "f16 or bf16 operands only";
  if (op.getLhs().getType().getRank() != 3 ||
      ShapedType::isDynamic(op.getType().getDimSize(1)))
    return "tokens x [batch, M, K] with a static M";
  if (layout.getTile()[1] % 128 != 0)
    return "hybrid tiles of a multiple of 128 columns only";
  auto ref = op->getAttrOfType<FlatSymbolRefAttr>(BatchMatmulOp::getKernelAttrName());
  auto kernel = ref ? dyn_cast_or_null<func::FuncOp>(
                          SymbolTable::lookupNearestSymbolFrom(op, ref))
                    : func::FuncOp();
  if (!kernel || kernel.getBody().getOps<sck::RoleOp>().empty())
    return "no warp-specialized kernel-level IR (sc-lower-to-sck, "
           "sc-warp-specialize)";
  return "";
}

FailureOr<KernelLaunch> mlir::sc::buildHybridGemmKernel(
    BatchMatmulOp op, gpu::GPUModuleOp gpuModule, StringRef kernelName,
    const GemmBinding &binding, const HybridWeightBinding &weight,
    const SplitKBinding &splitBinding) {
  std::string why = hybridGemmLimitation(op, "sm_90a");
  if (!why.empty())
    return op.emitError("sparcast-aot: ") << why;
  auto kernelIR = cast<func::FuncOp>(SymbolTable::lookupNearestSymbolFrom(
      op, op->getAttrOfType<FlatSymbolRefAttr>(BatchMatmulOp::getKernelAttrName())));
  MLIRContext *ctx = op.getContext();
  ctx->loadDialect<gpu::GPUDialect, nvgpu::NVGPUDialect, NVVM::NVVMDialect,
                   LLVM::LLVMDialect, memref::MemRefDialect, scf::SCFDialect,
                   arith::ArithDialect, func::FuncDialect>();
  // The slots sc-warp-specialize asked for (--ws-stages), else as many as
  // keep two CTAs an SM, else (where two slots take more than half an SM's
  // shared memory) as many as fit one CTA an SM, up to 8.
  int64_t asked = 0;
  for (auto ring : kernelIR.getBody().getOps<sck::RingOp>())
    asked = std::max<int64_t>(asked, ring.getStages());
  auto fits = [&](int64_t stages, int64_t limit) {
    return hybridSharedBytes(kernelIR, stages) <= limit;
  };
  auto consumersAttr =
      kernelIR->getAttrOfType<IntegerAttr>(sck::kConsumersAttrName);
  int64_t consumers = consumersAttr ? consumersAttr.getInt() : 1;
  int64_t band = kBand * consumers;
  int64_t sharedLimit = maxSharedBytesPerBlock("sm_90a");
  int64_t stages = asked;
  if (stages == 0) {
    int64_t limit =
        consumers == 1 && fits(2, kTwoCtaShared) ? kTwoCtaShared : sharedLimit;
    stages = 8;
    while (stages > 2 && !fits(stages, limit))
      --stages;
  }
  if (!fits(stages, sharedLimit))
    return op.emitError("sparcast-aot: the hybrid-tiled GEMM's rings need ")
           << hybridSharedBytes(kernelIR, stages)
           << " bytes of shared memory at " << stages << " slots, more than "
           << sharedLimit;
  int64_t shared = hybridSharedBytes(kernelIR, stages);

  auto weightType = cast<RankedTensorType>(op.getRhs().getType());
  auto layout = cast<HybridTilesAttr>(weightType.getEncoding());
  int64_t tileRows = layout.getTile()[0], tileCols = layout.getTile()[1];
  int64_t m = op.getType().getDimSize(1), n = op.getType().getDimSize(2);
  int64_t k = layout.getCols();
  Type element = weightType.getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  // The token tile: the accumulator's columns.
  int64_t tokens = 0;
  kernelIR.walk([&](sck::ZeroOp zero) { tokens = zero.getType().getShape()[1]; });
  // CTA pairs on pairs of N tiles (sc-multicast hybrid-pairs): a cluster of
  // two, each CTA loading half of the tokens' box into both.
  bool pairs = hybridRunsInPairs(kernelIR);

  auto ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> params = {ptr, ptr, ptr, ptr};
  auto kindsType = cast<RankedTensorType>(
      op.getRhs().getDefiningOp<AssembleHybridOp>().getKinds().getType());
  auto slotsType = cast<RankedTensorType>(
      op.getRhs().getDefiningOp<AssembleHybridOp>().getSlots().getType());
  params.push_back(sc::detail::memrefOf(kindsType));
  params.push_back(sc::detail::memrefOf(slotsType));
  params.push_back(sc::detail::memrefOf(op.getType()));
  for (Value in : op.getEpilogueIns())
    params.push_back(sc::detail::memrefOf(cast<RankedTensorType>(in.getType())));
  // Split-K (sc-split-k): each tile's parts run as tiles of their own and
  // meet in two workspaces.
  HybridSplit split = hybridSplitOf(op);
  bool splitK = split.splits > 1;
  if (splitK != !splitBinding.partials.empty())
    return op.emitError("sparcast-aot: internal error: the hybrid-tiled "
                        "GEMM's split-K workspaces do not match its "
                        "kernel-level IR");
  if (splitK)
    for (Type element : {Type(Float32Type::get(ctx)), Type(IntegerType::get(ctx, 32))})
      params.push_back(MemRefType::get({ShapedType::kDynamic}, element));
  OpBuilder b(ctx);
  gpu::GPUFuncOp func = sc::detail::createKernelFunction(
      b, op.getLoc(), gpuModule, kernelName, params, (consumers + 1) * kWarpgroup);
  gpu::ReturnOp::create(b, op.getLoc());
  // Two CTAs an SM: 128 registers a thread at launch, which setmaxnreg
  // then moves from the producer to the consumer (the roles' budgets,
  // sc-warp-specialize's for two CTAs an SM).
  bool twoCtas = consumers == 1 && shared <= kTwoCtaShared;
  if (twoCtas)
    func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(2));
  if (pairs)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({2, 1, 1}));
  cloneKernelIR(kernelIR, func, stages, splitK);
  if (failed(convertHybridSckToNVGPU(func))) {
    func.erase();
    if (auto f = gpuModule.lookupSymbol<func::FuncOp>((kernelName + "_epilogue").str()))
      f.erase();
    return failure();
  }
  // The epilogue's tensors were read as the memrefs they stand for.
  func.walk([](UnrealizedConversionCastOp cast) {
    if (cast->use_empty())
      cast.erase();
  });

  // The launch: tensor maps of the tokens [K, M, batch] (boxes of 64 k by
  // the token tile), the dense tiles [tileCols, tileRows, count] (64 x 64),
  // the 2:4 values [tileCols / 2, tileRows, count] (64 x 64) and the
  // metadata [tileCols / 32, tileRows, count] (all of a row's words x 64
  // rows, unswizzled); the tables, C and the epilogue's operands.
  auto tma = [](std::string tensor, std::vector<LaunchDim> dims,
                std::vector<LaunchDim> strides, std::vector<int64_t> box,
                int64_t swizzle) {
    LaunchParam p;
    p.kind = LaunchParam::Kind::Tma;
    p.tensor = std::move(tensor);
    p.dims = std::move(dims);
    p.stridesBytes = std::move(strides);
    p.box = std::move(box);
    p.swizzleBytes = swizzle;
    return p;
  };
  auto of = [](int64_t v) { return LaunchDim::of(v); };
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.params.push_back(tma(binding.lhs,
                              {of(k), of(m), binding.batchOf(op.getType())},
                              {of(k * bytes), of(m * k * bytes)},
                              {64, pairs ? tokens / 2 : tokens, 1}, 128));
  launch.params.push_back(tma(weight.dense,
                              {of(tileCols), of(tileRows), weight.numDense},
                              {of(tileCols * bytes), of(tileRows * tileCols * bytes)},
                              {64, band, 1}, 128));
  launch.params.push_back(tma(weight.sparse,
                              {of(tileCols / 2), of(tileRows), weight.numSparse},
                              {of(tileCols / 2 * bytes),
                               of(tileRows * tileCols / 2 * bytes)},
                              {64, band, 1}, 128));
  launch.params.push_back(tma(weight.meta,
                              {of(tileCols / 32), of(tileRows), weight.numSparse},
                              {of(tileCols / 32 * 4), of(tileRows * tileCols / 32 * 4)},
                              {tileCols / 32, band, 1}, 0));
  for (const std::string &name : {weight.kinds, weight.slots, binding.result})
    launch.params.push_back(LaunchParam::memref(name));
  for (const std::string &name : binding.epilogueIns)
    launch.params.push_back(LaunchParam::memref(name));
  if (splitK) {
    launch.params.push_back(LaunchParam::memref(splitBinding.partials));
    launch.params.push_back(LaunchParam::memref(splitBinding.arrivals));
  }
  // One CTA a tile (a persistent loop then runs one tile a CTA too), each
  // part of a split tile a tile.
  launch.grid[0] = binding.batchOf(op.getType())
                       .times(llvm::divideCeil(m, tokens) * (n / band) *
                              split.splits);
  launch.grid[1] = launch.grid[2] = of(1);
  launch.block[0] = (consumers + 1) * kWarpgroup;
  launch.sharedBytes = shared;
  launch.summary = llvm::formatv(
      "{0}: hybrid-tiled GEMM (tiles {1} x {2}), {6} weight rows x {3} tokens "
      "a CTA ({7} consumer(s)), {4} slots a ring, {5} bytes of shared "
      "memory{8}{9}",
      kernelName, tileRows, tileCols, tokens, stages, shared, band, consumers,
      pairs ? ", clusters of 2 CTAs on pairs of N tiles sharing the tokens' "
              "box by TMA multicast"
            : "",
      splitK ? llvm::formatv(", split-K: each tile's k-tiles in {0} parts, "
                             "the last to finish adding their partial sums",
                             split.splits)
                   .str()
             : "");
  return launch;
}
