//===- Runtime.cpp - Sparcast runtime: load artifacts, check, launch ------===//
//
// The CUDA driver is loaded with dlopen so that the library (and all of its
// argument checking) builds and runs on machines without CUDA. Every driver
// call goes through SC_CUDA_CHECK, which turns a failure into a status and
// a message naming the call.
//
//===----------------------------------------------------------------------===//

#include "sparcast/runtime.h"

#include "DeviceMemory.h"
#include "Manifest.h"
#include "TuneCache.h"
#include "Status.h"
#include "sparcast/Support/LogLinearPattern.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace sparcast::rt;

namespace {

/// SPARCAST_RT_TRACE=1 prints every step of a run to stderr.
bool tracing() {
  static const bool enabled = [] {
    const char *v = std::getenv("SPARCAST_RT_TRACE");
    return v && *v && *v != '0';
  }();
  return enabled;
}

void traceLine(const std::string &what) {
  std::fprintf(stderr, "sparcast-rt: %s\n", what.c_str());
}

// The message is built only when tracing: a launch is on the hot path.
#define SC_TRACE(message)                                                      \
  do {                                                                         \
    if (tracing())                                                             \
      traceLine(message);                                                      \
  } while (0)

//===----------------------------------------------------------------------===//
// The few driver API types and entry points we use.
//===----------------------------------------------------------------------===//

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
struct CUevent_st;
using CUevent = CUevent_st *;
struct alignas(64) CUtensorMap {
  uint64_t opaque[16];
};

constexpr int kAttrMaxDynamicShared = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
constexpr int kAttrCCMajor = 75;          // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrCCMinor = 76;          // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kAttrSMCount = 16;          // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int kPtrMemoryType = 2;         // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr int kPtrRangeStart = 11;        // CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
constexpr int kPtrRangeSize = 12;         // CU_POINTER_ATTRIBUTE_RANGE_SIZE
constexpr unsigned kMemoryTypeDevice = 2; // CU_MEMORYTYPE_DEVICE
constexpr unsigned kMemoryTypeUnified = 4;
constexpr int kJitErrorLogBuffer = 5;     // CU_JIT_ERROR_LOG_BUFFER
constexpr int kJitErrorLogSize = 6;       // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES

// CUDA_MEMCPY2D, as cuMemcpy2D_v2 takes it.
struct CUDA_MEMCPY2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
};
constexpr int kMemoryTypeHost = 1; // CU_MEMORYTYPE_HOST

