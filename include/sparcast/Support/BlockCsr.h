//===- BlockCsr.h - sparse rows in #sc.block_csr --------------*- C++ -*-===//
//
// Packing of sparse rows (CSR or COO) into the buffers sc.assemble_csr
// takes (docs/sparse-similarity.md): int32 row pointers, one 32-bit word a
// column id (the block of blockSize columns in the high bits, the offset
// in it in the low offsetBits), the values in fp32, and each row's
// Euclidean norm. Never densifies. Header-only and STL-only: shared by the
// runtime's C API (scCsrPack, scCsrPackCoo) and the compiler's tests, so
// the format has one definition.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_SUPPORT_BLOCKCSR_H
#define SPARCAST_SUPPORT_BLOCKCSR_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace sparcast::csr {

/// rows x dim sparse rows whose column ids pack as #sc.block_csr<block_size
/// = blockSize, id_bits = 32 - offsetBits, offset_bits = offsetBits>.
struct Shape {
  int64_t rows = 0, dim = 0, blockSize = 1024;
  int32_t offsetBits = 10;
};

/// Why `s` cannot be packed, or an empty string.
inline std::string checkShape(const Shape &s) {
  auto str = [](int64_t v) { return std::to_string(v); };
  if (s.rows < 0 || s.dim <= 0)
    return "rows must be >= 0 and D > 0, got " + str(s.rows) + " x " + str(s.dim);
  if (s.offsetBits < 1 || s.offsetBits > 31)
    return "offset bits must be in [1, 31], got " + str(s.offsetBits);
  if (s.blockSize < 1 || (s.blockSize & (s.blockSize - 1)) != 0 ||
      s.blockSize > (int64_t(1) << s.offsetBits))
    return "the block size must be a power of two of at most 2^offset bits, "
           "got " + str(s.blockSize) + " at " + str(s.offsetBits) + " bits";
  if (s.dim > s.blockSize * (int64_t(1) << (32 - s.offsetBits)))
    return "D = " + str(s.dim) + " needs more blocks than " +
           str(32 - s.offsetBits) + " id bits address";
  return "";
}

inline uint32_t wordOf(int64_t column, const Shape &s) {
  return uint32_t(column / s.blockSize) << s.offsetBits |
         uint32_t(column % s.blockSize);
}

inline int64_t columnOf(uint32_t word, const Shape &s) {
  return int64_t(word >> s.offsetBits) * s.blockSize +
         int64_t(word & ((uint32_t(1) << s.offsetBits) - 1));
}

/// Why CSR arrays (indptr rows + 1 entries, indices and values nnz) are not
/// a valid row set of `s`, or an empty string: indptr starts at 0, ends at
/// nnz, never decreases; a row's ids are strictly increasing (sorted, no
/// duplicates) and in [0, D); values (unless null) finite; nnz below 2^31.
inline std::string checkCsr(const Shape &s, const int64_t *indptr,
                            const int64_t *indices, const float *values,
                            int64_t nnz) {
  auto str = [](int64_t v) { return std::to_string(v); };
  if (nnz < 0 || nnz >= (int64_t(1) << 31))
    return "the non-zeros must number fewer than 2^31, got " + str(nnz);
  if (indptr[0] != 0 || indptr[s.rows] != nnz)
    return "indptr must run from 0 to nnz = " + str(nnz) + ", got " +
           str(indptr[0]) + " .. " + str(indptr[s.rows]);
  for (int64_t r = 0; r < s.rows; ++r) {
    if (indptr[r + 1] < indptr[r] || indptr[r + 1] > nnz)
      return "indptr decreases or passes nnz at row " + str(r);
    for (int64_t j = indptr[r]; j < indptr[r + 1]; ++j) {
      if (indices[j] < 0 || indices[j] >= s.dim)
        return "row " + str(r) + ": column id " + str(indices[j]) +
               " outside [0, D = " + str(s.dim) + ")";
      if (j > indptr[r] && indices[j] <= indices[j - 1])
        return "row " + str(r) + ": column ids not strictly increasing (" +
               str(indices[j - 1]) + " then " + str(indices[j]) +
               "): sort them and sum duplicates first";
      if (values && !std::isfinite(values[j]))
        return "row " + str(r) + ": a value that is not finite at column " +
               str(indices[j]);
    }
  }
  return "";
}

