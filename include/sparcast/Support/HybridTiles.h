//===- HybridTiles.h - dense / 2:4 / zero tiles of a weight -----*- C++ -*-===//
//
// The inspector of hybrid tiles (docs/hybrid-tiles.md): it decides per tile
// of a 16-bit weight whether the tile is all zero, 2:4 sparse along its
// columns (K) or dense, and packs and unpacks the weight in that layout.
// Header-only and STL-only: shared by the runtime's C API (scHybridPlan,
// scHybridPack, scHybridUnpack) and the compiler, so the format has one
// definition.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_SUPPORT_HYBRIDTILES_H
#define SPARCAST_SUPPORT_HYBRIDTILES_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace sparcast::hybrid {

enum class TileKind : uint8_t { Zero = 0, Dense = 1, Sparse24 = 2 };

/// Rows of a tile are a multiple of the sparse MMA's 64 rows; columns of
/// the 32 columns one metadata word covers.
inline constexpr int64_t kTileRowQuantum = 64, kTileColQuantum = 32;

/// A rows x cols row-major weight cut into tileRows x tileCols tiles.
struct Shape {
  int64_t rows = 0, cols = 0, tileRows = 0, tileCols = 0;
  int64_t gridRows() const { return rows / tileRows; }
  int64_t gridCols() const { return cols / tileCols; }
  int64_t numTiles() const { return gridRows() * gridCols(); }
  int64_t tileElements() const { return tileRows * tileCols; }
  /// Metadata words of one 2:4 tile: one a row and 32 columns.
  int64_t metaWords() const { return tileRows * (tileCols / 32); }
};

/// Why `s` cannot be packed, or an empty string.
inline std::string checkShape(const Shape &s) {
  auto str = [](int64_t v) { return std::to_string(v); };
  if (s.rows <= 0 || s.cols <= 0)
    return "the weight must have rows and columns, got " + str(s.rows) + " x " +
           str(s.cols);
  if (s.tileRows <= 0 || s.tileRows % kTileRowQuantum != 0 ||
      s.tileCols <= 0 || s.tileCols % kTileColQuantum != 0)
    return "tiles must be a multiple of 64 rows and 32 columns, got " +
           str(s.tileRows) + " x " + str(s.tileCols);
  if (s.rows % s.tileRows != 0 || s.cols % s.tileCols != 0)
    return "the " + str(s.tileRows) + " x " + str(s.tileCols) +
           " tile does not divide the " + str(s.rows) + " x " + str(s.cols) +
           " weight";
  if (s.rows > (int64_t(1) << 31) || s.cols > (int64_t(1) << 31) ||
      s.rows * s.cols > (int64_t(1) << 40))
    return "the weight is too large (" + str(s.rows) + " x " + str(s.cols) +
           ")";
  return "";
}

