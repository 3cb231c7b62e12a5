//===- GemmKernel.h - sc.batch_matmul to a Hopper kernel --------*- C++ -*-===//
//
// Generates the kernel of one sc.batch_matmul. On sm_90a: the
// warp-specialized kernel written from the op's kernel-level IR (TMA loads
// into a ring of shared-memory slots guarded by mbarriers, wgmma on
// 128B-swizzled boxes, the op's epilogue region on every accumulator
// element, TMA stores). Elsewhere, and for shapes the Hopper path does not
// take: a portable one-thread-per-output kernel. Also describes the launch
// for the artifact manifest.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_GEMMKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_GEMMKERNEL_H

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>
#include <vector>

namespace mlir::sc {

struct GemmKernelOptions {
  /// sm_90a gets the TMA + wgmma kernel when the op fits it; everything
  /// else the portable one-thread-per-output kernel.
  std::string chip = "sm_90a";
  /// The schedule: "cooperative" (both consumers on one 128x256 tile),
  /// "pingpong" (each consumer on its own 64x256 tile, one's epilogue under
  /// the other's wgmma) or "transposed" (IKBO's candidate GEMM as E^T W^T);
  /// "auto": the op's (sc-select-kernel-config, docs/decisions.md). A
  /// kernel-level IR with roles decides it.
  std::string schedule = "auto";
};

/// A size in a launch description: a constant, or ceil(factor * symbol /
/// divisor) where the symbol names a dynamic dim of the entry ("B", "U",
/// ...); the divisor is for grids over tiles of a dynamic length.
struct LaunchDim {
  int64_t constant = 0;
  std::string symbol;
  int64_t factor = 1;
  int64_t divisor = 1;
  static LaunchDim of(int64_t c) { return LaunchDim{c, "", 1, 1}; }
  static LaunchDim sym(std::string s, int64_t f = 1) {
    return LaunchDim{0, std::move(s), f, 1};
  }
  static LaunchDim ceilDiv(std::string s, int64_t divisor) {
    return LaunchDim{0, std::move(s), 1, divisor};
  }
  /// ceil(this size / `by`) (ceil(ceil(x / a) / b) = ceil(x / (a b))).
  LaunchDim dividedUp(int64_t by) const {
    LaunchDim d = *this;
    if (d.symbol.empty())
      d.constant = (d.constant + by - 1) / by;
    else
      d.divisor *= by;
    return d;
  }
  /// This size times `f` (of a size without a divisor).
  LaunchDim times(int64_t f) const {
    LaunchDim d = *this;
    if (d.symbol.empty())
      d.constant *= f;
    else
      d.factor *= f;
    return d;
  }
};

struct LaunchParam {
  /// A tensor map, a memref descriptor, a dim value (an `index`), or the
  /// BSR tables of a log-linear mask over lengths known at launch (a 1-D
  /// i32 memref: offsets, then kept key blocks), built by the runtime.
  enum class Kind { Tma, Memref, Dim, LogLinearTables } kind = Kind::Memref;
  /// Dim only: its value.
  LaunchDim dim;
  /// LogLinearTables only: the lengths and the mask's parameters.
  LaunchDim queryLen, keyLen;
  int64_t maskBlock = 0, localWidth = 0, anchors = 0, causal = 0;
  /// Entry tensor the parameter is made from.
  std::string tensor;
  // Tma only: global dims innermost first, byte strides of dims 1.., box.
  std::vector<LaunchDim> dims;
  std::vector<LaunchDim> stridesBytes;
  std::vector<int64_t> box;
  int64_t swizzleBytes = 128;
  /// Tma only: where the map starts in the tensor (a multiple of 16 bytes;
  /// a slice of a weight read in place).
  int64_t offsetBytes = 0;
  /// A memref descriptor of entry tensor `name`.
  static LaunchParam memref(std::string name) {
    LaunchParam p;
    p.tensor = std::move(name);
    return p;
  }
};

struct KernelLaunch {
  std::string kernel;
  LaunchDim grid[3];
  int64_t block[3] = {128, 1, 1};
  int64_t sharedBytes = 0;
  std::vector<LaunchParam> params;
  /// Conditions on the entry's dims the launch relies on: {a, b} is a <= b,
  /// checked by the runtime before it launches.
  std::vector<std::pair<std::string, std::string>> atMost;
  /// What the generator decided, for --report.
  std::string summary;
};

/// How the op's operands and result are known to the entry: tensor names
/// and the symbol of each dynamic dim (kDynamic dims only).
/// Split-K's workspaces as the entry knows them: the parts' partial sums
/// (f32) and each tile's arrivals (i32, zero at each call). Empty without
/// a split.
struct SplitKBinding {
  std::string partials, arrivals;
};

struct GemmBinding {
  std::string lhs, rhs, result;
  std::vector<std::string> epilogueIns;
  /// The batch dim (dim 0) of each epilogue input as the entry knows it: a
  /// gathered input has its own batch (e.g. U users, not the B of the
  /// result), which its tensor map must bound.
  std::vector<LaunchDim> epilogueInBatches;
  /// Symbol of the batch dim (the batched operand's dim 0).
  std::string batchSymbol;
  /// The batch dim of `t` (dim 0): its size, or the batch symbol.
  LaunchDim batchOf(RankedTensorType t) const {
    return ShapedType::isDynamic(t.getDimSize(0)) ? LaunchDim::sym(batchSymbol)
                                                  : LaunchDim::of(t.getDimSize(0));
  }
  /// When the (shared, 2-D) rhs is a slice of a weight read in place: the
  /// weight's row length and the slice's first element in it.
  int64_t rhsSourceRowElems = 0, rhsSourceOffsetElems = 0;
  /// When the rhs [B, K, N] is a zero padding along K of a smaller tensor,
  /// its K: TMA's zero fill past it stands in for the padding, which is
  /// never materialized. 0 when the rhs is the tensor itself.
  int64_t rhsSourceK = 0;
  /// Split-K of a dense warp-specialized GEMM: its workspaces.
  SplitKBinding split;
};

/// Split-K of a dense warp-specialized GEMM as its kernel-level IR has it
/// (sc-split-k dense): the most parts the kernel runs in all, the f32
/// words of one part's partial sums and the arrival counts a tile (one a
/// consumer warpgroup); maxParts 0 without a split.
struct DenseSplit {
  int64_t maxParts = 0, wordsPerPart = 0, arrivalsPerTile = 0;
};
DenseSplit denseSplitOf(BatchMatmulOp op);

/// Whether buildGemmKernel takes the TMA + wgmma path for `op` with
/// `options` (chip and schedule).
bool usesHopperGemmPath(BatchMatmulOp op, const GemmKernelOptions &options);

/// Whether buildGemmKernel takes the multistage (sm_80 / sm_86 / sm_89)
/// path for `op`: its threads copy the operands by cp.async.
bool usesMultistageGemmPath(BatchMatmulOp op, const GemmKernelOptions &options);

/// Builds kernel `kernelName` for `op` into `gpuModule`: the TMA + wgmma
/// kernel on sm_90a when the op fits it (f16/bf16, row-major B, K and N
/// multiples of 8), else the portable kernel, with a remark saying why.
/// Emits a located error and fails on what no path supports.
FailureOr<KernelLaunch> buildGemmKernel(BatchMatmulOp op,
                                        gpu::GPUModuleOp gpuModule,
                                        StringRef kernelName,
                                        const GemmBinding &binding,
                                        const GemmKernelOptions &options);

/// The packed buffers of a hybrid-tiled weight (sc.assemble_hybrid) as the
/// entry knows them: tensor names, and the count of dense and of 2:4 tiles
/// (dim 0 of their buffers).
struct HybridWeightBinding {
  std::string kinds, slots, dense, sparse, meta;
  LaunchDim numDense, numSparse;
};

/// Split-K of a hybrid-tiled GEMM's kernel-level IR (sc-split-k): the
/// parts a tile runs in (1: none), the f32 words of one part's partial
/// sums, the tiles of one batch element, and the arrival counts a tile
/// (one per warp of its consumer: 16 rows each).
struct HybridSplit {
  int64_t splits = 1, wordsPerPart = 0, tilesPerBatch = 0, arrivalsPerTile = 0;
};
HybridSplit hybridSplitOf(BatchMatmulOp op);

/// Why `op`, a GEMM whose rhs is a hybrid-tiled weight, has no kernel on
/// `chip`, or an empty string.
std::string hybridGemmLimitation(BatchMatmulOp op, StringRef chip);

/// Builds kernel `kernelName` for `op`, y = x W^T with W hybrid-tiled
/// (HybridGemmKernel.cpp), from its warp-specialized kernel-level IR: per
/// CTA a band of 64 or 128 rows of W by a tile of tokens, a producer
/// warpgroup loading the tokens' box and each non-zero tile's boxes by TMA
/// into rings, one consumer warpgroup per 64 rows issuing wgmma for dense
/// tiles and sparse wgmma for 2:4 tiles, then the epilogue. Fails with a located error on
/// what it does not take (hybridGemmLimitation).
FailureOr<KernelLaunch> buildHybridGemmKernel(BatchMatmulOp op,
                                              gpu::GPUModuleOp gpuModule,
                                              StringRef kernelName,
                                              const GemmBinding &binding,
                                              const HybridWeightBinding &weight,
                                              const SplitKBinding &split);

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_GEMMKERNEL_H
