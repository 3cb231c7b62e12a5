//===- Transforms.h - Sparcast rewrites, apart from their passes -*- C++ -*-===//
#ifndef SPARCAST_TRANSFORMS_TRANSFORMS_H
#define SPARCAST_TRANSFORMS_TRANSFORMS_H

#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::sc {

class LineageAnalysis;

/// Rewrites `op` as request GEMM + candidate GEMM + gather-add when its
/// contraction operand concatenates broadcast request features with
/// candidate features. Fails (changing nothing) otherwise. The request
/// GEMM's result is f32, or `op`'s result type when `requestInResultType`
/// (one more rounding; the GPU kernels then prefetch its tiles by TMA).
LogicalResult decomposeIkboGemm(RewriterBase &rewriter, BatchMatmulOp op,
                                const LineageAnalysis &lineage,
                                bool report = false,
                                bool requestInResultType = false);

/// Rows or columns [offset, offset + size) of a 2-D shared weight along its
/// K dim `kDim` (0 for [K, N], 1 for a weight read transposed): a slice.
Value sliceWeightAlongK(OpBuilder &b, Location loc, Value weight,
                        int64_t kDim, int64_t offset, int64_t size);

/// Zero-pads K of sc.batch_matmul to 16-byte rows.
void populateScPadKPatterns(RewritePatternSet &patterns, bool report = false);

/// Folds element-wise linalg.generic consumers into sc.batch_matmul
/// epilogues, reading sc.gather_rows inputs through their index.
void populateScFuseEpiloguePatterns(RewritePatternSet &patterns,
                                    bool report = false);

/// Rewrites attention over keys/values broadcast by sc.gather_rows into the
/// indexed sc.attention.
void populateScIkboAttentionPatterns(RewritePatternSet &patterns,
                                     bool report = false);

/// The explicit block tables of a log-linear mask for static lengths
/// (failure when a length is dynamic).
FailureOr<BlockSparseMaskAttr>
materializeLogLinearMask(LogLinearMaskAttr mask, int64_t queryLength,
                         int64_t keyLength);

/// Why sc-prefetch-epilogue-operands leaves operand `i` of `epilogue`, the
/// epilogue of tile loop `loop`, read in place, or an empty string when it
/// loads the operand's tile as a box at the tile's start; then `g` is the
/// batch element that tile is read at (in the epilogue's region).
std::string epiloguePrefetchLimitation(sck::EpilogueOp epilogue,
                                       sck::TileLoopOp loop, unsigned i,
                                       Value &g);

} // namespace mlir::sc

#endif // SPARCAST_TRANSFORMS_TRANSFORMS_H