struct Driver {
  void *library = nullptr;
  std::string loadError;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxGetDevice)(CUdevice *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) =
      nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream) =
      nullptr;
  CUresult (*cuMemGetInfo)(size_t *, size_t *) = nullptr;
  CUresult (*cuMemcpy2D)(const CUDA_MEMCPY2D *) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuPointerGetAttributes)(unsigned, int *, void **, CUdeviceptr) =
      nullptr;
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const unsigned *, const unsigned *, int,
                                     int, int, int) = nullptr;

  template <typename F> bool bind(F &fn, const char *name) {
    fn = reinterpret_cast<F>(dlsym(library, name));
    if (!fn)
      loadError = std::string("libcuda has no ") + name;
    return fn != nullptr;
  }

  bool load() {
    library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *e = dlerror();
      loadError = std::string("cannot load the CUDA driver (libcuda.so.1): ") +
                  (e ? e : "unknown error");
      return false;
    }
    return bind(cuInit, "cuInit") && bind(cuGetErrorName, "cuGetErrorName") &&
           bind(cuCtxGetCurrent, "cuCtxGetCurrent") &&
           bind(cuCtxSetCurrent, "cuCtxSetCurrent") &&
           bind(cuCtxGetDevice, "cuCtxGetDevice") &&
           bind(cuDeviceGet, "cuDeviceGet") &&
           bind(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
           bind(cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
           bind(cuModuleLoadDataEx, "cuModuleLoadDataEx") &&
           bind(cuModuleGetFunction, "cuModuleGetFunction") &&
           bind(cuModuleUnload, "cuModuleUnload") &&
           bind(cuFuncSetAttribute, "cuFuncSetAttribute") &&
           bind(cuLaunchKernel, "cuLaunchKernel") &&
           bind(cuMemAlloc, "cuMemAlloc_v2") && bind(cuMemFree, "cuMemFree_v2") &&
           bind(cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
           bind(cuMemcpyDtoH, "cuMemcpyDtoH_v2") &&
           bind(cuMemsetD8Async, "cuMemsetD8Async") &&
           bind(cuMemGetInfo, "cuMemGetInfo_v2") &&
           bind(cuMemcpy2D, "cuMemcpy2D_v2") &&
           bind(cuStreamSynchronize, "cuStreamSynchronize") &&
           bind(cuEventCreate, "cuEventCreate") &&
           bind(cuEventRecord, "cuEventRecord") &&
           bind(cuEventSynchronize, "cuEventSynchronize") &&
           bind(cuEventElapsedTime, "cuEventElapsedTime") &&
           bind(cuEventDestroy, "cuEventDestroy_v2") &&
           bind(cuDeviceGetName, "cuDeviceGetName") &&
           bind(cuDriverGetVersion, "cuDriverGetVersion") &&
           bind(cuPointerGetAttributes, "cuPointerGetAttributes") &&
           bind(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  }
};

Driver *getDriver(std::string &error) {
  static Driver driver;
  static bool ok = [] {
    if (!driver.load())
      return false;
    if (driver.cuInit(0) != 0) {
      driver.loadError = "cuInit failed: no usable CUDA device";
      return false;
    }
    return true;
  }();
  if (!ok) {
    error = driver.loadError;
    return nullptr;
  }
  return &driver;
}

std::string cudaErrorText(Driver *d, CUresult r) {
  const char *name = nullptr;
  if (d && d->cuGetErrorName && d->cuGetErrorName(r, &name) == 0 && name)
    return name;
  return "CUDA error " + std::to_string(r);
}

#define SC_CUDA_CHECK(drv, expr)                                               \
  do {                                                                         \
    CUresult sc_result_ = (expr);                                              \
    if (sc_result_ != 0)                                                       \
      return setError(SC_ERROR_CUDA, std::string("'") + #expr +                \
                                         "' failed with " +                    \
                                         cudaErrorText(drv, sc_result_));      \
  } while (0)

// No iostreams in the runtime: it is loaded into processes (Python, torch)
// whose C++ runtime may not be the one it was linked with, and stdio needs
// no locale initialization.
// Reads at most `maxBytes`: a file linked to /dev/zero, or a corrupted
// one, must not take all memory. Sets `error` on failure.
bool readFile(const std::string &path, size_t maxBytes, std::string &out,
              std::string &error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot read " + path;
    return false;
  }
  out.clear();
  char buffer[65536];
  size_t n;
  bool tooLarge = false;
  while (!tooLarge && (n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) {
    tooLarge = out.size() + n > maxBytes;
    if (!tooLarge)
      out.append(buffer, n);
  }
  bool ok = !std::ferror(f) && !tooLarge;
  std::fclose(f);
  if (tooLarge)
    error = path + ": larger than " + std::to_string(maxBytes >> 20) + " MiB";
  else if (!ok)
    error = "cannot read " + path;
  return ok;
}

// A manifest is kilobytes; kernel images are megabytes.
constexpr size_t kMaxManifestBytes = size_t(16) << 20;
constexpr size_t kMaxKernelImageBytes = size_t(1) << 30;

std::string realPath(const std::string &path) {
  char *real = realpath(path.c_str(), nullptr);
  if (!real)
    return "";
  std::string result(real);
  std::free(real);
  return result;
}

/// Reads `dir`/`name`, which must be a regular file inside `dir` once
/// links are resolved (a manifest cannot point the driver at /etc/passwd or
/// at a device) and at most `maxBytes` long.
bool readArtifactFile(const std::string &dir, const std::string &name,
                      size_t maxBytes, std::string &out, std::string &error) {
  std::string path = dir + "/" + name;
  std::string real = realPath(path), realDir = realPath(dir);
  struct stat st;
  if (real.empty() || realDir.empty() || stat(real.c_str(), &st) != 0)
    error = "cannot read " + path;
  else if (real.compare(0, realDir.size() + 1, realDir + "/") != 0)
    error = path + ": resolves outside the artifact folder";
  else if (!S_ISREG(st.st_mode))
    error = path + ": not a regular file";
  else if (static_cast<uint64_t>(st.st_size) > maxBytes)
    error = path + ": larger than " + std::to_string(maxBytes >> 20) + " MiB";
  else
    return readFile(real, maxBytes, out, error);
  return false;
}

int tmaDataType(scDType dtype) {
  switch (dtype) {
  case SC_F16: return 6;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  case SC_BF16: return 9; // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  case SC_F32: return 7;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  case SC_I32: return 3;  // CU_TENSOR_MAP_DATA_TYPE_INT32
  case SC_U8: return 0;   // CU_TENSOR_MAP_DATA_TYPE_UINT8
  }
  return 7;
}

int tmaSwizzle(int64_t bytes) {
  switch (bytes) {
  case 32: return 1;
  case 64: return 2;
  case 128: return 3;
  default: return 0;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// scModule
//===----------------------------------------------------------------------===//

struct scModule {
  std::string dir;
  Manifest manifest;
  // Every kernel file's bytes, read at load (by file name): what the
  // driver gets is what was checked, whatever happens to the folder later.
  std::map<std::string, std::string> images;
  std::mutex mutex;
  std::map<std::string, CUmodule> loaded;           // by module name
  // By launch (its kernel looked up once per launch of the manifest: a
  // pointer, so that a call does not format strings to find it).
  std::map<const LaunchSpec *, CUfunction> functions;
  // Tensor maps encoded on the host, by (launch, parameter, address,
  // dims): integers, so that a call does not format strings to find them.
  // Kernels take maps by value (128-byte grid constants, copied at each
  // launch), so no map lives in device memory and an entry can go at any
  // time: the cache is emptied when it reaches kMaxTensorMaps.
  std::map<std::vector<uint64_t>, CUtensorMap> tensorMaps;
  static constexpr size_t kMaxTensorMaps = 4096;
  // The module's own workspace; grown, never shrunk. Old buffers are kept
  // until destruction: a kernel queued earlier may still use them.
  std::vector<CUdeviceptr> workspaces;
  size_t workspaceBytes = 0;
  // SM count per device, for persistent grids (symbol SMS); asked once.
  std::map<CUdevice, int> smCounts;
  // Log-linear mask tables built for lengths met at launch, by mask and
  // lengths: {device buffer, int32 elements}. Immutable once written.
  std::map<std::string, std::pair<CUdeviceptr, int64_t>> maskTables;
  Driver *driver = nullptr;
  // Tuning of dispatches (scSetTuning): measure a dispatch's alternatives
  // on a shape bucket's first call (`tune`), keep the fastest in `tuned`
  // and in `tuneFile` (read before the first call that looks there).
  bool tune = false;
  std::string tuneFile;
  bool tuneFileRead = false;
  TuneCache tuned;
  // The artifact's identity (its manifest's text), and each device's
  // scope of the cache.
  std::string artifactHash;
  std::map<CUdevice, TuneCache::Scope> tuneScopes;
  // What is flushed from L2 before each measured run.
  CUdeviceptr flushBuffer = 0;
  size_t flushBytes = 0;

  ~scModule() {
    if (!driver)
      return;
    for (auto &[name, m] : loaded)
      driver->cuModuleUnload(m);
    for (CUdeviceptr p : workspaces)
      driver->cuMemFree(p);
    for (auto &[key, table] : maskTables)
      driver->cuMemFree(table.first);
    if (flushBuffer)
      driver->cuMemFree(flushBuffer);
  }
};

namespace {

/// Makes sure a context is current: the caller's (e.g. PyTorch's), else the
/// primary context of device 0.
scStatus ensureContext(Driver *d) {
  CUcontext ctx = nullptr;
  SC_CUDA_CHECK(d, d->cuCtxGetCurrent(&ctx));
  if (ctx)
    return SC_OK;
  CUdevice dev;
  SC_CUDA_CHECK(d, d->cuDeviceGet(&dev, 0));
  SC_CUDA_CHECK(d, d->cuDevicePrimaryCtxRetain(&ctx, dev));
  SC_CUDA_CHECK(d, d->cuCtxSetCurrent(ctx));
  return SC_OK;
}

scStatus getFunction(scModule *m, const LaunchSpec &launch, CUfunction &out) {
  auto found = m->functions.find(&launch);
  if (found != m->functions.end()) {
    out = found->second;
    return SC_OK;
  }
  Driver *d = m->driver;
  CUmodule mod = nullptr;
  auto loadedIt = m->loaded.find(launch.module);
  if (loadedIt != m->loaded.end()) {
    mod = loadedIt->second;
  } else {
    const ModuleSpec *spec = m->manifest.findModule(launch.module);
    // Use the cubin when it was built for this device, else JIT the PTX.
    CUdevice dev;
    int major = 0, minor = 0;
    SC_CUDA_CHECK(d, d->cuCtxGetDevice(&dev));
    SC_CUDA_CHECK(d, d->cuDeviceGetAttribute(&major, kAttrCCMajor, dev));
    SC_CUDA_CHECK(d, d->cuDeviceGetAttribute(&minor, kAttrCCMinor, dev));
    std::string deviceChip = "sm_" + std::to_string(major * 10 + minor);
    std::string image;
    bool useCubin = !spec->cubinFile.empty() &&
                    (spec->chip == deviceChip || spec->chip == deviceChip + "a");
    std::string file = m->dir + "/" + (useCubin ? spec->cubinFile : spec->ptxFile);
    image = m->images.at(useCubin ? spec->cubinFile : spec->ptxFile);
    if (!useCubin)
      image.push_back('\0');
    char log[8192] = {0};
    int options[] = {kJitErrorLogBuffer, kJitErrorLogSize};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
    CUresult r = d->cuModuleLoadDataEx(&mod, image.data(), 2, options, values);
    if (r != 0)
      return setError(SC_ERROR_CUDA, "loading " + file + " failed with " +
                                         cudaErrorText(d, r) + ": " + log);
    m->loaded[launch.module] = mod;
  }
  CUfunction f = nullptr;
  CUresult r = d->cuModuleGetFunction(&f, mod, launch.kernel.c_str());
  if (r != 0)
    return setError(SC_ERROR_NOT_FOUND, "module " + launch.module +
                                            " has no kernel " + launch.kernel +
                                            " (" + cudaErrorText(d, r) + ")");
  if (launch.sharedBytes > 48 * 1024)
    SC_CUDA_CHECK(d, d->cuFuncSetAttribute(f, kAttrMaxDynamicShared,
                                           static_cast<int>(launch.sharedBytes)));
  m->functions[&launch] = f;
  out = f;
  return SC_OK;
}

/// The tensor map of parameter `paramIndex` for this call, encoded on the
/// host once per distinct (kernel, parameter, address, shape) and kept
/// (bounded by kMaxTensorMaps); the launch passes it by value.
scStatus getTensorMap(scModule *m, const LaunchSpec &launch, size_t paramIndex,
                      const ParamSpec &p, const scTensor &t,
                      const DimBindings &dims, CUtensorMap &out) {
  Driver *d = m->driver;
  std::vector<uint64_t> key = {reinterpret_cast<uint64_t>(&launch), paramIndex,
                               reinterpret_cast<uint64_t>(t.data)};
  for (const DimExpr &e : p.dims)
    key.push_back(static_cast<uint64_t>(e.evaluate(dims)));
  auto found = m->tensorMaps.find(key);
  if (found != m->tensorMaps.end()) {
    out = found->second;
    return SC_OK;
  }
  std::vector<uint64_t> globalDims(key.begin() + 3, key.end()), strides;
  // A tensor with no elements (a hybrid-tiled weight without dense or
  // without 2:4 tiles) has no map; its kernel never reads it: zeros.
  if (std::find(globalDims.begin(), globalDims.end(), 0) != globalDims.end()) {
    std::memset(&out, 0, sizeof(out));
    return SC_OK;
  }
  for (const DimExpr &e : p.stridesBytes)
    strides.push_back(static_cast<uint64_t>(e.evaluate(dims)));
  // Every element the map addresses lies inside the tensor.
  uint64_t bytes = dtypeBytes(t.dtype);
  uint64_t last = tensorMapEnd(p.offsetBytes, globalDims, strides, bytes);
  uint64_t size = bytes;
  for (int32_t r = 0; r < t.rank; ++r)
    size *= static_cast<uint64_t>(t.shape[r]);
  if (last > size)
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    "the tensor map of '" + p.tensor + "' for kernel " +
                        launch.kernel + " reaches byte " + std::to_string(last) +
                        " of a tensor of " + std::to_string(size) + " bytes");
  void *base = static_cast<char *>(t.data) + p.offsetBytes;
  std::vector<unsigned> box(p.box.begin(), p.box.end());
  std::vector<unsigned> elementStrides(box.size(), 1);
  SC_TRACE("encoding tensor map for " + p.tensor + " of " + launch.kernel);
  CUresult r = d->cuTensorMapEncodeTiled(
      &out, tmaDataType(t.dtype), static_cast<unsigned>(globalDims.size()),
      base, globalDims.data(), strides.data(), box.data(),
      elementStrides.data(), /*interleave=*/0, tmaSwizzle(p.swizzleBytes),
      /*l2promotion=256B*/ 3, /*oobFill=zero*/ 0);
  if (r != 0)
    return setError(SC_ERROR_CUDA, "cuTensorMapEncodeTiled for tensor '" +
                                       p.tensor + "' of kernel " +
                                       launch.kernel + " failed with " +
                                       cudaErrorText(d, r));
  SC_TRACE("encoded");
  if (m->tensorMaps.size() >= scModule::kMaxTensorMaps)
    m->tensorMaps.clear();
  m->tensorMaps.emplace(std::move(key), out);
  return SC_OK;
}

/// The BSR tables of a log-linear mask for the lengths of this call, built
/// once per (mask, lengths) and kept: [offsets (query blocks + 1), indices].
scStatus getMaskTables(scModule *m, const ParamSpec &p, const DimBindings &dims,
                       CUdeviceptr &out, int64_t &elements) {
  int64_t queryLen = p.queryLen.evaluate(dims), keyLen = p.keyLen.evaluate(dims);
  std::string key = std::to_string(p.maskBlock) + "/" +
                    std::to_string(p.localWidth) + "/" +
                    std::to_string(p.anchors) + "/" + std::to_string(p.causal) +
                    ":" + std::to_string(queryLen) + "x" + std::to_string(keyLen);
  auto found = m->maskTables.find(key);
  if (found != m->maskTables.end()) {
    out = found->second.first;
    elements = found->second.second;
    return SC_OK;
  }
  int64_t queryBlocks = (queryLen + p.maskBlock - 1) / p.maskBlock;
  std::vector<int32_t> table(static_cast<size_t>(queryBlocks + 1));
  int64_t numIndices = 0;
  uint32_t anchors = static_cast<uint32_t>(p.anchors);
  int32_t causal = static_cast<int32_t>(p.causal);
  if (scStatus s = scLogLinearTables(queryLen, keyLen, p.maskBlock, p.localWidth,
                                     anchors, causal, table.data(), nullptr, 0,
                                     &numIndices))
    return s;
  table.resize(static_cast<size_t>(queryBlocks + 1 + numIndices));
  if (scStatus s = scLogLinearTables(
          queryLen, keyLen, p.maskBlock, p.localWidth, anchors, causal,
          table.data(), table.data() + queryBlocks + 1, numIndices, &numIndices))
    return s;
  Driver *d = m->driver;
  CUdeviceptr buffer;
  SC_CUDA_CHECK(d, d->cuMemAlloc(&buffer, table.size() * sizeof(int32_t)));
  SC_CUDA_CHECK(d, d->cuMemcpyHtoD(buffer, table.data(),
                                   table.size() * sizeof(int32_t)));
  m->maskTables[key] = {buffer, static_cast<int64_t>(table.size())};
  out = buffer;
  elements = static_cast<int64_t>(table.size());
  return SC_OK;
}

/// Device memory holding at least the tensor's bytes: a host pointer or an
/// undersized buffer would make the kernel fault or write out of bounds.
scStatus checkDeviceExtent(Driver *d, const scTensor &t, const char *role,
                           const std::string &name) {
  // (The message is built only on failure: this runs on every call.)
  auto what = [&] { return std::string(role) + " '" + name + "'"; };
  // A tensor without elements is never read (validateCall allows it only
  // where the manifest does).
  for (int32_t d = 0; d < t.rank; ++d)
    if (t.shape[d] == 0)
      return SC_OK;
  CUdeviceptr ptr = reinterpret_cast<CUdeviceptr>(t.data);
  // One driver call for the three (a call is on the launch path): a
  // pointer CUDA does not know gets zeros, not an error.
  unsigned memoryType = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  int attributes[] = {kPtrMemoryType, kPtrRangeStart, kPtrRangeSize};
  void *values[] = {&memoryType, &start, &size};
  if (d->cuPointerGetAttributes(3, attributes, values, ptr) != 0 ||
      (memoryType != kMemoryTypeDevice && memoryType != kMemoryTypeUnified))
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    what() + ": data pointer is not device memory");
  if (size == 0)
    return SC_OK; // not every allocator reports ranges; nothing more to check
  uint64_t bytes; // validateCall has checked that this does not overflow
  if (!tensorBytes(t.dtype, t.shape, t.rank, bytes) ||
      ptr < start || bytes > size - (ptr - start))
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    what() + ": " + std::to_string(bytes) +
                        " bytes do not fit the allocation (" +
                        std::to_string(start + size - ptr) + " bytes left)");
  return SC_OK;
}

scStatus checkIndices(Driver *d, const TensorSpec &spec, const scTensor &t,
                      const DimBindings &dims, CUstream stream) {
  int64_t bound = dims.at(spec.indexInto);
  std::vector<int32_t> host(static_cast<size_t>(t.shape[0]));
  SC_CUDA_CHECK(d, d->cuStreamSynchronize(stream));
  SC_CUDA_CHECK(d, d->cuMemcpyDtoH(host.data(),
                                   reinterpret_cast<CUdeviceptr>(t.data),
                                   host.size() * sizeof(int32_t)));
  for (size_t i = 0; i < host.size(); ++i)
    if (host[i] < 0 || host[i] >= bound)
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "index '" + spec.name + "'[" + std::to_string(i) +
                          "] = " + std::to_string(host[i]) +
                          " is outside [0, " + spec.indexInto + " = " +
                          std::to_string(bound) + ")");
  return SC_OK;
}

} // namespace

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" {


