//===- MultistageGemmKernel.cpp - sm_80's GEMM from its kernel-level IR ---===//
//
// The GEMM of sm_80 / sm_86 / sm_89 (A100, A10, L4, L40S): the kernel-level
// IR that sc-lower-to-sck and sc-pipeline-multistage leave (a grid tile
// loop of 128 x 128 or 128 x 256 tiles, k-tiles of 32 put through a ring of
// shared memory stages - 1 ahead of their MMA) cloned into a gpu.func of memref
// arguments and lowered by sc-convert-sck-to-mma-sync, one pattern per op
// (SckToMmaSync.cpp); here the kernel's signature and its launch.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
constexpr int64_t kRows = kMultistageTileM, kDepth = kMultistageTileK;

/// The multistage kernel the IR describes: its ring and tile loop, and the
/// tile's columns (its accumulator's: 128 or 256, a warp each 64 x 64).
struct MultistageIR {
  sck::RingOp ring;
  sck::TileLoopOp loop;
  int64_t cols = 0;
  int64_t threads() const { return 32 * (kRows / 64) * (cols / 64); }
};

/// The kernel-level IR's multistage kernel, once the launch below runs its
/// tiles: one CTA a 128 x 128 or 128 x 256 tile of the op; else a located
/// error.
FailureOr<MultistageIR> matchMultistageIR(BatchMatmulOp op,
                                          func::FuncOp kernel) {
  auto rings = kernel.getBody().front().getOps<sck::RingOp>();
  auto loops = kernel.getBody().front().getOps<sck::TileLoopOp>();
  if (!llvm::hasSingleElement(rings) || !llvm::hasSingleElement(loops))
    return kernel.emitError("multistage-gemm-kernel: one ring and one tile "
                            "loop at the kernel function's top level (run "
                            "sc-pipeline-multistage)");
  sck::TileLoopOp loop = *loops.begin();
  sck::ZeroOp zero;
  loop.walk([&](sck::ZeroOp z) { zero = z; });
  ArrayRef<int64_t> acc = zero ? zero.getType().getShape() : ArrayRef<int64_t>();
  if (acc.size() != 2 || acc[0] != kRows || (acc[1] != 128 && acc[1] != 256))
    return (zero ? zero.getOperation() : loop.getOperation())
               ->emitError("multistage-gemm-kernel: a 128x128 or 128x256 f32 "
                           "accumulator (warps of 64 x 64)");
  int64_t cols = acc[1];
  GemmShape shape(op);
  bool flatRows = shape.lhsBatched && !shape.rhsBatched;
  std::optional<int64_t> mTiles = getConstantIntValue(loop.getMTiles());
  std::optional<int64_t> nTiles = getConstantIntValue(loop.getNTiles());
  if (nTiles != llvm::divideCeil(shape.n, cols) ||
      (!flatRows && mTiles != llvm::divideCeil(shape.m, kRows)))
    return loop.emitError()
           << "multistage-gemm-kernel: the kernel runs "
           << (flatRows ? std::string("the flat rows'")
                        : std::to_string(llvm::divideCeil(shape.m, kRows)))
           << " x " << llvm::divideCeil(shape.n, cols) << " tiles of 128 x "
           << cols << "; the kernel-level IR's tile loop differs";
  return MultistageIR{*rings.begin(), loop, cols};
}

/// The kernel-level function's body cloned into `func` (its memref
/// arguments named for the ops: A, B, C, in0, ...): the batch count is C's
/// first dim, the epilogue's tensors the memrefs.
void cloneKernelIR(func::FuncOp kernel, gpu::GPUFuncOp func, OpBuilder &b) {
  Location loc = kernel.getLoc();
  unsigned numIns = kernel.getNumArguments() - 1;
  func.setArgAttr(0, kOperandAttrName, b.getStringAttr("A"));
  func.setArgAttr(1, kOperandAttrName, b.getStringAttr("B"));
  func.setArgAttr(2, kOperandAttrName, b.getStringAttr("C"));
  IRMapping mapping;
  Value c = func.getArgument(2);
  mapping.map(kernel.getArgument(0),
              cast<MemRefType>(c.getType()).getRank() == 3
                  ? memref::DimOp::create(b, loc, c, 0).getResult()
                  : arith::ConstantIndexOp::create(b, loc, 1).getResult());
  for (unsigned i = 0; i < numIns; ++i) {
    func.setArgAttr(3 + i, kOperandAttrName, b.getStringAttr("in" + Twine(i)));
    Value in = kernel.getArgument(1 + i);
    mapping.map(in, UnrealizedConversionCastOp::create(
                        b, loc, in.getType(), func.getArgument(3 + i))
                        .getResult(0));
  }
  for (Operation &inner : kernel.getBody().front().without_terminator())
    b.clone(inner, mapping);
  gpu::ReturnOp::create(b, loc);
}
} // namespace

