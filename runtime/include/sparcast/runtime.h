/*===- runtime.h - Sparcast runtime C API ---------------------------------===*
 *
 * Loads an artifact directory written by sparcast-aot (manifest.json, PTX,
 * cubin), and runs its entries on device pointers on a CUDA stream. Every
 * function returns a status; on failure scGetLastError() says why. Nothing is
 * launched unless every argument checks out: shapes, dtypes, null and
 * misaligned pointers, dims within the kernels' limits, and (on request)
 * index values.
 *
 * Uses the CUDA driver API only, loaded at run time (libcuda.so.1), so the
 * library builds and its validation runs on machines without CUDA.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SPARCAST_RUNTIME_H
#define SPARCAST_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SC_OK = 0,
  SC_ERROR_INVALID_ARGUMENT = 1, /* bad shape, dtype, pointer, dim, index */
  SC_ERROR_NOT_FOUND = 2,        /* no such entry, file or symbol */
  SC_ERROR_MANIFEST = 3,         /* manifest.json malformed */
  SC_ERROR_CUDA = 4,             /* a driver call failed */
  SC_ERROR_UNSUPPORTED = 5,      /* e.g. no CUDA driver on this machine */
  SC_ERROR_INTERNAL = 6          /* out of memory, or a runtime bug */
} scStatus;

/// SC_U8: bytes, such as a hybrid-tiled weight's kind table.
typedef enum { SC_F32 = 0, SC_F16 = 1, SC_BF16 = 2, SC_I32 = 3, SC_U8 = 4 } scDType;

#define SC_MAX_RANK 8

/* A dense row-major tensor in device memory. */
typedef struct {
  void *data;
  scDType dtype;
  int32_t rank;
  int64_t shape[SC_MAX_RANK];
} scTensor;

typedef struct scModule scModule;

/* Flags of scRun. */
#define SC_RUN_CHECK_INDICES 1u /* copy index tensors back and range-check */

/* Loads `dir`/manifest.json and the modules it names (cubin when it matches
 * the device, else PTX JIT). Modules are loaded on first run. */
scStatus scModuleLoad(const char *dir, scModule **module);
void scModuleDestroy(scModule *module);

int32_t scModuleNumEntries(const scModule *module);
const char *scModuleEntryName(const scModule *module, int32_t i);

/* Checks `args` and `results` against entry `entry` without launching
 * anything (no CUDA needed). */
scStatus scValidate(scModule *module, const char *entry, const scTensor *args,
                    int32_t numArgs, const scTensor *results,
                    int32_t numResults);

/* Validates, then runs every kernel of `entry` in order on `stream` (a
 * CUstream; NULL for the legacy default stream). Results are written into
 * the caller's `results` buffers. */
scStatus scRun(scModule *module, const char *entry, const scTensor *args,
               int32_t numArgs, const scTensor *results, int32_t numResults,
               void *stream, uint32_t flags);

/* How a dispatch's alternatives (the kernels of one GEMM compiled for
 * several schedules, manifest `tune` groups) are chosen. Mode 0: by the
 * tuning cache where it has the call's shape bucket (each dynamic dim
 * rounded up to a power of two), else by the launches' conditions (the
 * compiler's heuristics). Mode 1: the same, and a bucket not cached is
 * measured on its first call (every alternative run, the median of 5 runs
 * after a warm-up, L2 flushed before each) and the fastest cached.
 * `cacheFile` (NULL: none) is read before the first call that looks there
 * and rewritten after each measurement; its choices are kept per GPU,
 * driver and artifact. SPARCAST_TUNE=1 and SPARCAST_TUNE_CACHE=<file> set
 * the same at scModuleLoad. No CUDA needed to call. */
scStatus scSetTuning(scModule *module, int32_t mode, const char *cacheFile);

/* Bytes of workspace `entry` needs for these arguments (0 when it has no
 * intermediates). */
scStatus scWorkspaceBytes(scModule *module, const char *entry,
                          const scTensor *args, int32_t numArgs,
                          const scTensor *results, int32_t numResults,
                          uint64_t *bytes);

/* scRun with the caller's workspace (device memory, 256-byte aligned, at
 * least scWorkspaceBytes). scRun itself uses a workspace the module owns
 * and grows, so calls of one module on several streams at once must pass
 * their own. */
scStatus scRunWithWorkspace(scModule *module, const char *entry,
                            const scTensor *args, int32_t numArgs,
                            const scTensor *results, int32_t numResults,
                            void *workspace, uint64_t workspaceBytes,
                            void *stream, uint32_t flags);

/* The shape of result `resultIndex` of `entry` for these arguments (checked
 * as a call checks them): *rank and shape[0 .. *rank), at most SC_MAX_RANK
 * sizes. Callers size their outputs with it instead of reading the
 * manifest's dim expressions. */
