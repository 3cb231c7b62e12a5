//===- GemmKernelCommon.h - pieces shared by the GEMM kernels ---*- C++ -*-===//
//
// What the portable, simple and warp-specialized GEMM kernel generators
// share: template pieces, the epilogue region as a device function, the
// kernel parameters and the k-tile loads.
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

/// Tensor map, barrier, accumulator, descriptor and tile types ($TYPES),
/// and the tensor maps cast from the kernel's pointer parameters ($CASTS).
extern const char *const kTmaTypesTemplate;
extern const char *const kTmaCastsTemplate;

MemRefType memrefOf(RankedTensorType t);

/// The sizes every GEMM generator reads; M, N and K are static
/// (buildGemmKernel refuses the op otherwise).
struct GemmShape {
  int64_t m, n, k;
  bool lhsBatched, rhsBatched;
  explicit GemmShape(BatchMatmulOp op)
      : m(op.getType().getDimSize(1)), n(op.getType().getDimSize(2)),
        k(op.getLhs().getType().getShape().back()),
        lhsBatched(op.getLhs().getType().getRank() == 3),
        rhsBatched(op.getRhs().getType().getRank() == 3) {}
};

/// Parses `text`, builds @<kernel>_epilogue from the op's region (see
/// buildEpilogueFunction; `prefetched`: the epilogue operand the kernel
/// passes as a value) and moves the kernel into `gpuModule`.
LogicalResult installKernel(
    BatchMatmulOp op, gpu::GPUModuleOp gpuModule, StringRef kernelName,
    const std::string &text,
    function_ref<LogicalResult(gpu::GPUModuleOp)> buildMore = {},
    std::optional<unsigned> prefetched = std::nullopt,
    bool epilogueFromKernelIR = true);

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

/// The epilogue operand the warp-specialized template prefetches by TMA
/// (its tensor map the kernel parameter after C's), if any, for a kernel
/// without a stage 1 (which may drop it), with CTA pairs (`multicast`) or
/// not, the transposed tile or not.
std::optional<unsigned> templatePrefetchedOperand(BatchMatmulOp op,
                                                  bool multicast,
                                                  bool transposed);

/// @<kernel>_dependency(b, memrefs...) -> index: the epilogue's value `g`
/// (a batch index computed from b and the epilogue operands), with the ops
/// it needs cloned from the region.
LogicalResult buildDependencyFunction(BatchMatmulOp op, Value g,
                                      func::FuncOp func);

/// Of a multi-stage kernel (see GemmStageOne): builds the bodies of
/// @<kernel>_epilogue1 (stage 1's epilogue, (acc, b, m, n) -> element) and
/// @<kernel>_dependency ((b, stage 2's epilogue memrefs...) -> the stage-1
/// batch element that stage-2 batch element b reads) in `scratch`.
LogicalResult buildStageOneFunctions(BatchMatmulOp stage1,
                                     BatchMatmulOp stage2,
                                     gpu::GPUModuleOp scratch,
                                     StringRef kernelName);

/// Epilogue parameters, arguments and types as template text
/// ($EPI_PARAMS, $EPI_ARGS, $EPI_TYPES).
void epilogueText(BatchMatmulOp op, llvm::StringMap<std::string> &values);

/// Parameters of the TMA kernels: A's and B's tensor maps (A boxes of
/// `tileM` rows), then C and the epilogue operands as memrefs.
std::vector<LaunchParam> tmaKernelParams(BatchMatmulOp op,
                                         const GemmBinding &binding,
                                         int64_t tileM = kTileM);

/// The TMA loads of one k-tile for a `tileN`-wide B tile (N-major, or
/// K-major when the rhs is transposed).
/// The tensor maps are the values %`mapA` and %`mapB`.
std::string loadText(StringRef prefix, StringRef slot, StringRef kt,
                     StringRef barriers, int64_t tileN, bool kMajorB = false,
                     StringRef mapA = "tmaA", StringRef mapB = "tmaB");

/// Eight epilogue calls on the lanes of %v into %o_7.
std::string epilogueLanes(int indent);

/// One thread per output element: any shape, layout and chip.
FailureOr<KernelLaunch> buildPortableGemmKernel(BatchMatmulOp op,
                                                gpu::GPUModuleOp gpuModule,
                                                StringRef kernelName,
                                                const GemmBinding &binding);

