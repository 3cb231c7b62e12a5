//===- MaskPatternsTest.cpp - log-linear pattern vs brute force -----------===//
//
// The enumerating implementation (O(log n) per row) against the definition
// checked pair by pair, in block units, for many sizes and parameters.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Support/LogLinearPattern.h"

#include <gtest/gtest.h>

#include <cmath>

using sparcast::LogLinearParams;
using sparcast::logLinearKeptBlocks;
using Blocks = std::vector<int64_t>;

namespace {

bool isPowerOfTwoStride(int64_t d) { return d >= 2 && (d & (d - 1)) == 0; }

Blocks bruteForce(int64_t q, int64_t nk,
                                      const LogLinearParams &p) {
  Blocks kept;
  for (int64_t k = 0; k < nk; ++k) {
    int64_t d = q > k ? q - k : k - q;
    bool keep = d <= p.localWidth || isPowerOfTwoStride(d) ||
                (p.anchorFirst && k == 0) || (p.anchorMiddle && k == nk / 2) ||
                (p.anchorLast && k == nk - 1);
    if (p.causal && k > q)
      keep = false;
    if (keep)
      kept.push_back(k);
  }
  return kept;
}

TEST(LogLinearMask, MatchesDefinitionForManySizes) {
  for (int64_t nb : {1, 2, 3, 5, 8, 17, 32, 33, 100, 128, 513}) {
    for (int64_t local : {0, 1, 2, 3}) {
      for (int anchors = 0; anchors < 8; ++anchors) {
        for (bool causal : {false, true}) {
          LogLinearParams p;
          p.localWidth = local;
          p.anchorFirst = anchors & 1;
          p.anchorMiddle = anchors & 2;
          p.anchorLast = anchors & 4;
          p.causal = causal;
          for (int64_t q = 0; q < nb; ++q)
            ASSERT_EQ(logLinearKeptBlocks(q, nb, p), bruteForce(q, nb, p))
                << "nb=" << nb << " local=" << local << " anchors=" << anchors
                << " causal=" << causal << " q=" << q;
        }
      }
    }
  }
}

TEST(LogLinearMask, StridesAreInBlocksNotTokens) {
  // 16384 tokens in blocks of 128: 128 blocks. Block 64 keeps 62 and 66
  // (stride 2 blocks) and 0 (stride 64); a token-unit bug would keep
  // nothing beyond the local window.
  LogLinearParams p;
  p.anchorFirst = p.anchorMiddle = p.anchorLast = false;
  Blocks kept = logLinearKeptBlocks(64, 128, p);
  Blocks want = {0,  32, 48, 56, 60, 62,  63,
                                     64, 65, 66, 68, 72, 80, 96};
  EXPECT_EQ(kept, want);
}

TEST(LogLinearMask, KeptCountGrowsLogarithmically) {
  LogLinearParams p;
  for (int64_t nb : {64, 1024, 16384}) {
    int64_t total = 0;
    for (int64_t q = 0; q < nb; ++q)
      total += logLinearKeptBlocks(q, nb, p).size();
    double perRow = double(total) / nb;
    // local 3 + anchors 3 + two strides per power of two below nb.
    EXPECT_LE(perRow, 6 + 2 * std::log2(double(nb)));
    EXPECT_GE(perRow, std::log2(double(nb)));
  }
}

TEST(LogLinearMask, CausalRowsNeverEmpty) {
  LogLinearParams p;
  p.causal = true;
  p.localWidth = 0;
  p.anchorFirst = p.anchorMiddle = p.anchorLast = false;
  for (int64_t q = 0; q < 300; ++q) {
    Blocks kept = logLinearKeptBlocks(q, 300, p);
    ASSERT_FALSE(kept.empty());
    EXPECT_EQ(kept.back(), q);
  }
}

} // namespace