scStatus scModuleLoad(const char *dir, scModule **module) {
  if (!dir || !module)
    return setError(SC_ERROR_INVALID_ARGUMENT, "scModuleLoad: null argument");
  *module = nullptr;
  return guarded("scModuleLoad", [&] {
    std::string text;
    std::string path = std::string(dir) + "/manifest.json";
    std::string error;
    if (!readArtifactFile(dir, "manifest.json", kMaxManifestBytes, text, error))
      return setError(SC_ERROR_NOT_FOUND, error);
    auto m = std::make_unique<scModule>();
    m->dir = dir;
    m->artifactHash = contentHash(text);
    // Tuning from the environment (scSetTuning's defaults).
    if (const char *file = std::getenv("SPARCAST_TUNE_CACHE"))
      m->tuneFile = file;
    if (const char *tune = std::getenv("SPARCAST_TUNE"))
      m->tune = std::string(tune) == "1";
    if (!parseManifest(text, m->manifest, error))
      return setError(SC_ERROR_MANIFEST, path + ": " + error);
    // Every kernel file is there, inside the folder, and read before any
    // run.
    for (const ModuleSpec &spec : m->manifest.modules)
      for (const std::string *file : {&spec.ptxFile, &spec.cubinFile}) {
        if (file->empty() || m->images.count(*file))
          continue;
        if (!readArtifactFile(dir, *file, kMaxKernelImageBytes,
                              m->images[*file], error))
          return setError(SC_ERROR_NOT_FOUND, error);
      }
    *module = m.release();
    clearError();
    return SC_OK;
  });
}