FailureOr<KernelLaunch>
mlir::sc::detail::buildMultistageGemmKernel(BatchMatmulOp op,
                                            gpu::GPUModuleOp gpuModule,
                                            StringRef kernelName,
                                            const GemmBinding &binding,
                                            StringRef chip) {
  MLIRContext *ctx = op.getContext();
  ctx->loadDialect<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                   LLVM::LLVMDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                   scf::SCFDialect, vector::VectorDialect>();
  FailureOr<func::FuncOp> kernel = kernelIRFunction(op);
  if (failed(kernel))
    return failure();
  if (!*kernel)
    return op.emitError("multistage-gemm-kernel: the op has no kernel-level "
                        "IR (sc-lower-to-sck)");
  FailureOr<MultistageIR> ir = matchMultistageIR(op, *kernel);
  if (failed(ir))
    return failure();
  FailureOr<MmaSyncRingLayout> layout = mmaSyncRingLayout(ir->ring);
  if (failed(layout))
    return failure();
  if (layout->bytes > maxSharedBytesPerBlock(chip))
    return ir->ring.emitError("multistage-gemm-kernel: the ring needs ")
           << layout->bytes << " bytes of shared memory, more than " << chip
           << "'s " << maxSharedBytesPerBlock(chip)
           << " a CTA (fewer stages, or 128-column tiles)";
  if (binding.rhsSourceRowElems)
    return op.emitError("internal error: the multistage kernel reads the "
                        "rhs itself, not a slice of another tensor");
  if ((*kernel).getNumArguments() != 1 + op.getEpilogueIns().size())
    return kernel->emitError("multistage-gemm-kernel: a kernel-level function "
                             "of other than (batch, epilogue operands...)");
  GemmShape shape(op);
  bool flatRows = shape.lhsBatched && !shape.rhsBatched;
  // A rhs padded along K is read unpadded (binding.rhsSourceK): the copies
  // zero-fill the rows past its K.
  SmallVector<Type> params = {memrefOf(op.getLhs().getType()),
                              memrefOf(rhsTypeAsRead(op, binding)),
                              memrefOf(op.getType())};
  for (Value in : op.getEpilogueIns())
    params.push_back(memrefOf(cast<RankedTensorType>(in.getType())));
  OpBuilder b(ctx);
  gpu::GPUFuncOp func = createKernelFunction(b, op.getLoc(), gpuModule,
                                             kernelName, params, ir->threads());
  cloneKernelIR(*kernel, func, b);
  if (failed(convertSckToMmaSync(func))) {
    if (auto epilogue = gpuModule.lookupSymbol((kernelName + "_epilogue").str()))
      epilogue->erase();
    func.erase();
    return failure();
  }
  // The epilogue's tensors were read as the memrefs they stand for.
  func.walk([](UnrealizedConversionCastOp cast) {
    if (cast->use_empty())
      cast.erase();
  });

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = ir->threads();
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(shape.n, ir->cols));
  if (flatRows) {
    LaunchDim rows = binding.batchOf(op.getLhs().getType()).times(shape.m);
    launch.grid[1] = rows.symbol.empty()
                         ? LaunchDim::of(llvm::divideCeil(rows.constant, kRows))
                         : LaunchDim{0, rows.symbol, rows.factor, kRows};
    launch.grid[2] = LaunchDim::of(1);
  } else {
    launch.grid[1] = LaunchDim::of(llvm::divideCeil(shape.m, kRows));
    launch.grid[2] = op.getType().getRank() == 3
                         ? binding.batchOf(op.getType())
                         : LaunchDim::of(1);
  }
  launch.sharedBytes = layout->bytes;
  launch.params = memrefGemmParams(binding);
  bool bInPieces = false;
  (*kernel).walk([&](sck::LoadOp load) { bInPieces |= load.getByThreads(); });
  launch.summary =
      llvm::formatv("{0}: {1}x{2}x{3} {4}, multistage (sm_80/86/89): 128x{10} "
                    "tiles of {11} warps, {5}-stage cp.async ring (k-tiles of "
                    "{6}), ldmatrix + mma.sync m16n8k16 (fp32 accumulation), "
                    "B {7}{12}{8}, {9} B shared memory",
                    kernelName, shape.m, shape.n, shape.k,
                    op.getLhs().getType().getElementType(),
                    layout->stages, kDepth,
                    op.getTransposeRhs() ? "K-major" : "N-major",
                    flatRows ? ", rows of all batch elements" : "",
                    launch.sharedBytes, ir->cols, ir->threads() / 32,
                    bInPieces ? " (copied in 4- or 8-byte pieces: its rows "
                                "are no 16-byte multiple)"
                              : "")
          .str();
  return launch;
}
