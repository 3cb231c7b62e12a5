//===- HybridTiles.cpp - the hybrid tiles' C API --------------------------===//
//
// scHybridPlan / scHybridPack / scHybridUnpack: argument checks around the
// inspector in sparcast/Support/HybridTiles.h.
//
//===----------------------------------------------------------------------===//

#include "Status.h"
#include "sparcast/Support/HybridTiles.h"

using namespace sparcast;
using namespace sparcast::rt;

namespace {

/// Checks the shape and the dtype (16-bit: f16 or bf16) of a call.
scStatus checkCall(const char *function, const scHybridShape *shape,
                   scDType dtype, hybrid::Shape &out) {
  if (!shape)
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    std::string(function) + ": null shape");
  out = {shape->rows, shape->cols, shape->tileRows, shape->tileCols};
  std::string why = hybrid::checkShape(out);
  if (!why.empty())
    return setError(SC_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + why);
  if (dtype != SC_F16 && dtype != SC_BF16)
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    std::string(function) +
                        ": hybrid tiles hold f16 or bf16 weights, got dtype " +
                        std::to_string(int(dtype)));
  return SC_OK;
}

scStatus nullArgument(const char *function) {
  return setError(SC_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": null buffer");
}

} // namespace

scStatus scHybridPlan(const void *weight, scDType dtype,
                      const scHybridShape *shape, int32_t prune,
                      double denseBudget, uint8_t *kinds, float *tileError,
                      int64_t *numDense, int64_t *numSparse) {
  return guarded("scHybridPlan", [&] {
    hybrid::Shape s;
    if (scStatus status = checkCall("scHybridPlan", shape, dtype, s))
      return status;
    if (!weight || !kinds || !numDense || !numSparse)
      return nullArgument("scHybridPlan");
    if (!(denseBudget >= 0.0 && denseBudget <= 1.0))
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "scHybridPlan: the dense budget is a fraction of the "
                      "tiles in [0, 1], got " +
                          std::to_string(denseBudget));
    hybrid::Plan p = hybrid::plan(static_cast<const uint16_t *>(weight), s,
                                  dtype == SC_BF16, prune != 0, denseBudget);
    for (int64_t t = 0; t < s.numTiles(); ++t) {
      kinds[t] = uint8_t(p.kinds[t]);
      if (tileError)
        tileError[t] = p.error[t];
    }
    *numDense = p.numDense;
    *numSparse = p.numSparse;
    clearError();
    return SC_OK;
  });
}

scStatus scHybridPack(const void *weight, scDType dtype,
                      const scHybridShape *shape, const uint8_t *kinds,
                      int64_t numDense, int64_t numSparse, int32_t *slots,
                      void *dense, void *sparse, uint32_t *meta) {
  return guarded("scHybridPack", [&] {
    hybrid::Shape s;
    if (scStatus status = checkCall("scHybridPack", shape, dtype, s))
      return status;
    if (!weight || !kinds || !slots || (numDense && !dense) ||
        (numSparse && (!sparse || !meta)))
      return nullArgument("scHybridPack");
    // The buffers were sized for these counts: the kinds must agree.
    int64_t dense_ = 0, sparse_ = 0;
    for (int64_t t = 0; t < s.numTiles(); ++t) {
      if (kinds[t] > SC_TILE_SPARSE24)
        return setError(SC_ERROR_INVALID_ARGUMENT,
                        "scHybridPack: tile " + std::to_string(t) + " has kind " +
                            std::to_string(kinds[t]) +
                            ", none of 0 (zero), 1 (dense), 2 (2:4)");
      dense_ += kinds[t] == SC_TILE_DENSE;
      sparse_ += kinds[t] == SC_TILE_SPARSE24;
    }
    if (dense_ != numDense || sparse_ != numSparse)
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "scHybridPack: the kinds have " + std::to_string(dense_) +
                          " dense and " + std::to_string(sparse_) +
                          " 2:4 tiles, the buffers were sized for " +
                          std::to_string(numDense) + " and " +
                          std::to_string(numSparse));
    hybrid::pack(static_cast<const uint16_t *>(weight), s, dtype == SC_BF16,
                 reinterpret_cast<const hybrid::TileKind *>(kinds), slots,
                 static_cast<uint16_t *>(dense), static_cast<uint16_t *>(sparse),
                 meta);
    clearError();
    return SC_OK;
  });
}

scStatus scHybridUnpack(const scHybridShape *shape, scDType dtype,
                        const uint8_t *kinds, const int32_t *slots,
                        int64_t numDense, int64_t numSparse, const void *dense,
                        const void *sparse, const uint32_t *meta,
                        void *weight) {
  return guarded("scHybridUnpack", [&] {
    hybrid::Shape s;
    if (scStatus status = checkCall("scHybridUnpack", shape, dtype, s))
      return status;
    if (!weight || !kinds || !slots || numDense < 0 || numSparse < 0 ||
        (numDense && !dense) || (numSparse && (!sparse || !meta)))
      return nullArgument("scHybridUnpack");
    std::string why = hybrid::unpack(
        s, kinds, slots, numDense, numSparse,
        static_cast<const uint16_t *>(dense),
        static_cast<const uint16_t *>(sparse), meta,
        static_cast<uint16_t *>(weight));
    if (!why.empty())
      return setError(SC_ERROR_INVALID_ARGUMENT, "scHybridUnpack: " + why);
    clearError();
    return SC_OK;
  });
}