/// The float value of a 16-bit element (bf16, or IEEE half).
inline float toFloat(uint16_t bits, bool bf16) {
  if (bf16) {
    uint32_t word = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &word, sizeof f);
    return f;
  }
  int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  float magnitude =
      exponent == 0    ? std::ldexp(float(mantissa), -24)
      : exponent == 31 ? (mantissa ? NAN : INFINITY)
                       : std::ldexp(float(mantissa | 0x400), exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

inline bool isZero(uint16_t bits) { return (bits & 0x7fff) == 0; }

/// What a kept value weighs when two of four are chosen: its magnitude (a
/// NaN above everything, so that it is never silently dropped).
inline double weight(uint16_t bits, bool bf16) {
  float f = toFloat(bits, bf16);
  return std::isnan(f) ? INFINITY : std::fabs(double(f));
}

/// The two positions (first < second) a 2:4 group of `v[0..4)` keeps: its
/// two largest values, ties to the lower position; a group of at most two
/// non-zeros keeps all of them.
inline std::pair<int, int> keptPair(const uint16_t *v, bool bf16) {
  int order[4] = {0, 1, 2, 3};
  std::sort(order, order + 4, [&](int a, int b) {
    double wa = weight(v[a], bf16), wb = weight(v[b], bf16);
    return wa != wb ? wa > wb : a < b;
  });
  return {std::min(order[0], order[1]), std::max(order[0], order[1])};
}

/// A metadata nibble: the first kept position in bits 0-1, the second in
/// bits 2-3.
inline uint32_t nibble(std::pair<int, int> kept) {
  return uint32_t(kept.first) | uint32_t(kept.second) << 2;
}

/// Of a tile: whether all zero, whether every group of four along a row has
/// at most two non-zeros, and the relative Frobenius error of keeping the
/// two largest of every four (0 when it is 2:4 already).
struct TileStats {
  bool zero = true, is24 = true;
  double error = 0;
};

inline TileStats tileStats(const uint16_t *w, const Shape &s, int64_t tileRow,
                           int64_t tileCol, bool bf16) {
  TileStats stats;
  double total = 0, dropped = 0;
  for (int64_t r = 0; r < s.tileRows; ++r) {
    const uint16_t *row = w + (tileRow * s.tileRows + r) * s.cols +
                          tileCol * s.tileCols;
    for (int64_t g = 0; g < s.tileCols; g += 4) {
      int nonZeros = 0;
      for (int i = 0; i < 4; ++i) {
        double x = weight(row[g + i], bf16);
        total += x * x;
        nonZeros += !isZero(row[g + i]);
      }
      stats.zero = stats.zero && nonZeros == 0;
      stats.is24 = stats.is24 && nonZeros <= 2;
      std::pair<int, int> kept = keptPair(row + g, bf16);
      for (int i = 0; i < 4; ++i)
        if (i != kept.first && i != kept.second) {
          double x = weight(row[g + i], bf16);
          dropped += x * x;
        }
    }
  }
  if (total > 0 && std::isfinite(total))
    stats.error = std::sqrt(dropped / total);
  else if (dropped > 0)
    stats.error = INFINITY;
  return stats;
}

/// The kind of every tile (row-major over the tile grid) and the error its
/// packing makes. Zero tiles are zero and 2:4 tiles 2:4; the others dense,
/// or with `prune` pruned to 2:4 by magnitude except the `denseBudget`
/// fraction of all tiles whose pruning would lose the most.
struct Plan {
  std::vector<TileKind> kinds;
  std::vector<float> error;
  int64_t numDense = 0, numSparse = 0;
};

inline Plan plan(const uint16_t *w, const Shape &s, bool bf16, bool prune,
                 double denseBudget) {
  Plan p;
  p.kinds.assign(s.numTiles(), TileKind::Dense);
  p.error.assign(s.numTiles(), 0.0f);
  std::vector<int64_t> candidates;
  std::vector<double> loss(s.numTiles(), 0.0);
  for (int64_t t = 0; t < s.numTiles(); ++t) {
    TileStats stats = tileStats(w, s, t / s.gridCols(), t % s.gridCols(), bf16);
    if (stats.zero)
      p.kinds[t] = TileKind::Zero;
    else if (stats.is24)
      p.kinds[t] = TileKind::Sparse24;
    else
      candidates.push_back(t);
    loss[t] = stats.error;
  }
  if (prune) {
    // The tiles that lose the most stay dense, as many as the budget.
    std::sort(candidates.begin(), candidates.end(), [&](int64_t a, int64_t b) {
      return loss[a] != loss[b] ? loss[a] > loss[b] : a < b;
    });
    double budget = std::clamp(denseBudget, 0.0, 1.0) * double(s.numTiles());
    size_t keep = std::min(candidates.size(), size_t(std::floor(budget)));
    for (size_t i = keep; i < candidates.size(); ++i) {
      p.kinds[candidates[i]] = TileKind::Sparse24;
      p.error[candidates[i]] = float(loss[candidates[i]]);
    }
  }
  for (TileKind k : p.kinds) {
    p.numDense += k == TileKind::Dense;
    p.numSparse += k == TileKind::Sparse24;
  }
  return p;
}

/// Packs `w` as `kinds` say: slots[t] is tile t's index among the dense or
/// the 2:4 tiles (-1 for a zero tile); dense tiles go to `dense`
/// (tileRows x tileCols each), 2:4 tiles to `sparse` (tileRows x
/// tileCols / 2: the two kept values of each group of four, in column
/// order) and `meta` (metaWords() a tile: word c / 32 of row r holds group
/// j of those 32 columns in bits 4j .. 4j + 3). A 2:4 tile whose groups
/// hold more than two non-zeros is pruned to the two largest.
inline void pack(const uint16_t *w, const Shape &s, bool bf16,
                 const TileKind *kinds, int32_t *slots, uint16_t *dense,
                 uint16_t *sparse, uint32_t *meta) {
  int32_t numDense = 0, numSparse = 0;
  for (int64_t t = 0; t < s.numTiles(); ++t) {
    int64_t tileRow = t / s.gridCols(), tileCol = t % s.gridCols();
    auto rowOf = [&](int64_t r) {
      return w + (tileRow * s.tileRows + r) * s.cols + tileCol * s.tileCols;
    };
    if (kinds[t] == TileKind::Zero) {
      slots[t] = -1;
    } else if (kinds[t] == TileKind::Dense) {
      slots[t] = numDense;
      uint16_t *out = dense + int64_t(numDense++) * s.tileElements();
      for (int64_t r = 0; r < s.tileRows; ++r)
        std::copy(rowOf(r), rowOf(r) + s.tileCols, out + r * s.tileCols);
    } else {
      slots[t] = numSparse;
      uint16_t *values = sparse + int64_t(numSparse) * (s.tileElements() / 2);
      uint32_t *words = meta + int64_t(numSparse++) * s.metaWords();
      for (int64_t r = 0; r < s.tileRows; ++r) {
        const uint16_t *row = rowOf(r);
        for (int64_t c = 0; c < s.tileCols; c += 32) {
          uint32_t word = 0;
          for (int64_t j = 0; j < 8; ++j) {
            const uint16_t *group = row + c + 4 * j;
            std::pair<int, int> kept = keptPair(group, bf16);
            word |= nibble(kept) << (4 * j);
            values[r * (s.tileCols / 2) + (c + 4 * j) / 2] = group[kept.first];
            values[r * (s.tileCols / 2) + (c + 4 * j) / 2 + 1] =
                group[kept.second];
          }
          words[r * (s.tileCols / 32) + c / 32] = word;
        }
      }
    }
  }
}

/// The dense weight of a packed one (zeros where a tile or a group keeps
/// nothing). Checks what a packer outside this file may have got wrong:
/// kinds, slots within the counts, metadata nibbles of two positions in
/// order. Returns an empty string, or what is wrong (and `w` unspecified).
inline std::string unpack(const Shape &s, const uint8_t *kinds,
                          const int32_t *slots, int64_t numDense,
                          int64_t numSparse, const uint16_t *dense,
                          const uint16_t *sparse, const uint32_t *meta,
                          uint16_t *w) {
  auto str = [](int64_t v) { return std::to_string(v); };
  for (int64_t t = 0; t < s.numTiles(); ++t) {
    int64_t tileRow = t / s.gridCols(), tileCol = t % s.gridCols();
    std::string where = "tile (" + str(tileRow) + ", " + str(tileCol) + ")";
    auto rowOf = [&](int64_t r) {
      return w + (tileRow * s.tileRows + r) * s.cols + tileCol * s.tileCols;
    };
    if (kinds[t] > uint8_t(TileKind::Sparse24))
      return where + ": kind " + str(kinds[t]) +
             " is none of 0 (zero), 1 (dense), 2 (2:4)";
    auto kind = TileKind(kinds[t]);
    if (kind == TileKind::Zero) {
      for (int64_t r = 0; r < s.tileRows; ++r)
        std::fill(rowOf(r), rowOf(r) + s.tileCols, uint16_t(0));
      continue;
    }
    int64_t count = kind == TileKind::Dense ? numDense : numSparse;
    if (slots[t] < 0 || slots[t] >= count)
      return where + ": slot " + str(slots[t]) + " outside the " + str(count) +
             (kind == TileKind::Dense ? " dense" : " 2:4") + " tiles";
    if (kind == TileKind::Dense) {
      const uint16_t *in = dense + int64_t(slots[t]) * s.tileElements();
      for (int64_t r = 0; r < s.tileRows; ++r)
        std::copy(in + r * s.tileCols, in + (r + 1) * s.tileCols, rowOf(r));
      continue;
    }
    const uint16_t *values = sparse + int64_t(slots[t]) * (s.tileElements() / 2);
    const uint32_t *words = meta + int64_t(slots[t]) * s.metaWords();
    for (int64_t r = 0; r < s.tileRows; ++r) {
      uint16_t *row = rowOf(r);
      for (int64_t c = 0; c < s.tileCols; c += 32) {
        uint32_t word = words[r * (s.tileCols / 32) + c / 32];
        for (int64_t j = 0; j < 8; ++j) {
          int first = (word >> (4 * j)) & 3, second = (word >> (4 * j + 2)) & 3;
          if (first >= second)
            return where + ", row " + str(r) + ", columns " +
                   str(c + 4 * j) + ".." + str(c + 4 * j + 3) +
                   ": metadata positions " + str(first) + ", " +
                   str(second) + " are not two positions in order";
          uint16_t *group = row + c + 4 * j;
          std::fill(group, group + 4, uint16_t(0));
          group[first] = values[r * (s.tileCols / 2) + (c + 4 * j) / 2];
          group[second] = values[r * (s.tileCols / 2) + (c + 4 * j) / 2 + 1];
        }
      }
    }
  }
  return "";
}

} // namespace sparcast::hybrid

#endif // SPARCAST_SUPPORT_HYBRIDTILES_H
