//===- DeviceMemory.h - device buffers and copies for host-side drivers ---===//
//
// What a C entry that streams work through the GPU (scSimilarity) needs of
// the driver, which Runtime.cpp loads: buffers, blocking copies, free
// memory. Each makes the context current first and returns a status with a
// message naming the driver call that failed.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_RUNTIME_DEVICEMEMORY_H
#define SPARCAST_RUNTIME_DEVICEMEMORY_H

#include "sparcast/runtime.h"

#include <cstddef>
#include <cstdint>

namespace sparcast::rt {

/// Free and total device memory of the current context's device.
scStatus deviceMemoryInfo(size_t &free, size_t &total);
scStatus deviceAlloc(size_t bytes, void *&ptr);
void deviceFree(void *ptr);
/// Waits for the work queued on `stream` (a CUstream, or null).
scStatus synchronize(void *stream);
/// Blocking copies; they wait for `stream` first.
scStatus copyToDevice(void *dst, const void *src, size_t bytes, void *stream);
scStatus copyToHost(void *dst, const void *src, size_t bytes, void *stream);
/// The first `rowBytes` of each of `rows` rows `srcPitch` apart on the
/// device, into rows `dstPitch` apart on the host.
scStatus copyRowsToHost(void *dst, size_t dstPitch, const void *src,
                        size_t srcPitch, size_t rowBytes, size_t rows,
                        void *stream);

} // namespace sparcast::rt

#endif // SPARCAST_RUNTIME_DEVICEMEMORY_H
