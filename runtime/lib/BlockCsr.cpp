//===- BlockCsr.cpp - sparse rows' packing in the C API -------------------===//
//
// scCsrPack / scCsrPackCoo: argument checks around the packing in
// sparcast/Support/BlockCsr.h.
//
//===----------------------------------------------------------------------===//

#include "Status.h"
#include "sparcast/Support/BlockCsr.h"

#include <tuple>

using namespace sparcast;
using namespace sparcast::rt;

namespace {

scStatus checkShape(const char *function, const scCsrShape *shape,
                    csr::Shape &out) {
  if (!shape)
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    std::string(function) + ": null shape");
  out = {shape->rows, shape->dim, shape->blockSize, shape->offsetBits};
  std::string why = csr::checkShape(out);
  if (!why.empty())
    return setError(SC_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + why);
  return SC_OK;
}

/// Checks the CSR arrays and packs them.
scStatus checkAndPack(const char *function, const csr::Shape &s,
                      const int64_t *indptr, const int64_t *indices,
                      const float *values, int64_t nnz, int32_t *rowPtr,
                      uint32_t *colWords, float *packedValues, float *norms) {
  std::string why = csr::checkCsr(s, indptr, indices, values, nnz);
  if (!why.empty())
    return setError(SC_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + why);
  csr::pack(s, indptr, indices, values, rowPtr, colWords, packedValues, norms);
  clearError();
  return SC_OK;
}

} // namespace

scStatus scCsrPack(const scCsrShape *shape, const int64_t *indptr,
                   const int64_t *indices, const float *values, int64_t nnz,
                   int32_t *rowPtr, uint32_t *colWords, float *packedValues,
                   float *norms) {
  return guarded("scCsrPack", [&] {
    csr::Shape s;
    if (scStatus status = checkShape("scCsrPack", shape, s))
      return status;
    if (!indptr || !rowPtr || !norms ||
        (nnz > 0 && (!indices || !values || !colWords || !packedValues)))
      return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrPack: null buffer");
    return checkAndPack("scCsrPack", s, indptr, indices, values, nnz, rowPtr,
                        colWords, packedValues, norms);
  });
}

scStatus scCsrPackCoo(const scCsrShape *shape, const int64_t *rowIds,
                      const int64_t *colIds, const float *values, int64_t nnz,
                      int32_t *rowPtr, uint32_t *colWords, float *packedValues,
                      float *norms) {
  return guarded("scCsrPackCoo", [&] {
    csr::Shape s;
    if (scStatus status = checkShape("scCsrPackCoo", shape, s))
      return status;
    if (!rowPtr || !norms ||
        (nnz > 0 && (!rowIds || !colIds || !values || !colWords || !packedValues)))
      return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrPackCoo: null buffer");
    std::vector<int64_t> indptr, indices;
    std::vector<float> sorted;
    std::string why =
        csr::cooToCsr(s, rowIds, colIds, values, nnz, indptr, indices, sorted);
    if (!why.empty())
      return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrPackCoo: " + why);
    return checkAndPack("scCsrPackCoo", s, indptr.data(), indices.data(),
                        sorted.data(), nnz, rowPtr, colWords, packedValues,
                        norms);
  });
}

