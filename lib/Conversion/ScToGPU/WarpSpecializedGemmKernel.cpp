//===- WarpSpecializedGemmKernel.cpp - a Hopper GEMM from its kernel IR ---===//
//
// The warp-specialized GEMM of sm_90a: the kernel-level IR that
// sc-lower-to-sck, sc-persistent, sc-multicast, sc-warp-specialize,
// sc-prefetch-epilogue-operands and sc-schedule-wgmma leave, cloned into a
// gpu.func whose arguments are named for its ops and lowered by
// sc-convert-sck-to-nvgpu, one pattern per op (SckToNVGPU.cpp); here the
// ring's stages (as many as fit when the IR leaves them open), the
// kernel's signature and its launch.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Conversion/ScToGPU/GemmKernel.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Conversion/ScToGPU/WgmmaKernel.h"
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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
constexpr int64_t kTileDepth = 64;
} // namespace

namespace {
/// What the launch of a warp-specialized GEMM kernel depends on: its tile
/// (`tileM` x `tileN`, A's box of `aBoxRows` rows), shared memory, the
/// schedule (persistent or a grid of `tilesPerUnit` tiles a CTA), the
/// transposed tile, flat rows and the epilogue operand prefetched by TMA.
struct LaunchShape {
  int64_t tileM = 0, tileN = 0, aBoxRows = 0, sharedBytes = 0;
  bool persistent = true;
  int64_t tilesPerUnit = 1;
  bool transposed = false, flatRows = false;
  std::optional<unsigned> prefetched;
  /// Rows that are no TMA stride: B's boxes copied by threads (B a
  /// memref), C stored by threads (no tensor map of C).
  bool bByThreads = false, directStores = false;
};
} // namespace

/// The launch of a warp-specialized GEMM kernel of parameters `params`:
/// 384 threads, the grid, shared memory.
static KernelLaunch warpSpecializedLaunch(BatchMatmulOp op,
                                          StringRef kernelName,
                                          const GemmBinding &binding,
                                          const LaunchShape &shape,
                                          ArrayRef<sc::detail::KernelParam> params) {
  using namespace sc::detail;
  RankedTensorType resultType = op.getType();
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 384;
  // Persistent: one CTA per SM. Grid: one per unit of work (a tile, a
  // pair of tiles for ping-pong). With rows flattened over the batch, the
  // tile count is ceil(B m / tileM) x N tiles: approximated by B m N-tiles
  // / tileM (the kernel's loop then walks its tiles with a stride of the
  // CTA count, so any count is correct).
  int64_t nTiles = llvm::divideCeil(n, shape.tileN);
  if (shape.persistent) {
    launch.grid[0] = LaunchDim::sym("SMS");
  } else {
    LaunchDim batches = binding.batchOf(resultType);
    int64_t perBatchNumerator = shape.flatRows
                                    ? m * nTiles
                                    : llvm::divideCeil(m, shape.tileM) * nTiles;
    int64_t divisor = shape.flatRows ? shape.tileM * shape.tilesPerUnit
                                     : shape.tilesPerUnit;
    if (batches.symbol.empty()) {
      launch.grid[0] = LaunchDim::of(
          llvm::divideCeil(batches.constant * perBatchNumerator, divisor));
    } else {
      launch.grid[0] = batches.times(perBatchNumerator);
      launch.grid[0].divisor = divisor;
    }
  }
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = LaunchDim::of(1);
  launch.sharedBytes = shape.sharedBytes;
  for (const sc::detail::KernelParam &param : params)
    launch.params.push_back(param.launch);
  return launch;
}

