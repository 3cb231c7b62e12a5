//===- LogLinearPattern.h - the log-linear block pattern --------*- C++ -*-===//
//
// Header-only and STL-only: shared by the compiler (mask attribute,
// materialization pass) and the runtime (tables for dynamic lengths), so
// the pattern has one definition.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_SUPPORT_LOGLINEARPATTERN_H
#define SPARCAST_SUPPORT_LOGLINEARPATTERN_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace sparcast {

/// The most blocks a side a block mask's tables describe (the compiler's
/// mask attributes and the runtime's scLogLinearTables): int32 tables keep
/// every count and offset far inside their range.
inline constexpr int64_t kMaxMaskBlocks = int64_t(1) << 24;

struct LogLinearParams {
  int64_t localWidth = 1;
  bool anchorFirst = true;
  bool anchorMiddle = true;
  bool anchorLast = true;
  bool causal = false;
};

/// Sorted, distinct key blocks (in block units, never tokens) that query
/// block `queryBlock` keeps, for a key sequence of `numKeyBlocks` blocks:
/// |q - k| <= localWidth, |q - k| = 2^j with j >= 1, or an anchor (0,
/// numKeyBlocks / 2, numKeyBlocks - 1); with `causal`, only k <= q.
/// O(log n) work.
inline std::vector<int64_t> logLinearKeptBlocks(int64_t queryBlock,
                                                int64_t numKeyBlocks,
                                                const LogLinearParams &params) {
  std::vector<int64_t> kept;
  auto keep = [&](int64_t keyBlock) {
    if (keyBlock < 0 || keyBlock >= numKeyBlocks)
      return;
    if (params.causal && keyBlock > queryBlock)
      return;
    kept.push_back(keyBlock);
  };
  // The local window, clipped to the key blocks (a huge width must not
  // loop over blocks that do not exist).
  int64_t first = queryBlock - std::min(params.localWidth, queryBlock);
  int64_t last = numKeyBlocks - 1 - queryBlock <= params.localWidth
                     ? numKeyBlocks - 1
                     : queryBlock + params.localWidth;
  for (int64_t k = first; k <= last; ++k)
    keep(k);
  // Distances 2^k, k >= 1, in blocks. Stop once both sides are out of range.
  int64_t reach = std::max(queryBlock, numKeyBlocks - 1 - queryBlock);
  for (int64_t stride = 2; stride <= reach; stride *= 2) {
    keep(queryBlock - stride);
    keep(queryBlock + stride);
    if (stride > reach / 2)
      break;
  }
  if (numKeyBlocks > 0) {
    if (params.anchorFirst)
      keep(0);
    if (params.anchorMiddle)
      keep(numKeyBlocks / 2);
    if (params.anchorLast)
      keep(numKeyBlocks - 1);
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

} // namespace sparcast

#endif // SPARCAST_SUPPORT_LOGLINEARPATTERN_H
