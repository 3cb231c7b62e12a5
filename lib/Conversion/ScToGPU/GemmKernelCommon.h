//===- GemmKernelCommon.h - pieces shared by the GEMM kernels ---*- C++ -*-===//
//
// What the GEMM kernels share (the portable kernel, the warp-specialized
// kernels sck-to-nvgpu writes, the hybrid-tiled one): the epilogue region
// as a device function and the kernel parameters.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_GEMMKERNELCOMMON_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_GEMMKERNELCOMMON_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::sc::detail {

constexpr int64_t kTileM = 128, kTileK = 64;

MemRefType memrefOf(RankedTensorType t);

/// The rhs as a kernel that reads it itself takes it: K the source's where
/// the padding along K is left to the kernel's zero fill
/// (`binding.rhsSourceK`).
RankedTensorType rhsTypeAsRead(BatchMatmulOp op, const GemmBinding &binding);

/// The sizes every GEMM generator reads; M, N and K are static
/// (buildGemmKernel refuses the op otherwise).
struct GemmShape {
  int64_t m, n, k;
  bool lhsBatched, rhsBatched;
  explicit GemmShape(BatchMatmulOp op)
      : m(op.getRowCount()), n(op.getType().getDimSize(2)),
        k(op.getLhs().getType().getShape().back()),
        lhsBatched(op.getLhs().getType().getRank() == 3),
        rhsBatched(op.getRhs().getType().getRank() == 3) {}
};

/// The element-wise epilogue the kernel runs, (acc, b, m, n, ins...) ->
/// element: the region of the sck.epilogue in the op's kernel-level
/// function (sc.kernel_ir) when there is one, else the op's region; null
/// when the accumulator is only converted.
Block *epilogueBlock(BatchMatmulOp op);

/// Builds the body of `func`, (acc, b, m, n, args...) -> result element,
/// from an epilogue region `body` of the same form (null: the accumulator
/// converted): region argument i is function argument i (i + 1 past the
/// leading four with `prefetched`, the value of that operand coming
/// first), tensor.extract on a memref argument becomes memref.load.
LogicalResult buildEpilogueFunction(
    BatchMatmulOp op, Block *body, func::FuncOp func,
    std::optional<unsigned> prefetched = std::nullopt);

/// The same for any op's epilogue region whose first `lead` arguments are
/// the accumulator and its indices (4 for sc.batch_matmul: acc, b, m, n;
/// 3 for sc.sparse_matmul: dot, m, n), its result of `resultElement`.
LogicalResult buildEpilogueFunction(
    Location loc, Type resultElement, unsigned lead, Block *body,
    func::FuncOp func, std::optional<unsigned> prefetched = std::nullopt);

/// Parameters of the TMA kernels: A's and B's tensor maps (A boxes of
/// `tileM` rows), then C and the epilogue operands as memrefs.
std::vector<LaunchParam> tmaKernelParams(BatchMatmulOp op,
                                         const GemmBinding &binding,
                                         int64_t tileM = kTileM);

/// A GEMM kernel that reads the op's operands as memrefs: `name` (A, B, C,
/// the epilogue operands) of `threads` threads a CTA, and its epilogue
/// device function `<name>_epilogue` (acc, b, m, n, operands...) ->
/// element, built from `epilogueBody` (null: the accumulator converted).
/// `b` is left at the start of the kernel's body.
FailureOr<std::pair<gpu::GPUFuncOp, func::FuncOp>>
createMemrefGemmKernel(BatchMatmulOp op, gpu::GPUModuleOp module,
                       StringRef name, int64_t threads, Block *epilogueBody,
                       OpBuilder &b);

/// Such a kernel's launch parameters: A, B, C and the epilogue operands as
/// memref descriptors.
std::vector<LaunchParam> memrefGemmParams(const GemmBinding &binding);

/// One thread per output element: any shape, layout and chip.
FailureOr<KernelLaunch> buildPortableGemmKernel(BatchMatmulOp op,
                                                gpu::GPUModuleOp gpuModule,
                                                StringRef kernelName,
                                                const GemmBinding &binding);

/// The multistage kernel of `op` (sm_80 / sm_86 / sm_89: cp.async ring,
/// mma.sync) written from its kernel-level IR (MultistageGemmKernel.cpp),
/// and its launch; a located error for IR of another form or a ring that
/// needs more shared memory than `chip` gives a CTA.
FailureOr<KernelLaunch> buildMultistageGemmKernel(BatchMatmulOp op,
                                                  gpu::GPUModuleOp module,
                                                  StringRef kernelName,
                                                  const GemmBinding &binding,
                                                  StringRef chip);

/// The warp-specialized kernel of `op` (ping-pong, cooperative or the
/// transposed tile; persistent or a grid; alone or in CTA pairs; any
/// epilogue, a prefetched operand, flat rows) lowered into `module` from
/// its kernel-level IR by sc-convert-sck-to-nvgpu (WarpSpecializedGemmKernel.cpp,
/// SckToNVGPU.cpp), and its launch; a located error for IR the lowering
/// does not take or that does not fit.
FailureOr<KernelLaunch> buildGemmKernelFromIR(BatchMatmulOp op,
                                              gpu::GPUModuleOp module,
                                              StringRef kernelName,
                                              const GemmBinding &binding);

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_GEMMKERNELCOMMON_H