/// The kernel's parameters: A's and B's tensor maps (B's memref when its
/// boxes are copied by threads), C and the epilogue operands as memrefs,
/// C's tensor map for the TMA stores (none with direct stores) and the
/// prefetched operand's.
static std::vector<sc::detail::KernelParam> kernelParams(BatchMatmulOp op,
                                             const GemmBinding &binding,
                                             const LaunchShape &shape) {
  using namespace sc::detail;
  RankedTensorType resultType = op.getType();
  Type elementType = op.getLhs().getType().getElementType();
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  int64_t outBytes = resultType.getElementType().getIntOrFloatBitWidth() / 8;
  Type pointer = LLVM::LLVMPointerType::get(op.getContext());
  std::vector<LaunchParam> params = tmaKernelParams(op, binding, shape.aBoxRows);
  LaunchDim batchDim = binding.batchOf(resultType);
  LaunchDim flatM = batchDim.times(m); // [B * M] rows
  if (shape.flatRows) {
    // A as one [B * M, K] matrix.
    int64_t bytes = elementType.getIntOrFloatBitWidth() / 8;
    params[0].dims = {LaunchDim::of(k), flatM};
    params[0].stridesBytes = {LaunchDim::of(k * bytes)};
    params[0].box = {kTileK, shape.tileM};
  }
  // A and B as tensor maps, C and the epilogue operands as memrefs. B
  // copied by threads: its memref (K the source's where the padding along
  // K is left to the copies' zero fill).
  std::vector<sc::detail::KernelParam> out = {{pointer, params[0]},
                                 {pointer, params[1]},
                                 {memrefOf(resultType), params[2]}};
  if (shape.bByThreads)
    out[1] = {memrefOf(rhsTypeAsRead(op, binding)),
              LaunchParam::memref(binding.rhs)};
  for (auto [in, param] :
       llvm::zip(op.getEpilogueIns(), ArrayRef(params).drop_front(3)))
    out.push_back({memrefOf(cast<RankedTensorType>(in.getType())), param});
  // C's tensor map for the TMA stores: boxes of 64 rows x 128 bytes.
  LaunchParam c;
  c.kind = LaunchParam::Kind::Tma;
  c.tensor = binding.result;
  if (shape.flatRows) {
    c.dims = {LaunchDim::of(n), flatM};
    c.stridesBytes = {LaunchDim::of(n * outBytes)};
    c.box = {128 / outBytes, 64};
  } else {
    // (Summed rows: C is [B, 1, N], added into, its map unused.)
    int64_t cRows = op.getType().getDimSize(1);
    c.dims = {LaunchDim::of(n), LaunchDim::of(cRows), batchDim};
    c.stridesBytes = {LaunchDim::of(n * outBytes),
                      LaunchDim::of(cRows * n * outBytes)};
    // (Transposed: the epilogue stores 8 rows at a time.)
    c.box = {128 / outBytes, std::min<int64_t>(cRows, shape.transposed ? 8 : 64), 1};
  }
  if (!shape.directStores)
    out.push_back({pointer, c});
  // Split-K's workspaces, after C's map (nothing is prefetched then).
  if (!binding.split.partials.empty()) {
    Type f32 = Float32Type::get(op.getContext());
    Type i32 = IntegerType::get(op.getContext(), 32);
    out.push_back({MemRefType::get({ShapedType::kDynamic}, f32),
                   LaunchParam::memref(binding.split.partials)});
    out.push_back({MemRefType::get({ShapedType::kDynamic}, i32),
                   LaunchParam::memref(binding.split.arrivals)});
  }
  if (std::optional<unsigned> prefetched = shape.prefetched) {
    // The gathered operand's tensor map: [U, M, N] in boxes like C's.
    auto xType = cast<RankedTensorType>(op.getEpilogueIns()[*prefetched].getType());
    LaunchParam x;
    x.kind = LaunchParam::Kind::Tma;
    x.tensor = binding.epilogueIns[*prefetched];
    // Bounded by its own batch (U), so a g(b) out of range reads zeros.
    LaunchDim xBatch = *prefetched < binding.epilogueInBatches.size()
                           ? binding.epilogueInBatches[*prefetched]
                           : binding.batchOf(xType);
    x.dims = {LaunchDim::of(n), LaunchDim::of(m), xBatch};
    int64_t xBytes = xType.getElementType().getIntOrFloatBitWidth() / 8;
    x.stridesBytes = {LaunchDim::of(n * xBytes), LaunchDim::of(m * n * xBytes)};
    x.box = {128 / xBytes, shape.transposed ? 32 : 64, 1};
    out.push_back({pointer, x});
  }
  return out;
}

