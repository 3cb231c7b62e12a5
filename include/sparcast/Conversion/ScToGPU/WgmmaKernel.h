//===- WgmmaKernel.h - a Hopper GEMM's kernel ops to TMA and wgmma -*- C++ -*-===//
//
// sc-convert-sck-to-nvgpu (lib/Conversion/ScToGPU/SckToNVGPU.cpp): the
// kernel-level ops of a warp-specialized Hopper GEMM inside a gpu.func,
// each lowered by a pattern of its own, and the form of the kernel they
// share with its launch.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_WGMMAKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_WGMMAKERNEL_H

#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::sc::detail {

/// The form of a warp-specialized GEMM kernel, read from its kernel-level
/// IR (the ring's boxes, the roles, the tile loop, the epilogue).
struct WgmmaKernelForm {
  /// Rows of A's box: 64 (ping-pong: a consumer a tile) or 128
  /// (cooperative: each consumer 64 rows of one tile).
  int64_t aRows = 64;
  bool cooperative = false;
  /// CTA pairs on pairs of M tiles, each loading half of B for both (the
  /// transposed tile: pairs of N tiles, each loading half of W for both).
  bool pairs = false;
  /// The transposed tile (out[b]^T = E[b]^T W^T): a consumer's tile is 128
  /// columns n (its accumulator's rows, E's two 64-column boxes) by
  /// `tileM` rows m (W's box).
  bool transposed = false;
  int64_t tileM = 0;
  /// Ping-pong and cooperative: the tile's columns (B's box), 64, 128 or
  /// 256, in accumulator halves of up to 128.
  int64_t tileN = 256;
  /// A batched lhs times a shared rhs tiled over the rows of all batch
  /// elements: A and C read and written as [B x M] rows.
  bool flatRows = false;
  /// The persistent walk (else a grid: each CTA a unit of tiles).
  bool persistent = true;
  /// The ring's slots (sc-schedule-wgmma's IR names them).
  int64_t stages = 0;
  /// The epilogue's prefetched box's element type (null: none).
  Type prefetched;
  /// B's rows are no TMA stride: the producer's threads copy its boxes
  /// (`sck.load {by_threads}`), B a memref argument.
  bool bByThreads = false;
  /// C's rows are no TMA stride: the consumers store their elements
  /// themselves (`sck.epilogue {direct_stores}`), nothing staged.
  bool directStores = false;

  int64_t halves() const { return tileN > 128 ? 2 : 1; }
  int64_t halfCols() const { return std::min<int64_t>(tileN, 128); }
  /// CTA pairs on the transposed tile: W's box in two 8-row-aligned
  /// overlapping halves, rank r's from row r (tileM - wHalfRows).
  int64_t wHalfRows() const { return (tileM / 2 + 7) / 8 * 8; }
  /// A ring slot's bytes, and those of its first part (A's box; the
  /// transposed tile: E's), the rest B's (W's).
  int64_t slotBytes() const;
  int64_t firstPartBytes() const;
  /// Shared memory a consumer needs past the ring: its staging tile of
  /// `outBits`-bit elements and the prefetched box's buffers.
  int64_t consumerBytes(int64_t outBits) const;
};

/// The form of the warp-specialized kernel whose roles `kernel` (a
/// function with the kernel-level IR at its top level) holds; a located
/// error when the lowering does not take it.
FailureOr<WgmmaKernelForm> matchWgmmaKernel(Operation *kernel);

/// Lowers the sck ops in `kernel` (a gpu.func holding a warp-specialized
/// GEMM's kernel-level IR after sc-schedule-wgmma), its arguments named
/// by `sck.operand` (dropped after): "A" and "B" the operands' TMA tensor
/// maps (the names sck.load uses; B's memref when its box is loaded by
/// threads), "C" the result's memref and "C.map" its tensor map (none with
/// direct stores), "in0", "in1", ... the epilogue's operands as memrefs and
/// "in<i>.map" the tensor map of a prefetched one.
LogicalResult convertSckToNVGPU(gpu::GPUFuncOp kernel);

} // namespace mlir::sc::detail

#endif // SPARCAST_CONVERSION_SCTOGPU_WGMMAKERNEL_H
