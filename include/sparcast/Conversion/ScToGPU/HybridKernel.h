//===- HybridKernel.h - a hybrid-tiled GEMM's kernel ops to wgmma -*- C++ -*-===//
//
// The hybrid-tiled GEMM's half of sc-convert-sck-to-nvgpu
// (lib/Conversion/ScToGPU/SckHybridToNVGPU.cpp) and the shared-memory
// layout it shares with the launch (HybridGemmKernel.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_HYBRIDKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_HYBRIDKERNEL_H

#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::sc::detail {

/// Room kept for the mbarriers past the dynamic-memory symbol (at most 3
/// rings x 2 x 8 slots x 8 bytes).
constexpr int64_t kHybridBarrierBytes = 512;
/// The TMA parts of a box of `type`: 128-byte-wide swizzled columns of
/// its rows as stored (a transposed box is stored [cols][rows]), or one
/// unswizzled part when a row is narrower.
struct HybridBoxParts {
  int64_t rows = 0, colsPerPart = 0, parts = 0, bytesPerPart = 0;
  bool swizzled = true;
  static HybridBoxParts of(sck::BoxType type, bool transposed);
  int64_t bytes() const { return parts * bytesPerPart; }
};

/// Whether `ring` carries a tile of the weight (dense, or 2:4 values and
/// metadata): the rings that share their slots.
bool isHybridWeightRing(sck::RingOp ring);

/// Whether `kernel`'s tiles run in CTA pairs sharing the tokens' box (a
/// tile loop of cluster 2, sc-multicast hybrid-pairs).
bool hybridRunsInPairs(Operation *kernel);

/// The shared memory the rings of `kernel` need at `stages` slots each,
/// with room for the barriers and 1024 bytes of alignment.
int64_t hybridSharedBytes(Operation *kernel, int64_t stages);

/// Lowers the sck ops of a hybrid-tiled GEMM in `kernel` (its arguments
/// named by `sck.operand`, dropped after; its rings' stages decided).
LogicalResult convertHybridSckToNVGPU(gpu::GPUFuncOp kernel);

} // namespace mlir::sc::detail

#endif // SPARCAST_CONVERSION_SCTOGPU_HYBRIDKERNEL_H