namespace {
/// The kernel-level function's body cloned before `func`'s return, its
/// arguments named for the ops (WgmmaKernel.h): the batch count is C's
/// first dim, the epilogue's tensors the memrefs they stand for.
void cloneKernelIR(func::FuncOp kernel, gpu::GPUFuncOp func, size_t numIns,
                   bool cMap, std::optional<unsigned> prefetched, bool splitK,
                   int64_t stages) {
  OpBuilder b(func.getBody().front().getTerminator());
  Location loc = kernel.getLoc();
  auto name = [&](unsigned arg, const Twine &n) {
    func.setArgAttr(arg, sc::detail::kOperandAttrName, b.getStringAttr(n));
  };
  name(0, "A");
  name(1, "B");
  name(2, "C");
  // After the epilogue operands: C's map (not with direct stores), then
  // the prefetched operand's map or split-K's workspaces.
  unsigned next = 3 + numIns;
  if (cMap)
    name(next++, "C.map");
  if (prefetched)
    name(next, "in" + Twine(*prefetched) + ".map");
  if (splitK) {
    name(next, "C.partials");
    name(next + 1, "C.arrivals");
  }
  IRMapping mapping;
  mapping.map(kernel.getArgument(0),
              memref::DimOp::create(b, loc, func.getArgument(2), 0).getResult());
  for (size_t i = 0; i < numIns; ++i) {
    name(3 + i, "in" + Twine(i));
    Value in = kernel.getArgument(1 + i);
    mapping.map(in, UnrealizedConversionCastOp::create(
                        b, loc, in.getType(), func.getArgument(3 + i))
                        .getResult(0));
  }
  // The schedule the kernel-level function is for (the transposed tile's
  // ring holds other boxes), as its ops see it.
  if (Attribute schedule = kernel->getAttr(sck::kKernelScheduleAttrName))
    func->setAttr(sck::kKernelScheduleAttrName, schedule);
  for (Operation &inner : kernel.getBody().front().without_terminator()) {
    Operation *copy = b.clone(inner, mapping);
    if (auto ring = dyn_cast<sck::RingOp>(copy))
      ring.setStages(stages);
  }
}
} // namespace

DenseSplit mlir::sc::denseSplitOf(BatchMatmulOp op) {
  DenseSplit split;
  FailureOr<func::FuncOp> kernel = kernelIRFunction(op);
  if (failed(kernel) || !*kernel)
    return split;
  (*kernel).walk([&](sck::ReduceSplitsOp reduce) {
    std::optional<uint64_t> maxParts = reduce.getMaxParts();
    if (!maxParts)
      return;
    ArrayRef<int64_t> shape = reduce.getAcc().getType().getShape();
    // (A consumer warpgroup holds 64 rows of the tile.)
    split = {static_cast<int64_t>(*maxParts), shape[0] * shape[1], shape[0] / 64};
  });
  return split;
}