void scModuleDestroy(scModule *module) { delete module; }

int32_t scModuleNumEntries(const scModule *module) {
  return module ? static_cast<int32_t>(module->manifest.entries.size()) : 0;
}

const char *scModuleEntryName(const scModule *module, int32_t i) {
  if (!module || i < 0 ||
      i >= static_cast<int32_t>(module->manifest.entries.size()))
    return nullptr;
  return module->manifest.entries[i].name.c_str();
}

/// Finds `entry`, checks the call and binds its dims.
/// The spec of `entry` in `module`.
static scStatus findEntry(scModule *module, const char *entry,
                          const EntrySpec *&spec) {
  if (!module || !entry)
    return setError(SC_ERROR_INVALID_ARGUMENT, "null module or entry name");
  spec = module->manifest.findEntry(entry);
  if (!spec)
    return setError(SC_ERROR_NOT_FOUND,
                    std::string("no entry named '") + entry + "'");
  return SC_OK;
}

static scStatus bindCall(scModule *module, const char *entry,
                         const scTensor *args, int32_t numArgs,
                         const scTensor *results, int32_t numResults,
                         const EntrySpec *&spec, DimBindings &dims) {
  if (scStatus s = findEntry(module, entry, spec))
    return s;
  std::string error;
  if (!validateCall(*spec, args, numArgs, results, numResults, dims, error))
    return setError(SC_ERROR_INVALID_ARGUMENT, error);
  clearError();
  return SC_OK;
}

