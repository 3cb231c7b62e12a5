//===- MaskPatterns.cpp - block patterns of attention masks ---------------===//

#include "sparcast/Dialect/SC/IR/MaskPatterns.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir::sc;

llvm::SmallVector<int64_t>
mlir::sc::logLinearKeptBlocks(int64_t queryBlock, int64_t numKeyBlocks,
                              const LogLinearParams &params) {
  llvm::SmallVector<int64_t> kept;
  auto keep = [&](int64_t keyBlock) {
    if (keyBlock < 0 || keyBlock >= numKeyBlocks)
      return;
    if (params.causal && keyBlock > queryBlock)
      return;
    kept.push_back(keyBlock);
  };
  for (int64_t d = -params.localWidth; d <= params.localWidth; ++d)
    keep(queryBlock + d);
  // Distances 2^k, k >= 1, in blocks. Stop once both sides are out of range.
  int64_t reach = std::max(queryBlock, numKeyBlocks - 1 - queryBlock);
  for (int64_t stride = 2; stride <= reach; stride *= 2) {
    keep(queryBlock - stride);
    keep(queryBlock + stride);
  }
  if (numKeyBlocks > 0) {
    if (params.anchorFirst)
      keep(0);
    if (params.anchorMiddle)
      keep(numKeyBlocks / 2);
    if (params.anchorLast)
      keep(numKeyBlocks - 1);
  }
  llvm::sort(kept);
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}
