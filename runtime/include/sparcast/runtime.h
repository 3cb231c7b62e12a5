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

typedef enum { SC_F32 = 0, SC_F16 = 1, SC_BF16 = 2, SC_I32 = 3 } scDType;

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

/* Message of the last failure on this thread ("" if none). */
const char *scGetLastError(void);

#ifdef __cplusplus
}
#endif

#endif /* SPARCAST_RUNTIME_H */