scStatus scValidate(scModule *module, const char *entry, const scTensor *args,
                    int32_t numArgs, const scTensor *results,
                    int32_t numResults) {
  return guarded("scValidate", [&] {
    const EntrySpec *spec;
    DimBindings dims;
    return bindCall(module, entry, args, numArgs, results, numResults, spec,
                    dims);
  });
}

scStatus scWorkspaceBytes(scModule *module, const char *entry,
                          const scTensor *args, int32_t numArgs,
                          const scTensor *results, int32_t numResults,
                          uint64_t *bytes) {
  if (!bytes)
    return setError(SC_ERROR_INVALID_ARGUMENT, "scWorkspaceBytes: null bytes");
  return guarded("scWorkspaceBytes", [&] {
    const EntrySpec *spec;
    DimBindings dims;
    if (scStatus s = bindCall(module, entry, args, numArgs, results,
                              numResults, spec, dims))
      return s;
    *bytes = layoutWorkspace(*spec, dims).bytes;
    return SC_OK;
  });
}

scStatus scResultShape(scModule *module, const char *entry,
                       const scTensor *args, int32_t numArgs,
                       int32_t resultIndex, int32_t *rank, int64_t *shape) {
  if (!rank || !shape)
    return setError(SC_ERROR_INVALID_ARGUMENT, "scResultShape: null rank or shape");
  return guarded("scResultShape", [&] {
    const EntrySpec *spec;
    if (scStatus s = findEntry(module, entry, spec))
      return s;
    DimBindings dims;
    std::vector<int64_t> sizes;
    std::string error;
    if (!bindArguments(*spec, args, numArgs, dims, error) ||
        !resultShape(*spec, dims, resultIndex, sizes, error))
      return setError(SC_ERROR_INVALID_ARGUMENT, error);
    *rank = static_cast<int32_t>(sizes.size());
    std::copy(sizes.begin(), sizes.end(), shape);
    clearError();
    return SC_OK;
  });
}

/// Launches `launch` on `stream` with the call's tensors and dims.
static scStatus launchKernel(scModule *module, Driver *d, const LaunchSpec &launch,
                             const std::map<std::string, const scTensor *> &tensors,
                             const DimBindings &dims, CUstream cuStream) {
  CUfunction f;
  if (scStatus s = getFunction(module, launch, f))
    return s;
  SC_TRACE("function " + launch.kernel + " ready");
  // Kernel parameters: tensor maps by value (128 bytes each), memrefs
  // expanded as MLIR's calling convention does (allocated, aligned,
  // offset, sizes, strides), dims as 64-bit index values. `slots` says
  // where each parameter's value is, once `words` and `maps` stop
  // growing: a word (>= 0) or a map (-1 - index).
  std::vector<uint64_t> words;
  std::vector<CUtensorMap> maps;
  std::vector<int64_t> slots;
  words.reserve(64);
  maps.reserve(launch.params.size());
  auto addWord = [&](uint64_t w) {
    slots.push_back(static_cast<int64_t>(words.size()));
    words.push_back(w);
  };
  for (size_t i = 0; i < launch.params.size(); ++i) {
    const ParamSpec &p = launch.params[i];
    if (p.kind == ParamSpec::Kind::Dim) {
      addWord(static_cast<uint64_t>(p.dim.evaluate(dims)));
      continue;
    }
    if (p.kind == ParamSpec::Kind::LogLinearTables) {
      CUdeviceptr table;
      int64_t elements;
      if (scStatus s = getMaskTables(module, p, dims, table, elements))
        return s;
      // A 1-D memref descriptor: allocated, aligned, offset, size, stride.
      for (uint64_t word : {uint64_t(table), uint64_t(table), uint64_t(0),
                            uint64_t(elements), uint64_t(1)})
        addWord(word);
      continue;
    }
    const scTensor &t = *tensors.at(p.tensor);
    if (p.kind == ParamSpec::Kind::Tma) {
      CUtensorMap &map = maps.emplace_back();
      if (scStatus s = getTensorMap(module, launch, i, p, t, dims, map))
        return s;
      SC_TRACE("tensor map for " + p.tensor + " encoded");
      slots.push_back(-1 - static_cast<int64_t>(maps.size() - 1));
      continue;
    }
    uint64_t data = reinterpret_cast<uint64_t>(t.data);
    addWord(data);
    addWord(data);
    addWord(0);
    for (int32_t r = 0; r < t.rank; ++r)
      addWord(static_cast<uint64_t>(t.shape[r]));
    uint64_t stride = 1;
    std::vector<uint64_t> strides(t.rank);
    for (int32_t r = t.rank - 1; r >= 0; --r) {
      strides[r] = stride;
      stride *= static_cast<uint64_t>(t.shape[r]);
    }
    for (uint64_t each : strides)
      addWord(each);
  }
  std::vector<void *> params;
  for (int64_t slot : slots)
    params.push_back(slot >= 0 ? static_cast<void *>(&words[slot])
                               : static_cast<void *>(&maps[-1 - slot]));
  SC_TRACE("launching " + launch.kernel + " with " +
        std::to_string(params.size()) + " parameters");
  unsigned grid[3];
  for (int i = 0; i < 3; ++i)
    grid[i] = static_cast<unsigned>(launch.grid[i].evaluate(dims));
  SC_CUDA_CHECK(d, d->cuLaunchKernel(
                       f, grid[0], grid[1], grid[2],
                       static_cast<unsigned>(launch.block[0]),
                       static_cast<unsigned>(launch.block[1]),
                       static_cast<unsigned>(launch.block[2]),
                       static_cast<unsigned>(launch.sharedBytes), cuStream,
                       params.data(), nullptr));
  return SC_OK;
}

/// The bytes flushed from L2 before a measured run (more than any
/// Hopper's L2), and the runs a measurement takes the median of.
constexpr size_t kFlushBytes = 128u << 20;
constexpr int kTimedRuns = 5;

