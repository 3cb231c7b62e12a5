//===- HybridTilesTest.cpp - the hybrid tiles' inspector and C API --------===//
//
// scHybridPlan / scHybridPack / scHybridUnpack on weights whose tiles are
// built to be zero, 2:4 or dense: the kinds found, exact round trips,
// pruning budgets and errors, the metadata's bits, and the refusals.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Support/HybridTiles.h"
#include "sparcast/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace sparcast;

namespace {

/// f16 bits of small integers and halves (exact), for readable weights.
uint16_t half(float v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int exponent;
  float mantissa = std::frexp(std::fabs(v), &exponent); // in [0.5, 1)
  return sign | uint16_t((exponent + 14) << 10) |
         uint16_t(std::lround((mantissa * 2 - 1) * 1024));
}

/// A packed weight: the plan's kinds and counts, and the buffers.
struct Packed {
  std::vector<uint8_t> kinds;
  std::vector<float> error;
  int64_t numDense = 0, numSparse = 0;
  std::vector<int32_t> slots;
  std::vector<uint16_t> dense, sparse;
  std::vector<uint32_t> meta;
};

Packed planAndPack(const std::vector<uint16_t> &w, const scHybridShape &s,
                   scDType dtype, bool prune = false, double budget = 0) {
  Packed p;
  int64_t tiles = (s.rows / s.tileRows) * (s.cols / s.tileCols);
  p.kinds.resize(tiles);
  p.error.resize(tiles);
  p.slots.resize(tiles);
  EXPECT_EQ(scHybridPlan(w.data(), dtype, &s, prune, budget, p.kinds.data(),
                         p.error.data(), &p.numDense, &p.numSparse),
            SC_OK)
      << scGetLastError();
  p.dense.resize(p.numDense * s.tileRows * s.tileCols);
  p.sparse.resize(p.numSparse * s.tileRows * s.tileCols / 2);
  p.meta.resize(p.numSparse * s.tileRows * s.tileCols / 32);
  EXPECT_EQ(scHybridPack(w.data(), dtype, &s, p.kinds.data(), p.numDense,
                         p.numSparse, p.slots.data(), p.dense.data(),
                         p.sparse.data(), p.meta.data()),
            SC_OK)
      << scGetLastError();
  return p;
}

std::vector<uint16_t> unpack(const Packed &p, const scHybridShape &s,
                             scDType dtype) {
  std::vector<uint16_t> w(s.rows * s.cols, 0xffff);
  EXPECT_EQ(scHybridUnpack(&s, dtype, p.kinds.data(), p.slots.data(),
                           p.numDense, p.numSparse, p.dense.data(),
                           p.sparse.data(), p.meta.data(), w.data()),
            SC_OK)
      << scGetLastError();
  return w;
}

/// A 128 x 64 weight in 64 x 32 tiles: (0, 0) zero, (0, 1) 2:4, (1, 0)
/// dense, (1, 1) 2:4 with some groups of one non-zero.
constexpr scHybridShape kShape = {128, 64, 64, 32};

std::vector<uint16_t> mixedWeight() {
  std::vector<uint16_t> w(kShape.rows * kShape.cols, 0);
  for (int64_t r = 0; r < kShape.rows; ++r)
    for (int64_t c = 0; c < kShape.cols; ++c) {
      bool top = r < 64, left = c < 32;
      float v = float((r * 7 + c * 3) % 13 - 6);
      if (v == 0)
        v = 1;
      if (top && left)
        v = 0;
      else if (!left && c % 4 >= 2) // 2:4: positions 0 and 1 of every four
        v = 0;
      else if (!top && !left && c % 4 == 1 && r % 2) // one of four
        v = 0;
      w[r * kShape.cols + c] = half(v);
    }
  return w;
}

TEST(HybridTiles, FindsZeroSparseAndDenseTiles) {
  std::vector<uint16_t> w = mixedWeight();
  Packed p = planAndPack(w, kShape, SC_F16);
  EXPECT_EQ(p.kinds, (std::vector<uint8_t>{SC_TILE_ZERO, SC_TILE_SPARSE24,
                                           SC_TILE_DENSE, SC_TILE_SPARSE24}));
  EXPECT_EQ(p.numDense, 1);
  EXPECT_EQ(p.numSparse, 2);
  EXPECT_EQ(p.slots, (std::vector<int32_t>{-1, 0, 0, 1}));
  for (float e : p.error)
    EXPECT_EQ(e, 0.0f);
  // Unpacking gives the weight back bit for bit.
  EXPECT_EQ(unpack(p, kShape, SC_F16), w);
}

TEST(HybridTiles, MetadataHoldsTheKeptPositionsInOrder) {
  std::vector<uint16_t> w = mixedWeight();
  Packed p = planAndPack(w, kShape, SC_F16);
  // Tile (0, 1) keeps positions 0 and 1 of every group: nibble 0b0100.
  EXPECT_EQ(p.meta[0], 0x44444444u);
  // Tile (1, 1), odd rows: position 1 is zero, so 0 and the first zero
  // after it fill the pair (0, 1) all the same; the values follow.
  int64_t row1 = kShape.tileRows * (kShape.tileCols / 32) + 1;
  EXPECT_EQ(p.meta[row1], 0x44444444u);
  EXPECT_EQ(p.sparse[kShape.tileRows * kShape.tileCols / 2 + 16 + 1], 0);
  // A group (0, x, 0, y) keeps positions 1 and 3: 0b1101.
  std::vector<uint16_t> one(64 * 32, 0);
  one[1] = half(2);
  one[3] = half(-3);
  Packed q = planAndPack(one, {64, 32, 64, 32}, SC_F16);
  ASSERT_EQ(q.kinds[0], SC_TILE_SPARSE24);
  EXPECT_EQ(q.meta[0] & 0xf, 0xdu);
  EXPECT_EQ(q.sparse[0], half(2));
  EXPECT_EQ(q.sparse[1], half(-3));
}

TEST(HybridTiles, PruningKeepsTheBudgetDenseWhereItLosesMost) {
  // Four dense tiles: the first of random values, the others of values
  // alike in magnitude (pruning then drops half their energy).
  scHybridShape s = {64, 128, 64, 32};
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<uint16_t> w(s.rows * s.cols);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c) {
      float v = std::round(dist(gen) * 64) / 64;
      if (c >= 32)
        v = (c % 2 ? 1 : -1) * (0.5f + 0.125f * float(c / 32));
      w[r * s.cols + c] = half(v == 0 ? 0.25f : v);
    }
  Packed none = planAndPack(w, s, SC_F16);
  EXPECT_EQ(none.numDense, 4);
  Packed p = planAndPack(w, s, SC_F16, /*prune=*/true, /*budget=*/0.5);
  ASSERT_EQ(p.numDense, 2);
  ASSERT_EQ(p.numSparse, 2);
  // The equal-magnitude tiles lose half their energy (error sqrt(0.5)),
  // the random one less; ties go to the lower tile: tiles 1 and 2 stay
  // dense.
  EXPECT_EQ(p.kinds, (std::vector<uint8_t>{SC_TILE_SPARSE24, SC_TILE_DENSE,
                                           SC_TILE_DENSE, SC_TILE_SPARSE24}));
  EXPECT_GT(p.error[0], 0.0f);
  EXPECT_LT(p.error[0], std::sqrt(0.5f));
  EXPECT_NEAR(p.error[3], std::sqrt(0.5f), 1e-6);
  EXPECT_EQ(p.error[1], 0.0f);
  // The unpacked weight is the pruned one: in every group of four, the two
  // largest magnitudes kept, the rest zero; the dense tiles untouched.
  std::vector<uint16_t> back = unpack(p, s, SC_F16);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t g = 0; g < s.cols; g += 4) {
      const uint16_t *in = &w[r * s.cols + g], *out = &back[r * s.cols + g];
      bool pruned = g < 32 || g >= 96;
      int kept = 0;
      for (int i = 0; i < 4; ++i) {
        kept += out[i] != 0;
        EXPECT_TRUE(out[i] == in[i] || (pruned && out[i] == 0));
      }
      EXPECT_EQ(kept, pruned ? 2 : 4);
    }
  // A full budget keeps every tile dense; bf16 weights plan the same way.
  EXPECT_EQ(planAndPack(w, s, SC_F16, true, 1.0).numDense, 4);
}