/// One CTA per 128 x BN tile (GemmSimpleKernel.cpp).
FailureOr<KernelLaunch> buildSimpleGemmKernel(BatchMatmulOp op,
                                              gpu::GPUModuleOp gpuModule,
                                              StringRef kernelName,
                                              const GemmBinding &binding,
                                              const GemmKernelOptions &options);

/// Defines, for this thread of a consumer warpgroup, its place in the
/// wgmma accumulator fragment: %<p>lane, %<p>q, %<p>quad, %<p>rowRel0/8,
/// %<p>m, %<p>row0/8, %<p>in0/8 (row < %cM), %<p>q2, %<p>col
/// (GemmWarpSpecializedKernel.cpp).
std::string fragmentCoordinatesText(StringRef p, int64_t rowsPerWarpgroup);

/// Multi-stage kernels (GemmMultiStage.cpp): the tile index of the one
/// sequence over both stages (%t, %isStage1), the template pieces and
/// values of stage 1 around the warp-specialized kernel's (its EPILOGUE
/// piece, stage 2's, is wrapped), and stage 1's launch parameters and
/// report.
std::string multiStageTileIndexText();
/// In a stage-2 tile of a multi-stage kernel, before its elected thread
/// loads by TMA the stage-1 tile of batch element `g` that the epilogue
/// reads: waits for that tile's flag (acquire) and orders stage 1's stores
/// before the TMA's reads (fence.proxy.async.global).
std::string stageTwoPrefetchWaitText(StringRef g);

void multiStagePieces(const GemmStageOne &stage1, bool pingpong,
                      int64_t rowsPerWarpgroup,
                      llvm::StringMap<std::string> &pieces,
                      llvm::StringMap<std::string> &values);
void addMultiStageLaunch(KernelLaunch &launch, const GemmStageOne &stage1,
                         int64_t tileM);

/// Persistent, warp-specialized, cooperative or ping-pong
/// (GemmWarpSpecializedKernel.cpp).
/// With `stage1`, the kernel runs it first (see GemmStageOne).
/// With `multicast`, CTA pairs (clusters of 2) take pairs of M tiles and
/// share each B k-tile by TMA multicast (opt-in: correct on the H200, not
/// faster).
/// What the kernel-level IR decided for a warp-specialized kernel (see
/// rolesFromKernelIR): ring stages (0: as many as fit), the roles'
/// register budgets, and the tile loop's schedule: persistent (one CTA per
/// SM) or a grid of one CTA per tile (per pair of tiles for ping-pong),
/// M tiles in groups of `group`.
struct WarpRoles {
  int64_t stages = 0;
  int64_t producerRegs = 40;
  int64_t consumerRegs = 232;
  bool persistent = true;
  int64_t group = 8;
  /// CTAs per cluster sharing B by TMA multicast (1 or 2); 0: the IR does
  /// not say (the option decides).
  int64_t cluster = 0;
};

/// The warp-specialized kernel of `op` (ping-pong, cooperative or the
/// transposed tile; alone or in CTA pairs; any epilogue, a prefetched
/// operand, flat rows) written into `module` op by op from its
/// kernel-level IR (SckToNVGPU.cpp), and its launch; a located error for
/// IR the lowering does not take or that does not fit.
FailureOr<KernelLaunch> buildGemmKernelFromIR(BatchMatmulOp op,
                                              gpu::GPUModuleOp module,
                                              StringRef kernelName,
                                              const GemmBinding &binding);

/// What the launch of a warp-specialized GEMM kernel depends on: its tile
/// (`tileM` x `tileN`, A's box of `aBoxRows` rows), shared memory, the
/// schedule (persistent or a grid of `tilesPerUnit` tiles a CTA), the
/// transposed tile, flat rows and the epilogue operand prefetched by TMA.
struct WsLaunchShape {
  int64_t tileM = 0, tileN = 0, aBoxRows = 0, sharedBytes = 0;
  bool persistent = true;
  int64_t tilesPerUnit = 1;
  bool transposed = false, flatRows = false;
  std::optional<unsigned> prefetched;
};

/// The launch (384 threads, grid, shared memory, the tensor maps of A, B,
/// C and the prefetched operand, C and the epilogue operands as memrefs)
/// of a warp-specialized GEMM kernel.
KernelLaunch warpSpecializedLaunch(BatchMatmulOp op, StringRef kernelName,
                                   const GemmBinding &binding,
                                   const WsLaunchShape &shape);