FailureOr<KernelLaunch> mlir::sc::detail::buildGemmKernelFromIR(
    BatchMatmulOp op, gpu::GPUModuleOp module, StringRef kernelName,
    const GemmBinding &binding) {
  FailureOr<func::FuncOp> kernel = kernelIRFunction(op);
  if (failed(kernel))
    return failure();
  if (!*kernel)
    return op.emitError("the warp-specialized GEMM kernels are written from "
                        "the kernel-level IR: run sc-lower-to-sck and "
                        "sc-warp-specialize first");
  FailureOr<WgmmaKernelForm> form = matchWgmmaKernel(*kernel);
  if (failed(form))
    return failure();
  if ((*kernel).getNumArguments() != 1 + op.getEpilogueIns().size())
    return kernel->emitError("sck-to-nvgpu does not lower a kernel-level "
                             "function of other than (batch, epilogue "
                             "operands...)");
  // Ops of an unloaded dialect would be built unregistered.
  op.getContext()
      ->loadDialect<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                    LLVM::LLVMDialect, memref::MemRefDialect,
                    NVVM::NVVMDialect, nvgpu::NVGPUDialect, scf::SCFDialect,
                    tensor::TensorDialect, vector::VectorDialect>();
  // The ring: as many slots as the IR asks, or as fit next to the two
  // consumers' staging tiles and 1 KB of alignment.
  auto ring = *(*kernel).getBody().front().getOps<sck::RingOp>().begin();
  // (Summed rows and direct stores stage nothing.)
  int64_t outBits = op.getSumRows() || form->directStores
                        ? 0
                        : op.getType().getElementType().getIntOrFloatBitWidth();
  int64_t slotBytes = form->slotBytes();
  int64_t consumersBytes = 2 * form->consumerBytes(outBits);
  int64_t fit = (maxSharedBytesPerBlock("sm_90a") - consumersBytes -
                 kSmemAlignReserve - 256) /
                slotBytes;
  int64_t stages = ring.getStages() ? ring.getStages() : fit;
  if (stages < 2 || stages > fit)
    return ring.emitError("the kernel-level IR asks for ")
           << stages << " ring stages; " << fit << " fit (slots of "
           << slotBytes << " bytes next to the consumers' " << consumersBytes
           << ")";
  int64_t sharedBytes = stages * slotBytes + consumersBytes + kSmemAlignReserve;
  LaunchShape shape;
  shape.tileM = form->transposed ? form->tileM : form->aRows;
  shape.tileN = form->transposed ? 128 : form->tileN;
  shape.aBoxRows = !form->transposed ? form->aRows
                   : form->pairs     ? form->wHalfRows()
                                     : form->tileM;
  shape.sharedBytes = sharedBytes;
  shape.persistent = form->persistent;
  shape.tilesPerUnit = form->cooperative ? 1 : 2;
  shape.transposed = form->transposed;
  shape.flatRows = form->flatRows;
  shape.bByThreads = form->bByThreads;
  shape.directStores = form->directStores;
  if (shape.bByThreads && binding.rhsSourceRowElems)
    return op.emitError("sparcast-aot: internal error: a slice of a weight "
                        "read in place whose rows are no TMA stride");
  sck::PrefetchOp prefetch;
  (*kernel).walk([&](sck::PrefetchOp p) { prefetch = p; });
  if (prefetch)
    shape.prefetched =
        cast<BlockArgument>(prefetch.getSource()).getArgNumber() - 1;
  bool splitK = denseSplitOf(op).maxParts > 0;
  if (splitK != !binding.split.partials.empty())
    return op.emitError("sparcast-aot: internal error: the GEMM's split-K "
                        "workspaces do not match its kernel-level IR");
  // The signature and the launch's parameters from one list.
  std::vector<sc::detail::KernelParam> params = kernelParams(op, binding, shape);
  SmallVector<Type> types = llvm::map_to_vector(
      params, [](const sc::detail::KernelParam &param) { return param.type; });
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(b, op.getLoc(), kernelName,
                                     b.getFunctionType(types, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                b.getDenseI32ArrayAttr({384, 1, 1}));
  if (form->pairs)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({2, 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  gpu::ReturnOp::create(b, op.getLoc());
  cloneKernelIR(*kernel, func, op.getEpilogueIns().size(),
                !shape.directStores, shape.prefetched, splitK, stages);
  if (failed(convertSckToNVGPU(func))) {
    func.erase();
    if (auto f = module.lookupSymbol<func::FuncOp>((kernelName + "_epilogue").str()))
      f.erase();
    return failure();
  }
  // The epilogue's tensors were read as the memrefs they stand for.
  func.walk([](UnrealizedConversionCastOp cast) {
    if (cast->use_empty())
      cast.erase();
  });

  KernelLaunch launch =
      warpSpecializedLaunch(op, kernelName, binding, shape, params);
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  sck::TileLoopOp loop;
  (*kernel).walk([&](sck::TileLoopOp l) { loop = l; });
  std::string tile =
      form->transposed
          ? "each consumer a tile of its own of " + std::to_string(form->tileM) +
                " rows x 128 columns computed transposed (E^T W^T: two m64n" +
                std::to_string(form->tileM) +
                " accumulators, E read MN-major, epilogue in chunks of 32 rows)"
      : form->cooperative
          ? "both consumers on one 128x" + std::to_string(form->tileN) + "x64 tile"
          : "each consumer a 64x" + std::to_string(form->tileN) +
                "x64 tile of its own";
  sck::RoleOp producer, consumer;
  (*kernel).walk([&](sck::RoleOp role) {
    (role.getKind() == sck::RoleKind::producer ? producer : consumer) = role;
  });
  sck::EpilogueOp epilogue;
  (*kernel).walk([&](sck::EpilogueOp e) { epilogue = e; });
  launch.summary = llvm::formatv(
      "{0}: {1}x{2}x{3} {4}, warp-specialized{5}, {6}: producer warpgroup "
      "({16}, {7} registers) + 2 consumer warpgroups (wgmma + epilogue, {8} "
      "registers), {9}, {10} stages, {11} k-tiles, {12}, {13} B shared "
      "memory, epilogue {14} in registers, {15}",
      kernelName, m, n, k,
      sc::detail::typeToString(op.getLhs().getType().getElementType()),
      shape.persistent ? " persistent" : "",
      form->transposed ? "transposed ping-pong"
      : form->cooperative ? "cooperative"
                          : "ping-pong",
      producer.getRegs(), consumer.getRegs(), tile, stages,
      llvm::divideCeil(k, kTileDepth),
      shape.persistent
          ? "one CTA per SM walking tiles in groups of " +
                std::to_string(loop.getGroup()) + " M tiles"
          : form->cooperative ? std::string("one CTA per tile")
                              : std::string("one CTA per pair of tiles"),
      sharedBytes, epilogue.getBody().empty() ? "convert" : "fused (region)",
      epilogue.getSumRows() ? "rows summed: each warp's column sums over its "
                              "rows added atomically into C's one row (zeroed "
                              "before)"
                            : shape.directStores
                                  ? "stores of each thread's pairs (C's rows "
                                    "are no TMA stride)"
                                  : "TMA stores",
      shape.bByThreads ? "TMA for A, B's boxes by its threads' cp.async (B's "
                         "rows are no TMA stride)"
                       : "TMA");
  if (form->pairs)
    launch.summary += form->transposed
                          ? ", clusters of 2 CTAs on pairs of N tiles sharing "
                            "W's rows by TMA multicast"
                          : ", clusters of 2 CTAs on pairs of M tiles sharing B "
                            "by TMA multicast";
  if (prefetch)
    launch.summary += "; the epilogue's gathered operand " +
                      binding.epilogueIns[*shape.prefetched] +
                      " read at [g(b), m, n] is loaded by TMA in " +
                      (form->transposed ? "32x128 f32 chunks"
                                        : "64-row x 128-byte subtiles") +
                      " through two buffers a consumer, the first two during "
                      "the tile's wgmma";
  if (form->flatRows)
    launch.summary += "; lhs batch elements as one matrix of B x " +
                      std::to_string(m) + " rows, tiles across them";
  if (splitK)
    launch.summary += "; split-K: each tile's k-tiles in parts the kernel "
                      "chooses from its tile count (8, 4, 2 or none), the "
                      "last part of each consumer's rows adding them";
  launch.summary += "; lowered from the kernel-level IR by sc-convert-sck-to-nvgpu";
  return launch;
}