scStatus scResultShape(scModule *module, const char *entry,
                       const scTensor *args, int32_t numArgs,
                       int32_t resultIndex, int32_t *rank, int64_t *shape);

/* The block tables of a log-linear attention mask (see #sc.log_linear),
 * for lengths known only at run time: query block i keeps key blocks
 * indices[offsets[i] .. offsets[i + 1]). `offsets` has
 * ceil(queryLength / blockSize) + 1 entries; with indices == NULL only
 * *numIndices is computed. anchors: bit 0 first, bit 1 middle, bit 2 last.
 * Fails when a query block would keep no key block. */
scStatus scLogLinearTables(int64_t queryLength, int64_t keyLength,
                           int64_t blockSize, int64_t localWidth,
                           uint32_t anchors, int32_t causal, int32_t *offsets,
                           int32_t *indices, int64_t indicesCapacity,
                           int64_t *numIndices);

/* Hybrid dense / 2:4 / zero tiles of a 16-bit weight, on host memory (the
 * format: docs/hybrid-tiles.md). The weight is rows x cols (cols: the
 * contraction dim K), row-major, cut into tileRows x tileCols tiles
 * (multiples of 64 and 32 that divide it); tiles are numbered row-major
 * over the tile grid. */
typedef struct {
  int64_t rows, cols;
  int64_t tileRows, tileCols;
} scHybridShape;

#define SC_TILE_ZERO 0
#define SC_TILE_DENSE 1
#define SC_TILE_SPARSE24 2

/* Each tile's kind into `kinds` (one byte a tile): all-zero tiles
 * SC_TILE_ZERO, tiles with at most two non-zeros in every four consecutive
 * columns SC_TILE_SPARSE24, the others SC_TILE_DENSE; with `prune`, those
 * are pruned to 2:4 (the two largest magnitudes of every four kept) except
 * the floor(denseBudget x tiles) of them whose pruning loses the most.
 * `tileError` (one float a tile, or NULL) gets the relative Frobenius error
 * of each tile's packing (0 unless pruned); *numDense and *numSparse the
 * counts that size scHybridPack's buffers. */
scStatus scHybridPlan(const void *weight, scDType dtype,
                      const scHybridShape *shape, int32_t prune,
                      double denseBudget, uint8_t *kinds, float *tileError,
                      int64_t *numDense, int64_t *numSparse);

/* Packs `weight` as `kinds` say (numDense and numSparse: their counts of
 * dense and 2:4 tiles): `slots` (one int32 a tile) its index among the
 * dense or the 2:4 tiles (-1 for a zero tile); `dense` numDense x tileRows
 * x tileCols elements; `sparse` numSparse x tileRows x tileCols / 2 (the
 * two kept values of every four, in column order); `meta` numSparse x
 * tileRows x tileCols / 32 words (word c / 32 of a row: group j of those 32
 * columns in bits 4j .. 4j + 3, the first kept position in the low two
 * bits). A 2:4 tile with more than two non-zeros in a group is pruned. */
scStatus scHybridPack(const void *weight, scDType dtype,
                      const scHybridShape *shape, const uint8_t *kinds,
                      int64_t numDense, int64_t numSparse, int32_t *slots,
                      void *dense, void *sparse, uint32_t *meta);

/* The dense weight of a packed one, after checking the kinds, the slots
 * and the metadata. */
scStatus scHybridUnpack(const scHybridShape *shape, scDType dtype,
                        const uint8_t *kinds, const int32_t *slots,
                        int64_t numDense, int64_t numSparse, const void *dense,
                        const void *sparse, const uint32_t *meta, void *weight);

/* Sparse rows (queries or items of a cosine similarity) in the buffers of
 * sc.assemble_csr, on host memory (the format: docs/sparse-similarity.md):
 * rows x dim, column ids packed as #sc.block_csr<block_size = blockSize,
 * id_bits = 32 - offsetBits, offset_bits = offsetBits>. */
typedef struct {
  int64_t rows, dim;
  int64_t blockSize;
  int32_t offsetBits;
} scCsrShape;

/* Packs CSR arrays as scipy and torch hold them (indptr: rows + 1 entries
 * from 0 to nnz; indices and values: nnz, a row's ids strictly increasing
 * in [0, dim); values finite) into rowPtr (rows + 1 int32), colWords (nnz
 * words), packedValues (nnz floats) and norms (rows floats: each row's
 * Euclidean norm, 0 for an empty row). Anything else is refused with a
 * message and nothing written. */
scStatus scCsrPack(const scCsrShape *shape, const int64_t *indptr,
                   const int64_t *indices, const float *values, int64_t nnz,
                   int32_t *rowPtr, uint32_t *colWords, float *packedValues,
                   float *norms);

/* The same from COO triples in any order (rowIds, colIds, values: nnz
 * each); a repeated (row, column) is refused (sum duplicates first). */