/// The GPU, driver and artifact a tuned choice is valid for (asked of
/// the driver once a device).
static scStatus tuneScope(scModule *module, Driver *d, TuneCache::Scope &scope) {
  CUdevice dev;
  SC_CUDA_CHECK(d, d->cuCtxGetDevice(&dev));
  auto known = module->tuneScopes.find(dev);
  if (known == module->tuneScopes.end()) {
    TuneCache::Scope fresh;
    char name[256] = {0};
    SC_CUDA_CHECK(d, d->cuDeviceGetName(name, sizeof name - 1, dev));
    SC_CUDA_CHECK(d, d->cuDriverGetVersion(&fresh.driver));
    fresh.gpu = name;
    fresh.artifact = module->artifactHash;
    known = module->tuneScopes.emplace(dev, fresh).first;
  }
  scope = known->second;
  return SC_OK;
}

/// The median time (microseconds) of alternative `choice` of `group`:
/// its launches run once to warm up, then kTimedRuns times, each after
/// L2 is flushed, between events on the call's stream.
static scStatus timeAlternative(scModule *module, Driver *d,
                                const EntrySpec &spec, int group, int choice,
                                const std::map<std::string, const scTensor *> &tensors,
                                const DimBindings &dims, CUstream stream,
                                double &us) {
  auto run = [&]() -> scStatus {
    for (const LaunchSpec &launch : spec.launches)
      if (launch.tuneGroup == group && launch.tuneChoice == choice)
        if (scStatus s = launchKernel(module, d, launch, tensors, dims, stream))
          return s;
    return SC_OK;
  };
  if (scStatus s = run())
    return s;
  if (!module->flushBuffer) {
    SC_CUDA_CHECK(d, d->cuMemAlloc(&module->flushBuffer, kFlushBytes));
    module->flushBytes = kFlushBytes;
  }
  CUevent start = nullptr, stop = nullptr;
  SC_CUDA_CHECK(d, d->cuEventCreate(&start, 0));
  if (CUresult r = d->cuEventCreate(&stop, 0)) {
    d->cuEventDestroy(start);
    return setError(SC_ERROR_CUDA, "cuEventCreate failed with " + cudaErrorText(d, r));
  }
  std::vector<double> times;
  scStatus status = SC_OK;
  for (int i = 0; i < kTimedRuns && status == SC_OK; ++i) {
    float ms = 0;
    CUresult r = d->cuMemsetD8Async(module->flushBuffer, 0, module->flushBytes, stream);
    if (!r)
      r = d->cuEventRecord(start, stream);
    if (!r && (status = run()) != SC_OK)
      break;
    if (!r)
      r = d->cuEventRecord(stop, stream);
    if (!r)
      r = d->cuEventSynchronize(stop);
    if (!r)
      r = d->cuEventElapsedTime(&ms, start, stop);
    if (r)
      status = setError(SC_ERROR_CUDA, "timing a dispatch's alternative failed with " +
                                           cudaErrorText(d, r));
    times.push_back(1000.0 * ms);
  }
  d->cuEventDestroy(start);
  d->cuEventDestroy(stop);
  if (status != SC_OK)
    return status;
  std::sort(times.begin(), times.end());
  us = times[times.size() / 2];
  return SC_OK;
}