/// The Euclidean norm of each of `rows` rows (row r: values[indptr[r] ..
/// indptr[r + 1])), summed in fp64, 0 for an empty row.
inline void rowNorms(int64_t rows, const int64_t *indptr, const float *values,
                     float *norms) {
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = indptr[r]; j < indptr[r + 1]; ++j)
      sum += double(values[j]) * double(values[j]);
    norms[r] = float(std::sqrt(sum));
  }
}

/// 1 / norm, computed in fp64 from the fp32 norm and rounded once (within
/// an ulp of the exact inverse), at most FLT_MAX; 0 for a norm of 0 (an
/// empty row: its cosines are 0). The similarity entries take these, so
/// that the cosine is two multiplications instead of a division.
inline float inverseNorm(float norm) {
  if (!(norm > 0))
    return 0;
  return float(std::min(1.0 / double(norm),
                        double(std::numeric_limits<float>::max())));
}

/// Each row's inverseNorm of its rowNorms: what the similarity entries take.
inline void inverseRowNorms(int64_t rows, const int64_t *indptr,
                            const float *values, float *inverse) {
  rowNorms(rows, indptr, values, inverse);
  for (int64_t r = 0; r < rows; ++r)
    inverse[r] = inverseNorm(inverse[r]);
}

/// Packs checked CSR arrays: rowPtr (rows + 1), words and packedValues
/// (nnz), norms (rows; rowNorms).
inline void pack(const Shape &s, const int64_t *indptr, const int64_t *indices,
                 const float *values, int32_t *rowPtr, uint32_t *words,
                 float *packedValues, float *norms) {
  for (int64_t r = 0; r <= s.rows; ++r)
    rowPtr[r] = int32_t(indptr[r]);
  for (int64_t j = indptr[0]; j < indptr[s.rows]; ++j) {
    words[j] = wordOf(indices[j], s);
    packedValues[j] = values[j];
  }
  rowNorms(s.rows, indptr, values, norms);
}

/// COO triples (any order) as CSR arrays sorted by (row, column); an error
/// for a row or column outside the shape or a repeated (row, column).
inline std::string cooToCsr(const Shape &s, const int64_t *rowIds,
                            const int64_t *colIds, const float *values,
                            int64_t nnz, std::vector<int64_t> &indptr,
                            std::vector<int64_t> &indices,
                            std::vector<float> &sorted) {
  auto str = [](int64_t v) { return std::to_string(v); };
  if (nnz < 0 || nnz >= (int64_t(1) << 31))
    return "the non-zeros must number fewer than 2^31, got " + str(nnz);
  for (int64_t j = 0; j < nnz; ++j)
    if (rowIds[j] < 0 || rowIds[j] >= s.rows)
      return "entry " + str(j) + ": row " + str(rowIds[j]) + " outside [0, " +
             str(s.rows) + ")";
  std::vector<int64_t> order(nnz);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (rowIds[a] != rowIds[b])
      return rowIds[a] < rowIds[b];
    return colIds[a] != colIds[b] ? colIds[a] < colIds[b] : a < b;
  });
  indptr.assign(s.rows + 1, 0);
  indices.resize(nnz);
  sorted.resize(nnz);
  for (int64_t j = 0; j < nnz; ++j) {
    indices[j] = colIds[order[j]];
    sorted[j] = values[order[j]];
    ++indptr[rowIds[order[j]] + 1];
  }
  for (int64_t r = 0; r < s.rows; ++r)
    indptr[r + 1] += indptr[r];
  return "";
}

/// The head of a similarity job: the dimensions that carry the most pair
/// products (a column in q query rows and i item rows carries q * i), run
/// as a dense product, the rest (the tail) intersected sparsely.
struct Head {
  std::vector<int64_t> columns; // most productive first, ties to the lower
  double coverage = 0;          // their share of all pair products
};

