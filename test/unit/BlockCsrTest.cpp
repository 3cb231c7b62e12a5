//===- BlockCsrTest.cpp - packing sparse rows through the C API -----------===//
//
// scCsrPack / scCsrPackCoo: the words and norms of packed rows (empty rows
// included), COO in any order giving the CSR packing, and the refusals
// (unsorted or repeated ids, ids past D, bad row pointers, D too wide for
// the id bits, non-finite values) leaving the outputs untouched; the head
// of a similarity job (the dims carrying the most pair products) and rows
// split at it, whose head and tail dot products add up to the rows'.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Support/BlockCsr.h"
#include "sparcast/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace sparcast;

namespace {

struct Packed {
  std::vector<int32_t> rowPtr;
  std::vector<uint32_t> words;
  std::vector<float> values, norms;
  Packed(int64_t rows, int64_t nnz)
      : rowPtr(rows + 1, -7), words(nnz, 0xdeadbeef), values(nnz, -7),
        norms(rows, -7) {}
};

scStatus packCsr(const scCsrShape &shape, const std::vector<int64_t> &indptr,
                 const std::vector<int64_t> &indices,
                 const std::vector<float> &values, Packed &out) {
  return scCsrPack(&shape, indptr.data(), indices.data(), values.data(),
                   int64_t(indices.size()), out.rowPtr.data(), out.words.data(),
                   out.values.data(), out.norms.data());
}

// Three rows over D = 5000 in blocks of 1024 (10 offset bits): a row across
// blocks, an empty row, a row of one id at the last column.
TEST(BlockCsrTest, PacksWordsAndNorms) {
  scCsrShape shape{3, 5000, 1024, 10};
  std::vector<int64_t> indptr = {0, 3, 3, 4}, indices = {2, 1023, 4096, 4999};
  std::vector<float> values = {3, 4, 12, -2};
  Packed out(3, 4);
  ASSERT_EQ(packCsr(shape, indptr, indices, values, out), SC_OK)
      << scGetLastError();
  EXPECT_EQ(out.rowPtr, (std::vector<int32_t>{0, 3, 3, 4}));
  EXPECT_EQ(out.words, (std::vector<uint32_t>{2, 1023, 4u << 10, (4u << 10) | 903}));
  EXPECT_EQ(out.values, values);
  EXPECT_FLOAT_EQ(out.norms[0], 13);
  EXPECT_EQ(out.norms[1], 0); // an empty row
  EXPECT_FLOAT_EQ(out.norms[2], 2);
  csr::Shape s{3, 5000, 1024, 10};
  for (size_t j = 0; j < indices.size(); ++j)
    EXPECT_EQ(csr::columnOf(out.words[j], s), indices[j]);
}

// A smaller block than the offset bits hold: the word is (block, offset),
// not the column.
TEST(BlockCsrTest, BlockSmallerThanTheOffsetField) {
  scCsrShape shape{1, 1000, 256, 12};
  std::vector<int64_t> indptr = {0, 2}, indices = {5, 700};
  std::vector<float> values = {1, 1};
  Packed out(1, 2);
  ASSERT_EQ(packCsr(shape, indptr, indices, values, out), SC_OK);
  EXPECT_EQ(out.words, (std::vector<uint32_t>{5, (2u << 12) | 188}));
}

TEST(BlockCsrTest, CooInAnyOrderPacksAsCsr) {
  scCsrShape shape{3, 5000, 1024, 10};
  std::vector<int64_t> rows = {2, 0, 0, 0}, cols = {4999, 4096, 2, 1023};
  std::vector<float> values = {-2, 12, 3, 4};
  Packed out(3, 4);
  ASSERT_EQ(scCsrPackCoo(&shape, rows.data(), cols.data(), values.data(), 4,
                         out.rowPtr.data(), out.words.data(), out.values.data(),
                         out.norms.data()),
            SC_OK)
      << scGetLastError();
  EXPECT_EQ(out.rowPtr, (std::vector<int32_t>{0, 3, 3, 4}));
  EXPECT_EQ(out.words, (std::vector<uint32_t>{2, 1023, 4u << 10, (4u << 10) | 903}));
  EXPECT_EQ(out.values, (std::vector<float>{3, 4, 12, -2}));
  EXPECT_FLOAT_EQ(out.norms[0], 13);
}

void expectRefused(const scCsrShape &shape, const std::vector<int64_t> &indptr,
                   const std::vector<int64_t> &indices,
                   const std::vector<float> &values, const std::string &why) {
  Packed out(shape.rows, int64_t(indices.size()));
  Packed before = out;
  EXPECT_EQ(packCsr(shape, indptr, indices, values, out), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find(why), std::string::npos)
      << scGetLastError();
  EXPECT_EQ(out.rowPtr, before.rowPtr);
  EXPECT_EQ(out.words, before.words);
  EXPECT_EQ(out.norms, before.norms);
}

TEST(BlockCsrTest, RefusesBadRows) {
  scCsrShape shape{2, 100, 64, 10};
  expectRefused(shape, {0, 2, 3}, {5, 3, 7}, {1, 1, 1}, "not strictly increasing");
  expectRefused(shape, {0, 2, 3}, {5, 5, 7}, {1, 1, 1}, "not strictly increasing");
  expectRefused(shape, {0, 2, 3}, {5, 6, 100}, {1, 1, 1}, "outside [0, D = 100)");
  expectRefused(shape, {0, 2, 3}, {-1, 6, 7}, {1, 1, 1}, "outside");
  expectRefused(shape, {0, 4, 3}, {1, 2, 3}, {1, 1, 1}, "indptr");
  expectRefused(shape, {1, 2, 3}, {1, 2, 3}, {1, 1, 1}, "indptr must run from 0");
  expectRefused(shape, {0, 1, 3}, {1, 2, 3},
                {1, std::numeric_limits<float>::quiet_NaN(), 1}, "not finite");
  // D needs more blocks than 2 id bits address.
  expectRefused({2, 5000, 1024, 30}, {0, 1, 2}, {1, 2}, {1, 1}, "id bits");
  expectRefused({2, 100, 100, 10}, {0, 1, 2}, {1, 2}, {1, 1}, "power of two");
  expectRefused({2, 100, 2048, 10}, {0, 1, 2}, {1, 2}, {1, 1}, "2^offset bits");
}

TEST(BlockCsrTest, CooRefusesRepeatsAndRowsOutside) {
  scCsrShape shape{2, 100, 64, 10};
  Packed out(2, 2);
  std::vector<int64_t> rows = {1, 1}, cols = {4, 4};
  std::vector<float> values = {1, 2};
  EXPECT_EQ(scCsrPackCoo(&shape, rows.data(), cols.data(), values.data(), 2,
                         out.rowPtr.data(), out.words.data(), out.values.data(),
                         out.norms.data()),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("sum duplicates"), std::string::npos);
  rows = {0, 2};
  cols = {1, 2};
  EXPECT_EQ(scCsrPackCoo(&shape, rows.data(), cols.data(), values.data(), 2,
                         out.rowPtr.data(), out.words.data(), out.values.data(),
                         out.norms.data()),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("row 2 outside"), std::string::npos);
  EXPECT_EQ(scCsrPack(nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr,
                      nullptr, nullptr),
            SC_ERROR_INVALID_ARGUMENT);
}

// Queries over D = 10: dim 2 in all three, dim 5 in two, dim 7 in one;
// items: dim 2 in one, dim 5 in both, dim 9 in one. Products: dim 5 4,
// dim 2 3, dim 7 0 (no item), dim 9 0 (no query).
struct TwoSets {
  std::vector<int64_t> qPtr = {0, 2, 4, 6}, qIdx = {2, 5, 2, 7, 2, 5};
  std::vector<float> qVal = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> iPtr = {0, 2, 4}, iIdx = {2, 5, 5, 9};
  std::vector<float> iVal = {0.5, 1, -2, 3};
  scCsrShape q{3, 10, 1024, 10}, i{2, 10, 1024, 10};
};

TEST(BlockCsrTest, ChoosesTheHeadByPairProducts) {
  TwoSets t;
  std::vector<int64_t> head(4, -1);
  int64_t numHead = -1;
  double coverage = -1;
  ASSERT_EQ(scCsrChooseHead(&t.q, t.qPtr.data(), t.qIdx.data(), 6, &t.i,
                            t.iPtr.data(), t.iIdx.data(), 4, 4, head.data(),
                            &numHead, &coverage),
            SC_OK)
      << scGetLastError();
  ASSERT_EQ(numHead, 2); // dims 7 and 9 carry no product
  EXPECT_EQ(head[0], 5);
  EXPECT_EQ(head[1], 2);
  EXPECT_DOUBLE_EQ(coverage, 1.0);
  // One dim only: dim 5's 4 of the 7 products.
  ASSERT_EQ(scCsrChooseHead(&t.q, t.qPtr.data(), t.qIdx.data(), 6, &t.i,
                            t.iPtr.data(), t.iIdx.data(), 4, 1, head.data(),
                            &numHead, &coverage),
            SC_OK);
  EXPECT_EQ(numHead, 1);
  EXPECT_DOUBLE_EQ(coverage, 4.0 / 7.0);
  scCsrShape other{2, 11, 1024, 10};
  EXPECT_EQ(scCsrChooseHead(&t.q, t.qPtr.data(), t.qIdx.data(), 6, &other,
                            t.iPtr.data(), t.iIdx.data(), 4, 1, head.data(),
                            &numHead, &coverage),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("over one dim"), std::string::npos);
}

TEST(BlockCsrTest, HeadAndTailDotsAddUpToTheRows) {
  TwoSets t;
  std::vector<int64_t> head = {5, 2};
  auto split = [&](const scCsrShape &shape, std::vector<int64_t> &ptr,
                   std::vector<int64_t> &idx, std::vector<float> &val,
                   std::vector<float> &dense, std::vector<int64_t> &tailPtr,
                   std::vector<int64_t> &tailIdx, std::vector<float> &tailVal) {
    dense.assign(shape.rows * head.size(), -1);
    tailPtr.assign(shape.rows + 1, -1);
    tailIdx.assign(idx.size(), -1);
    tailVal.assign(idx.size(), -1);
    int64_t tailNnz = -1;
    ASSERT_EQ(scCsrSplitHead(&shape, ptr.data(), idx.data(), val.data(),
                             int64_t(idx.size()), head.data(), 2, dense.data(),
                             tailPtr.data(), tailIdx.data(), tailVal.data(),
                             &tailNnz),
              SC_OK)
        << scGetLastError();
    EXPECT_EQ(tailNnz, tailPtr[shape.rows]);
  };
  std::vector<float> qd, id, qtv, itv;
  std::vector<int64_t> qtp, qti, itp, iti;
  split(t.q, t.qPtr, t.qIdx, t.qVal, qd, qtp, qti, qtv);
  split(t.i, t.iPtr, t.iIdx, t.iVal, id, itp, iti, itv);
  EXPECT_EQ(qd, (std::vector<float>{2, 1, 0, 3, 6, 5}));
  EXPECT_EQ(qtp, (std::vector<int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(qti[0], 7);
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 2; ++b) {
      double full = 0, parts = 0;
      for (int64_t x = t.qPtr[a]; x < t.qPtr[a + 1]; ++x)
        for (int64_t y = t.iPtr[b]; y < t.iPtr[b + 1]; ++y)
          if (t.qIdx[x] == t.iIdx[y])
            full += double(t.qVal[x]) * t.iVal[y];
      for (int64_t h = 0; h < 2; ++h)
        parts += double(qd[a * 2 + h]) * id[b * 2 + h];
      for (int64_t x = qtp[a]; x < qtp[a + 1]; ++x)
        for (int64_t y = itp[b]; y < itp[b + 1]; ++y)
          if (qti[x] == iti[y])
            parts += double(qtv[x]) * itv[y];
      EXPECT_EQ(parts, full) << a << ", " << b;
    }
  std::vector<int64_t> repeated = {5, 5};
  std::vector<float> dense(6), tailVal(6);
  std::vector<int64_t> tailPtr(4), tailIdx(6);
  int64_t tailNnz;
  EXPECT_EQ(scCsrSplitHead(&t.q, t.qPtr.data(), t.qIdx.data(), t.qVal.data(), 6,
                           repeated.data(), 2, dense.data(), tailPtr.data(),
                           tailIdx.data(), tailVal.data(), &tailNnz),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("repeated or outside"),
            std::string::npos);
}

TEST(BlockCsrTest, InverseNormIsTheReciprocalRoundedOnce) {
  EXPECT_EQ(csr::inverseNorm(0.0f), 0.0f); // an empty row: its cosines are 0
  EXPECT_EQ(csr::inverseNorm(std::nanf("")), 0.0f);
  EXPECT_EQ(csr::inverseNorm(4.0f), 0.25f);
  EXPECT_EQ(csr::inverseNorm(3.0f), float(1.0 / 3.0));
  EXPECT_EQ(csr::inverseNorm(7.0f), float(1.0 / 7.0));
  // A norm whose reciprocal passes FLT_MAX: FLT_MAX, not inf (0 * inf
  // would be NaN for a dot product that underflowed to 0).
  EXPECT_EQ(csr::inverseNorm(1e-45f), std::numeric_limits<float>::max());
  // A row set's: each row's norm (3-4-5) inverted, the empty row's 0.
  std::vector<int64_t> indptr = {0, 2, 2};
  std::vector<float> values = {3, 4}, inverse(2, -1.0f);
  csr::inverseRowNorms(2, indptr.data(), values.data(), inverse.data());
  EXPECT_EQ(inverse, (std::vector<float>{0.2f, 0.0f}));
}

} // namespace