TEST(HybridTiles, Bf16RoundTripIsExact) {
  scHybridShape s = {128, 96, 64, 32};
  std::mt19937 gen(3);
  std::vector<uint16_t> w(s.rows * s.cols);
  for (uint16_t &x : w)
    x = uint16_t(gen() & 0x3fff); // finite bf16 bits of either magnitude
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t c = 32; c < 64; ++c)
      if (c % 4 >= 2)
        w[r * s.cols + c] = 0x8000; // -0: still zero, a 2:4 tile
  Packed p = planAndPack(w, s, SC_BF16);
  EXPECT_EQ(p.kinds[1], SC_TILE_SPARSE24);
  std::vector<uint16_t> back = unpack(p, s, SC_BF16);
  for (int64_t i = 0; i < s.rows * s.cols; ++i)
    EXPECT_TRUE(back[i] == w[i] || (hybrid::isZero(back[i]) && hybrid::isZero(w[i])))
        << i;
}

TEST(HybridTiles, ConvertsHalfAndBfloat16) {
  EXPECT_EQ(hybrid::toFloat(0x3c00, false), 1.0f);
  EXPECT_EQ(hybrid::toFloat(0xc000, false), -2.0f);
  EXPECT_EQ(hybrid::toFloat(0x0001, false), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(hybrid::toFloat(0x7c00, false)));
  EXPECT_TRUE(std::isnan(hybrid::toFloat(0x7e00, false)));
  EXPECT_EQ(hybrid::toFloat(0x3f80, true), 1.0f);
  EXPECT_EQ(half(1.5f), 0x3e00);
}