/// How many rows of `indptr` / `indices` (a checked row set over `dim`)
/// hold each column.
inline std::vector<int64_t> columnCounts(int64_t rows, int64_t dim,
                                         const int64_t *indptr,
                                         const int64_t *indices) {
  std::vector<int64_t> counts(dim, 0);
  for (int64_t j = indptr[0]; j < indptr[rows]; ++j)
    ++counts[indices[j]];
  return counts;
}

/// The at most `maxHead` columns of the largest product counts (none that
/// carries no product) between two row sets over the same D.
inline Head chooseHead(const std::vector<int64_t> &queryCounts,
                       const std::vector<int64_t> &itemCounts,
                       int64_t maxHead) {
  Head head;
  std::vector<int64_t> productive;
  double total = 0;
  for (size_t c = 0; c < queryCounts.size(); ++c) {
    double p = double(queryCounts[c]) * double(itemCounts[c]);
    total += p;
    if (p > 0)
      productive.push_back(int64_t(c));
  }
  auto products = [&](int64_t c) {
    return double(queryCounts[c]) * double(itemCounts[c]);
  };
  std::sort(productive.begin(), productive.end(), [&](int64_t a, int64_t b) {
    return products(a) != products(b) ? products(a) > products(b) : a < b;
  });
  if (int64_t(productive.size()) > maxHead)
    productive.resize(std::max<int64_t>(maxHead, 0));
  double covered = 0;
  for (int64_t c : productive)
    covered += products(c);
  head.columns = std::move(productive);
  head.coverage = total > 0 ? covered / total : 0;
  return head;
}

/// Splits checked CSR rows at `head`: headDense (rows x head size, fp32,
/// row-major; column h holds dimension head[h]) and the rest as CSR in
/// tailPtr (rows + 1), tailColumns and tailValues (at most nnz entries);
/// returns the tail's entry count.
inline int64_t splitHead(const Shape &s, const int64_t *indptr,
                         const int64_t *indices, const float *values,
                         const std::vector<int64_t> &head, float *headDense,
                         int64_t *tailPtr, int64_t *tailColumns,
                         float *tailValues) {
  std::vector<int64_t> slot(s.dim, -1);
  for (size_t h = 0; h < head.size(); ++h)
    slot[head[h]] = int64_t(h);
  int64_t width = int64_t(head.size()), tail = 0;
  std::fill(headDense, headDense + s.rows * width, 0.0f);
  tailPtr[0] = 0;
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t j = indptr[r]; j < indptr[r + 1]; ++j) {
      if (slot[indices[j]] >= 0) {
        headDense[r * width + slot[indices[j]]] = values[j];
        continue;
      }
      tailColumns[tail] = indices[j];
      tailValues[tail] = values[j];
      ++tail;
    }
    tailPtr[r + 1] = tail;
  }
  return tail;
}

/// The CSR arrays of the transpose of checked rows (rows x dim): tPtr (dim
/// + 1), tIndices (the row of each entry, increasing within a column) and
/// tValues (nnz each; null values skip them). Row d of the result lists
/// the rows that hold column d: the by-column form a scatter kernel reads
/// (sc.sparse_matmul's transpose_rhs).
inline void transpose(int64_t rows, int64_t dim, const int64_t *indptr,
                      const int64_t *indices, const float *values,
                      int64_t *tPtr, int64_t *tIndices, float *tValues) {
  std::fill(tPtr, tPtr + dim + 1, 0);
  for (int64_t j = indptr[0]; j < indptr[rows]; ++j)
    ++tPtr[indices[j] + 1];
  for (int64_t d = 0; d < dim; ++d)
    tPtr[d + 1] += tPtr[d];
  std::vector<int64_t> next(tPtr, tPtr + dim);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = indptr[r]; j < indptr[r + 1]; ++j) {
      int64_t at = next[indices[j]]++;
      tIndices[at] = r;
      if (values)
        tValues[at] = values[j];
    }
}

} // namespace sparcast::csr

#endif // SPARCAST_SUPPORT_BLOCKCSR_H