scStatus scCsrPackCoo(const scCsrShape *shape, const int64_t *rowIds,
                      const int64_t *colIds, const float *values, int64_t nnz,
                      int32_t *rowPtr, uint32_t *colWords, float *packedValues,
                      float *norms);

/* The head of a similarity job between query and item rows over the same
 * dim (CSR arrays as scCsrPack takes them, values not needed): the at most
 * maxHead dims that carry the most pair products (a dim in q query rows
 * and i item rows carries q * i), most productive first, into headColumns
 * (maxHead entries), their count into *numHead, their share of all the
 * pair products into *coverage. The head runs as a dense product, the
 * rest (the tail) sparsely (docs/sparse-similarity.md). */
scStatus scCsrChooseHead(const scCsrShape *queries, const int64_t *queryIndptr,
                         const int64_t *queryIndices, int64_t queryNnz,
                         const scCsrShape *items, const int64_t *itemIndptr,
                         const int64_t *itemIndices, int64_t itemNnz,
                         int64_t maxHead, int64_t *headColumns,
                         int64_t *numHead, double *coverage);

/* Rows split at a head: headDense (rows x numHead floats, row-major; column
 * h holds dim headColumns[h], zero where the row has none) and the other
 * entries as CSR arrays tailIndptr (rows + 1), tailIndices and tailValues
 * (room for nnz each), *tailNnz their count. The head's dims must be
 * distinct and inside the dim. */
scStatus scCsrSplitHead(const scCsrShape *shape, const int64_t *indptr,
                        const int64_t *indices, const float *values, int64_t nnz,
                        const int64_t *headColumns, int64_t numHead,
                        float *headDense, int64_t *tailIndptr,
                        int64_t *tailIndices, float *tailValues,
                        int64_t *tailNnz);

/* The transpose of rows (CSR arrays as scCsrPack takes them) as CSR arrays:
 * tIndptr (dim + 1 entries), tIndices and tValues (nnz each): row d lists
 * the rows holding column d, in increasing order. The items' tail in this
 * form is the rhs a similarity's sparse part scatters from
 * (docs/sparse-similarity.md); pack it with scCsrPack as dim x rows. */
scStatus scCsrTranspose(const scCsrShape *shape, const int64_t *indptr,
                        const int64_t *indices, const float *values,
                        int64_t nnz, int64_t *tIndptr, int64_t *tIndices,
                        float *tValues);

/* A set of sparse rows on the host, as scipy and torch hold CSR (indptr:
 * rows + 1 entries from 0; a row's indices strictly increasing in
 * [0, dim); values finite). */
typedef struct {
  int64_t rows, dim;
  const int64_t *indptr, *indices;
  const float *values;
} scCsrRows;

/* What scSimilarity computes and where it goes. */
typedef struct {
  /* k > 0: the k largest cosines of each query (k <= 1024 and at most the
   * items) into topValues / topIds (host, queries x k, row-major; the
   * larger first, equal values by the lower item). */
  int32_t k;
  /* Else with hasThreshold: every pair above `threshold` to onPairs, a
   * chunk at a time (host arrays, row-major within the chunk). */
  int32_t hasThreshold;
  float threshold;
  void (*onPairs)(void *user, int64_t numPairs, const int64_t *rows,
                  const int64_t *cols, const float *values);
  /* Else each chunk's dense cosines to onScores (device memory, queries x
   * numItems row-major, items firstItem ..; valid during the call). */
  void (*onScores)(void *user, int64_t firstItem, int64_t numItems,
                   const float *deviceScores);
  void *user;
  /* Items a chunk (a multiple of 128), or 0: what fits in 40 % of the
   * free device memory. */
  int64_t chunkItems;
  /* Head dims (1 .. 256), or 0 for 16. */
  int32_t maxHead;
  void *stream; /* a CUstream, or NULL */
} scSimilarityJob;

/* Exact fp32 cosines of every query row against every item row (0 against
 * an empty row), streamed through the GPU in chunks of items with
 * `module`, an artifact of examples/similarity.mlir (its entries `cosine`
 * and `cosine_candidates`): the host inspector splits the rows at a head
 * (docs/sparse-similarity.md); top k and threshold pairs come from the
 * kernel's selection, never from dense scores (a chunk where a query has
 * more candidates than slots is halved until none has). *peakDeviceBytes
 * (may be NULL) gets the most device memory the call held at once. */
scStatus scSimilarity(scModule *module, const scCsrRows *queries,
                      const scCsrRows *items, const scSimilarityJob *job,
                      float *topValues, int64_t *topIds,
                      uint64_t *peakDeviceBytes);

/* Message of the last failure on this thread ("" if none). */
const char *scGetLastError(void);

#ifdef __cplusplus
}
#endif

#endif /* SPARCAST_RUNTIME_H */