TEST(HybridTiles, RefusesBadShapesAndDtypes) {
  std::vector<uint16_t> w(128 * 96, 0);
  std::vector<uint8_t> kinds(16);
  int64_t nd = 0, ns = 0;
  auto plan = [&](scHybridShape s, scDType dtype = SC_F16) {
    return scHybridPlan(w.data(), dtype, &s, 0, 0, kinds.data(), nullptr, &nd,
                        &ns);
  };
  EXPECT_EQ(plan({128, 96, 64, 64}), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("does not divide the 128 x 96"),
            std::string::npos)
      << scGetLastError();
  EXPECT_EQ(plan({128, 96, 32, 32}), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("multiple of 64 rows and 32"),
            std::string::npos);
  EXPECT_EQ(plan({0, 96, 64, 32}), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(plan({128, 96, 64, 32}, SC_F32), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("f16 or bf16"), std::string::npos);
  scHybridShape s = {128, 96, 64, 32};
  EXPECT_EQ(scHybridPlan(w.data(), SC_F16, &s, 1, 1.5, kinds.data(), nullptr,
                         &nd, &ns),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scHybridPlan(w.data(), SC_F16, nullptr, 0, 0, kinds.data(),
                         nullptr, &nd, &ns),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(plan(s), SC_OK);
  EXPECT_EQ(ns + nd, 0); // all zero
}

TEST(HybridTiles, PackRefusesKindsThatDisagreeWithTheBuffers) {
  std::vector<uint16_t> w = mixedWeight();
  Packed p = planAndPack(w, kShape, SC_F16);
  std::vector<int32_t> slots(4);
  // Sized for one 2:4 tile fewer than the kinds ask: refused, not written
  // past the buffers.
  EXPECT_EQ(scHybridPack(w.data(), SC_F16, &kShape, p.kinds.data(), 1, 1,
                         slots.data(), p.dense.data(), p.sparse.data(),
                         p.meta.data()),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("sized for 1 and 1"),
            std::string::npos)
      << scGetLastError();
  std::vector<uint8_t> bad = p.kinds;
  bad[0] = 7;
  EXPECT_EQ(scHybridPack(w.data(), SC_F16, &kShape, bad.data(), 1, 2,
                         slots.data(), p.dense.data(), p.sparse.data(),
                         p.meta.data()),
            SC_ERROR_INVALID_ARGUMENT);
}

TEST(HybridTiles, UnpackRefusesBadMetadataSlotsAndKinds) {
  std::vector<uint16_t> w = mixedWeight();
  Packed p = planAndPack(w, kShape, SC_F16);
  std::vector<uint16_t> out(kShape.rows * kShape.cols);
  auto unpackStatus = [&](const Packed &q) {
    return scHybridUnpack(&kShape, SC_F16, q.kinds.data(), q.slots.data(),
                          q.numDense, q.numSparse, q.dense.data(),
                          q.sparse.data(), q.meta.data(), out.data());
  };
  Packed badMeta = p;
  badMeta.meta[3] = 0x44444414u; // group 1: positions (1, 0)
  EXPECT_EQ(unpackStatus(badMeta), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError())
                .find("tile (0, 1), row 3, columns 4..7: metadata positions "
                      "1, 0 are not two positions in order"),
            std::string::npos)
      << scGetLastError();
  Packed badSlot = p;
  badSlot.slots[3] = 2;
  EXPECT_EQ(unpackStatus(badSlot), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("tile (1, 1): slot 2 outside "
                                               "the 2 2:4 tiles"),
            std::string::npos)
      << scGetLastError();
  Packed badKind = p;
  badKind.kinds[2] = 3;
  EXPECT_EQ(unpackStatus(badKind), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(unpackStatus(p), SC_OK);
}

} // namespace
