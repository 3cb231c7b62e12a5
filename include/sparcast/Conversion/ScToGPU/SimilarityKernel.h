//===- SimilarityKernel.h - kernels of sc.sparse_matmul ---------*- C++ -*-===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_SIMILARITYKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_SIMILARITYKERNEL_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include <string>
#include <vector>

namespace mlir::sc {

/// The three buffers of an sc.assemble_csr as the entry knows them.
struct CsrBinding {
  std::string rowPtr, words, values;
};

/// How a split sc.sparse_matmul's operands are known to the entry: the
/// sparse parts, the dense heads, the epilogue operands, the workspace of
/// the sparse part's products (zero-initialized; none when the products
/// are added after the epilogue) and the result, and the result's dims M
/// and N.
struct SparseMatmulBinding {
  CsrBinding lhs, rhs;
  std::string lhsHead, rhsHead, scores, result;
  std::vector<std::string> epilogueIns;
  LaunchDim rows, items;
  /// When an sc.select_rows_above consumes the product (fused into the
  /// tile kernel, the scores never written): its thresholds and results
  /// (the counts zero-initialized).
  std::string thresholds, counts, values, cols;
};

/// Why the GPU has no kernels for `op`, or an empty string.
std::string sparseMatmulLimitation(SparseMatmulOp op);

/// Whether `op` needs a zeroed workspace for its sparse parts' products.
/// It does not when a selection consumes it (the tile selects on the heads
/// alone and a rescoring kernel scores the pairs the sparse parts touch),
/// nor when its f32 epilogue is linear in the product (the products are
/// added into the result after it, each scaled by the epilogue at 1).
bool needsScoresWorkspace(SparseMatmulOp op, SelectRowsAboveOp select);

/// Builds the kernels of a split sc.sparse_matmul into `gpuModule`, in
/// launch order, all written in sck ops (sc-lower-sck-simt lowers them):
///  - with `select`: `<name>_clear` empties the slots, `<name>_tile`
///    computes the heads' product in exact fp32 a 128 x 128 tile a CTA and
///    appends the elements above their row's threshold through the
///    epilogue, `<name>_rescore` (a CTA a query row) empties the candidates
///    whose pair the sparse parts touch and appends those pairs' exact
///    scores;
///  - with a workspace (binding.scores): `<name>_scatter` adds the sparse
///    parts' products into it (a warp a query row, atomics), then the tile
///    kernel adds it to the heads' product before the epilogue and stores;
///  - else the tile kernel stores the heads' product through the epilogue
///    and the scatter kernel then adds the sparse parts' products scaled by
///    the epilogue at 1.
FailureOr<std::vector<KernelLaunch>>
buildSparseMatmulKernels(SparseMatmulOp op, gpu::GPUModuleOp gpuModule,
                         StringRef name, const SparseMatmulBinding &binding,
                         SelectRowsAboveOp select = {});

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_SIMILARITYKERNEL_H
