//===- BlockCsr.cpp - sparse rows' packing in the C API -------------------===//
//
// scCsrPack / scCsrPackCoo: argument checks around the packing in
// sparcast/Support/BlockCsr.h.
//
//===----------------------------------------------------------------------===//

#include "Status.h"
#include "sparcast/Support/BlockCsr.h"

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