/// For each dispatch (tune group) of the entry, the alternative to run:
/// the tuning cache's for the call's shape bucket; with tuning on and
/// none cached, each alternative measured and the fastest cached (and
/// written to the cache file). A group with neither is left out of
/// `chosen`: its launches' conditions decide.
static scStatus chooseAlternatives(scModule *module, Driver *d,
                                   const EntrySpec &spec,
                                   const std::map<std::string, const scTensor *> &tensors,
                                   const DimBindings &dims, CUstream stream,
                                   std::map<int, int> &chosen) {
  if (!module->tune && module->tuneFile.empty())
    return SC_OK;
  std::map<int, int> alternatives; // group -> its number of choices
  for (const LaunchSpec &launch : spec.launches)
    if (launch.tuneGroup >= 0)
      alternatives[launch.tuneGroup] =
          std::max(alternatives[launch.tuneGroup], launch.tuneChoice + 1);
  if (alternatives.empty())
    return SC_OK;
  std::string error;
  if (!module->tuneFileRead && !module->tuneFile.empty()) {
    if (!module->tuned.load(module->tuneFile, error))
      return setError(SC_ERROR_INVALID_ARGUMENT, error);
    module->tuneFileRead = true;
  }
  TuneCache::Scope scope;
  if (scStatus s = tuneScope(module, d, scope))
    return s;
  // (SMS is the device's, not the call's.)
  std::string bucket = shapeBucket(dims, "SMS");
  bool measured = false;
  for (const auto &[group, count] : alternatives) {
    if (std::optional<int> choice =
            module->tuned.lookup(scope, spec.name, group, bucket)) {
      if (*choice < count)
        chosen[group] = *choice;
      continue;
    }
    if (!module->tune)
      continue;
    TuneCache::Choice best;
    for (int c = 0; c < count; ++c) {
      double us = 0;
      if (scStatus s = timeAlternative(module, d, spec, group, c, tensors,
                                       dims, stream, us))
        return s;
      best.timesUs.push_back(us);
      if (us < best.timesUs[best.choice])
        best.choice = c;
    }
    SC_TRACE("tuned " + spec.name + " group " + std::to_string(group) + " at " +
             bucket + ": alternative " + std::to_string(best.choice));
    chosen[group] = best.choice;
    module->tuned.insert(scope, spec.name, group, bucket, best);
    measured = true;
  }
  if (measured && !module->tuneFile.empty() &&
      !module->tuned.save(module->tuneFile, error))
    return setError(SC_ERROR_INVALID_ARGUMENT, error);
  return SC_OK;
}
static scStatus runImpl(scModule *module, const char *entry,
                        const scTensor *args, int32_t numArgs,
                        const scTensor *results, int32_t numResults,
                        void *callerWorkspace, uint64_t callerBytes,
                        bool useCallerWorkspace, void *stream, uint32_t flags) {
  const EntrySpec *entrySpec;
  DimBindings dims;
  if (scStatus s = bindCall(module, entry, args, numArgs, results, numResults,
                            entrySpec, dims))
    return s;
  const EntrySpec &spec = *entrySpec;
  std::string error;
  WorkspaceLayout layout = layoutWorkspace(spec, dims);
  if (useCallerWorkspace && layout.bytes) {
    if (!callerWorkspace || callerBytes < layout.bytes)
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "entry '" + spec.name + "' needs a workspace of " +
                          std::to_string(layout.bytes) + " bytes, got " +
                          std::to_string(callerBytes));
    if (reinterpret_cast<uintptr_t>(callerWorkspace) % 256 != 0)
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "the workspace must be 256-byte aligned");
  }

  std::lock_guard<std::mutex> lock(module->mutex);
  Driver *d = getDriver(error);
  if (!d)
    return setError(SC_ERROR_UNSUPPORTED, error);
  module->driver = d;
  SC_TRACE("driver loaded");
  if (scStatus s = ensureContext(d))
    return s;
  SC_TRACE("context ready");
  CUstream cuStream = static_cast<CUstream>(stream);
  {
    CUdevice dev;
    SC_CUDA_CHECK(d, d->cuCtxGetDevice(&dev));
    auto known = module->smCounts.find(dev);
    if (known == module->smCounts.end()) {
      int sms = 0;
      SC_CUDA_CHECK(d, d->cuDeviceGetAttribute(&sms, kAttrSMCount, dev));
      known = module->smCounts.emplace(dev, sms).first;
    }
    dims["SMS"] = known->second;
  }

  std::map<std::string, const scTensor *> tensors;
  for (int32_t i = 0; i < numArgs; ++i) {
    tensors[spec.args[i].name] = &args[i];
    if (scStatus s = checkDeviceExtent(d, args[i], "argument", spec.args[i].name))
      return s;
    if ((flags & SC_RUN_CHECK_INDICES) && !spec.args[i].indexInto.empty())
      if (scStatus s = checkIndices(d, spec.args[i], args[i], dims, cuStream))
        return s;
  }
  for (int32_t i = 0; i < numResults; ++i) {
    tensors[spec.results[i].name] = &results[i];
    if (scStatus s = checkDeviceExtent(d, results[i], "result", spec.results[i].name))
      return s;
  }
  // Intermediates: views into the workspace.
  CUdeviceptr base = reinterpret_cast<CUdeviceptr>(callerWorkspace);
  if (!useCallerWorkspace && layout.bytes) {
    if (module->workspaceBytes < layout.bytes) {
      CUdeviceptr grown;
      SC_CUDA_CHECK(d, d->cuMemAlloc(&grown, layout.bytes));
      module->workspaces.push_back(grown);
      module->workspaceBytes = layout.bytes;
    }
    base = module->workspaces.back();
  }
  std::vector<scTensor> workspaceTensors(spec.workspace.size());
  for (size_t i = 0; i < spec.workspace.size(); ++i) {
    const TensorSpec &t = spec.workspace[i];
    scTensor &w = workspaceTensors[i];
    w.data = reinterpret_cast<void *>(base + layout.offsets[i]);
    w.dtype = t.dtype;
    w.rank = static_cast<int32_t>(t.shape.size());
    for (size_t r = 0; r < t.shape.size(); ++r)
      w.shape[r] = t.shape[r].evaluate(dims);
    tensors[t.name] = &w;
  }
  // Views: another shape of an argument's, a result's or a workspace
  // tensor's buffer, of as many elements (checked: a view never reaches
  // past its buffer).
  std::vector<scTensor> viewTensors(spec.views.size());
  for (size_t i = 0; i < spec.views.size(); ++i) {
    const TensorSpec &t = spec.views[i];
    const scTensor &of = *tensors.at(t.viewOf);
    scTensor &v = viewTensors[i];
    v = of;
    v.rank = static_cast<int32_t>(t.shape.size());
    for (size_t r = 0; r < t.shape.size(); ++r)
      v.shape[r] = t.shape[r].evaluate(dims);
    uint64_t viewBytes, ofBytes;
    if (!tensorBytes(v.dtype, v.shape, v.rank, viewBytes) ||
        !tensorBytes(of.dtype, of.shape, of.rank, ofBytes) || viewBytes != ofBytes)
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "entry '" + spec.name + "': view " + t.name + " of " +
                          t.viewOf + " does not cover its elements for these dims");
    tensors[t.name] = &v;
  }
  // Each dispatch's alternative: as tuned (measured now, before the
  // zeroing below, or earlier and cached), else as its conditions say.
  std::map<int, int> chosen;
  if (scStatus s = chooseAlternatives(module, d, spec, tensors, dims, cuStream,
                                      chosen))
    return s;
  // Tensors the kernels accumulate into (a workspace of partial sums, a
  // selection's counts) start at zero on every call, stream-ordered before
  // the kernels, once every check has passed.
  for (const std::vector<TensorSpec> *specs : {&spec.results, &spec.workspace})
    for (const TensorSpec &t : *specs) {
      if (!t.zeroInit)
        continue;
      const scTensor &z = *tensors.at(t.name);
      uint64_t bytes;
      if (!tensorBytes(z.dtype, z.shape, z.rank, bytes))
        return setError(SC_ERROR_INVALID_ARGUMENT,
                        "entry '" + spec.name + "': " + t.name + " too large");
      SC_CUDA_CHECK(d, d->cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(z.data),
                                          0, bytes, cuStream));
    }
  SC_TRACE("arguments are device memory");
  for (const LaunchSpec &launch : spec.launches) {
    auto tuned = chosen.find(launch.tuneGroup);
    bool runs = tuned != chosen.end()
                    ? launch.tuneChoice == tuned->second
                    : launch.tuneFallback && launch.runsWith(dims);
    if (!runs)
      continue; // another alternative of a dispatch runs
    if (scStatus s = launchKernel(module, d, launch, tensors, dims, cuStream))
      return s;
  }
  clearError();
  return SC_OK;
}


scStatus scSetTuning(scModule *module, int32_t mode, const char *cacheFile) {
  if (!module || mode < 0 || mode > 1)
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    "scSetTuning: a module and a mode of 0 or 1");
  std::lock_guard<std::mutex> lock(module->mutex);
  module->tune = mode == 1;
  std::string file = cacheFile ? cacheFile : "";
  if (file != module->tuneFile) {
    module->tuneFile = file;
    module->tuneFileRead = false;
  }
  clearError();
  return SC_OK;
}