/// `schedule`: "cooperative", "pingpong" or "transposed" (see
/// GemmTransposedTile.cpp).
FailureOr<KernelLaunch>
buildWarpSpecializedGemmKernel(BatchMatmulOp op, gpu::GPUModuleOp gpuModule,
                               StringRef kernelName, const GemmBinding &binding,
                               StringRef schedule, bool multicast,
                               const GemmStageOne *stage1 = nullptr,
                               const WarpRoles &roles = {});

/// In a warp-specialized GEMM's epilogue, after the warpgroup wrote its
/// staging: every thread's writes made visible to the TMA (async) proxy,
/// the warpgroup's named barrier, then the elected thread's block (opened,
/// for its TMA stores; the caller closes it).
extern const char *const kStagingStoreOpenText;

/// How a consumer's two accumulator halves multiply one k-tile (four k16
/// steps each): the descriptor that differs between the halves (B's for
/// the two 128-column halves of a B tile, A's for the transposed tile's
/// two E boxes), each operand's step per k16 in descriptor units (16
/// bytes) and its wgmma layout, and the instruction's N.
struct WgmmaHalves {
  bool aPerHalf = false;
  int64_t aStep = 2, bStep = 128, n = 128;
  StringRef aLayout = "row", bLayout = "row";
};

/// The four k16 steps of one 64-deep k slice into one m64 x `layout.n` f32
/// accumulator, both operands in shared memory: nvvm.wgmma.mma_async on the
/// i64 descriptors %<aDesc> and %<bDesc>, advanced by layout.aStep /
/// layout.bStep descriptor units a step. The accumulator (`accType`) flows
/// from `in` to `out` through %<p>_w0..2; with `zeroFirst` the first step
/// ignores `in`. Names are prefixed by `p`. Used by consumerKTileText and
/// the simple kernel's K-major B.
std::string wgmmaK16StepsText(StringRef p, StringRef aDesc, StringRef bDesc,
                              StringRef in, StringRef out, StringRef accType,
                              StringRef elementType, const WgmmaHalves &layout,
                              bool zeroFirst);

/// One k-tile of a warp-specialized consumer (GemmWarpSpecializedKernel.cpp):
/// the ring's full wait, the slot's descriptors and the wgmma of both
/// halves into %<p>_L and %<p>_R from `accL` / `accR`, as one commit
/// group, then a wait leaving only it in flight. When `first`, the first
/// wgmma of each half ignores its accumulator.
std::string consumerKTileText(StringRef p, StringRef j, StringRef accL,
                              StringRef accR, bool first, StringRef elementType,
                              const WgmmaHalves &halves);

/// The transposed tile (GemmTransposedTile.cpp): a shared lhs W [M, K] by
/// a batched rhs E [B, K, N] (N-major) as out[b]^T = E[b]^T W^T, each
/// consumer warpgroup in ping-pong turns a tile of 128 n by `tileRows` m
/// (BatchMatmulOp::getTransposedTileRows) in two m64n<tileRows>
/// accumulators (%accL, %accR). Constants (%cChunks, %c4096t, %c8192t,
/// %c16384t) at the kernel's top; one k-tile's loads (producer); the
/// consumer's k-tile operands (for consumerKTileText); at the tile's start,
/// the elected thread's loads of the first two chunks of the gathered f32
/// operand; the epilogue (chunks of 32 m through [m][n] staging boxes, the
/// operand read from the C buffers when `prefetched`).
std::string transposedTileConstantsText(int64_t tileRows);
/// `pairRow` > 0: CTA pairs, each loading W's rows from rank * pairRow and
/// multicasting them.
std::string transposedTileLoadText(int64_t pairRow = 0);
WgmmaHalves transposedTileHalves(int64_t tileRows);
/// Whether the transposed tile's N tiles (128 columns) of a result of `n`
/// columns go in CTA pairs: an even number of them, so every tile of a
/// pair lives.
bool transposedTilesPair(int64_t n);
std::string transposedTilePrefetchText();
std::string transposedTileEpilogueText(bool prefetched, int64_t tileRows);

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_GEMMKERNELCOMMON_H