scStatus scCsrChooseHead(const scCsrShape *queries, const int64_t *queryIndptr,
                         const int64_t *queryIndices, int64_t queryNnz,
                         const scCsrShape *items, const int64_t *itemIndptr,
                         const int64_t *itemIndices, int64_t itemNnz,
                         int64_t maxHead, int64_t *headColumns,
                         int64_t *numHead, double *coverage) {
  return guarded("scCsrChooseHead", [&] {
    csr::Shape q, i;
    if (scStatus status = checkShape("scCsrChooseHead", queries, q))
      return status;
    if (scStatus status = checkShape("scCsrChooseHead", items, i))
      return status;
    if (!queryIndptr || !itemIndptr || !numHead || !coverage ||
        (maxHead > 0 && !headColumns) || (queryNnz > 0 && !queryIndices) ||
        (itemNnz > 0 && !itemIndices))
      return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrChooseHead: null buffer");
    if (q.dim != i.dim || maxHead < 0)
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "scCsrChooseHead: queries and items over one dim and a "
                      "head of >= 0 dims, got D = " +
                          std::to_string(q.dim) + " and " + std::to_string(i.dim) +
                          ", max head " + std::to_string(maxHead));
    for (auto [shape, indptr, indices, nnz] :
         {std::tuple(q, queryIndptr, queryIndices, queryNnz),
          std::tuple(i, itemIndptr, itemIndices, itemNnz)}) {
      std::string why = csr::checkCsr(shape, indptr, indices, nullptr, nnz);
      if (!why.empty())
        return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrChooseHead: " + why);
    }
    csr::Head head = csr::chooseHead(
        csr::columnCounts(q.rows, q.dim, queryIndptr, queryIndices),
        csr::columnCounts(i.rows, i.dim, itemIndptr, itemIndices), maxHead);
    std::copy(head.columns.begin(), head.columns.end(), headColumns);
    *numHead = int64_t(head.columns.size());
    *coverage = head.coverage;
    clearError();
    return SC_OK;
  });
}

scStatus scCsrSplitHead(const scCsrShape *shape, const int64_t *indptr,
                        const int64_t *indices, const float *values, int64_t nnz,
                        const int64_t *headColumns, int64_t numHead,
                        float *headDense, int64_t *tailIndptr,
                        int64_t *tailIndices, float *tailValues,
                        int64_t *tailNnz) {
  return guarded("scCsrSplitHead", [&] {
    csr::Shape s;
    if (scStatus status = checkShape("scCsrSplitHead", shape, s))
      return status;
    if (!indptr || !tailIndptr || !tailNnz || numHead < 0 ||
        (numHead > 0 && (!headColumns || (s.rows > 0 && !headDense))) ||
        (nnz > 0 && (!indices || !values || !tailIndices || !tailValues)))
      return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrSplitHead: null buffer");
    std::string why = csr::checkCsr(s, indptr, indices, values, nnz);
    if (!why.empty())
      return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrSplitHead: " + why);
    std::vector<int64_t> head(headColumns, headColumns + numHead);
    std::vector<bool> seen(s.dim, false);
    for (int64_t c : head) {
      if (c < 0 || c >= s.dim || seen[c])
        return setError(SC_ERROR_INVALID_ARGUMENT,
                        "scCsrSplitHead: head dim " + std::to_string(c) +
                            " repeated or outside [0, D = " +
                            std::to_string(s.dim) + ")");
      seen[c] = true;
    }
    *tailNnz = csr::splitHead(s, indptr, indices, values, head, headDense,
                              tailIndptr, tailIndices, tailValues);
    clearError();
    return SC_OK;
  });
}

scStatus scCsrTranspose(const scCsrShape *shape, const int64_t *indptr,
                        const int64_t *indices, const float *values,
                        int64_t nnz, int64_t *tIndptr, int64_t *tIndices,
                        float *tValues) {
  return guarded("scCsrTranspose", [&] {
    csr::Shape s;
    if (scStatus status = checkShape("scCsrTranspose", shape, s))
      return status;
    if (!indptr || !tIndptr ||
        (nnz > 0 && (!indices || !values || !tIndices || !tValues)))
      return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrTranspose: null buffer");
    std::string why = csr::checkCsr(s, indptr, indices, values, nnz);
    if (!why.empty())
      return setError(SC_ERROR_INVALID_ARGUMENT, "scCsrTranspose: " + why);
    csr::transpose(s.rows, s.dim, indptr, indices, values, tIndptr, tIndices,
                   tValues);
    clearError();
    return SC_OK;
  });
}