scStatus scLogLinearTables(int64_t queryLength, int64_t keyLength,
                           int64_t blockSize, int64_t localWidth,
                           uint32_t anchors, int32_t causal, int32_t *offsets,
                           int32_t *indices, int64_t indicesCapacity,
                           int64_t *numIndices) {
  if (!offsets || !numIndices)
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    "scLogLinearTables: null offsets or numIndices");
  if (blockSize < 16 || blockSize > 1024 || (blockSize & (blockSize - 1)))
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    "block size must be a power of two in [16, 1024], got " +
                        std::to_string(blockSize));
  if (queryLength <= 0 || keyLength <= 0 || localWidth < 0)
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    "lengths must be positive and the local width "
                    "non-negative");
  if (queryLength / blockSize >= sparcast::kMaxMaskBlocks ||
      keyLength / blockSize >= sparcast::kMaxMaskBlocks)
    return setError(SC_ERROR_INVALID_ARGUMENT,
                    "lengths of at most 2^24 blocks, got " +
                        std::to_string(queryLength) + " and " +
                        std::to_string(keyLength) + " tokens in blocks of " +
                        std::to_string(blockSize));
  sparcast::LogLinearParams params;
  params.localWidth = localWidth;
  params.anchorFirst = anchors & 1u;
  params.anchorMiddle = anchors & 2u;
  params.anchorLast = anchors & 4u;
  params.causal = causal != 0;
  int64_t queryBlocks = (queryLength + blockSize - 1) / blockSize;
  int64_t keyBlocks = (keyLength + blockSize - 1) / blockSize;
  int64_t count = 0;
  offsets[0] = 0;
  for (int64_t q = 0; q < queryBlocks; ++q) {
    std::vector<int64_t> kept =
        sparcast::logLinearKeptBlocks(q, keyBlocks, params);
    if (kept.empty())
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "query block " + std::to_string(q) +
                          " keeps no key block");
    if (count + static_cast<int64_t>(kept.size()) > INT32_MAX)
      return setError(SC_ERROR_INVALID_ARGUMENT,
                      "the tables would hold more than 2^31 - 1 blocks");
    for (int64_t k : kept) {
      if (indices) {
        if (count >= indicesCapacity)
          return setError(SC_ERROR_INVALID_ARGUMENT,
                          "indices capacity " +
                              std::to_string(indicesCapacity) +
                              " is too small");
        indices[count] = static_cast<int32_t>(k);
      }
      ++count;
    }
    offsets[q + 1] = static_cast<int32_t>(count);
  }
  *numIndices = count;
  clearError();
  return SC_OK;
}

scStatus scRun(scModule *module, const char *entry, const scTensor *args,
               int32_t numArgs, const scTensor *results, int32_t numResults,
               void *stream, uint32_t flags) {
  return guarded("scRun", [&] {
    return runImpl(module, entry, args, numArgs, results, numResults, nullptr,
                   0, /*useCallerWorkspace=*/false, stream, flags);
  });
}

scStatus scRunWithWorkspace(scModule *module, const char *entry,
                            const scTensor *args, int32_t numArgs,
                            const scTensor *results, int32_t numResults,
                            void *workspace, uint64_t workspaceBytes,
                            void *stream, uint32_t flags) {
  return guarded("scRunWithWorkspace", [&] {
    return runImpl(module, entry, args, numArgs, results, numResults,
                   workspace, workspaceBytes, /*useCallerWorkspace=*/true,
                   stream, flags);
  });
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Device buffers and copies (DeviceMemory.h)
//===----------------------------------------------------------------------===//

namespace {
/// The driver with a current context, or a status.
scStatus readyDriver(Driver *&d) {
  std::string error;
  d = getDriver(error);
  if (!d)
    return setError(SC_ERROR_UNSUPPORTED, error);
  return ensureContext(d);
}

/// readyDriver, then the work queued on `stream` done.
scStatus waitForStream(Driver *&d, void *stream) {
  if (scStatus s = readyDriver(d))
    return s;
  SC_CUDA_CHECK(d, d->cuStreamSynchronize(static_cast<CUstream>(stream)));
  return SC_OK;
}
} // namespace

scStatus sparcast::rt::deviceMemoryInfo(size_t &free, size_t &total) {
  Driver *d;
  if (scStatus s = readyDriver(d))
    return s;
  SC_CUDA_CHECK(d, d->cuMemGetInfo(&free, &total));
  return SC_OK;
}

scStatus sparcast::rt::deviceAlloc(size_t bytes, void *&ptr) {
  Driver *d;
  if (scStatus s = readyDriver(d))
    return s;
  CUdeviceptr p = 0;
  SC_CUDA_CHECK(d, d->cuMemAlloc(&p, std::max<size_t>(bytes, 1)));
  ptr = reinterpret_cast<void *>(p);
  return SC_OK;
}

void sparcast::rt::deviceFree(void *ptr) {
  std::string error;
  if (Driver *d = getDriver(error); d && ptr)
    d->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
}

scStatus sparcast::rt::synchronize(void *stream) {
  Driver *d;
  return waitForStream(d, stream);
}

scStatus sparcast::rt::copyToDevice(void *dst, const void *src, size_t bytes,
                                    void *stream) {
  Driver *d;
  if (scStatus s = waitForStream(d, stream))
    return s;
  if (bytes)
    SC_CUDA_CHECK(d, d->cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src,
                                     bytes));
  return SC_OK;
}

scStatus sparcast::rt::copyToHost(void *dst, const void *src, size_t bytes,
                                  void *stream) {
  Driver *d;
  if (scStatus s = waitForStream(d, stream))
    return s;
  if (bytes)
    SC_CUDA_CHECK(d, d->cuMemcpyDtoH(
                         dst, reinterpret_cast<CUdeviceptr>(src), bytes));
  return SC_OK;
}

scStatus sparcast::rt::copyRowsToHost(void *dst, size_t dstPitch,
                                      const void *src, size_t srcPitch,
                                      size_t rowBytes, size_t rows,
                                      void *stream) {
  Driver *d;
  if (scStatus s = waitForStream(d, stream))
    return s;
  if (!rowBytes || !rows)
    return SC_OK;
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = kMemoryTypeDevice;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  copy.srcPitch = srcPitch;
  copy.dstMemoryType = kMemoryTypeHost;
  copy.dstHost = dst;
  copy.dstPitch = dstPitch;
  copy.WidthInBytes = rowBytes;
  copy.Height = rows;
  SC_CUDA_CHECK(d, d->cuMemcpy2D(&copy));
  return SC_OK;
}
