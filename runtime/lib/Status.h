//===- Status.h - the runtime's statuses and last-error message -*- C++ -*-===//
#ifndef SPARCAST_RUNTIME_STATUS_H
#define SPARCAST_RUNTIME_STATUS_H

#include "sparcast/runtime.h"

#include <new>
#include <stdexcept>
#include <string>

namespace sparcast::rt {

/// Records `message` for scGetLastError on this thread; returns `status`.
scStatus setError(scStatus status, const std::string &message);
/// Clears this thread's message (a call that succeeds leaves none).
void clearError();

/// Runs a C entry point's body: no C++ exception crosses the C API.
template <typename Body>
scStatus guarded(const char *function, Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return setError(SC_ERROR_INTERNAL, std::string(function) + ": out of memory");
  } catch (const std::exception &e) {
    return setError(SC_ERROR_INTERNAL,
                    std::string(function) + ": internal error: " + e.what());
  } catch (...) {
    return setError(SC_ERROR_INTERNAL,
                    std::string(function) + ": internal error");
  }
}

} // namespace sparcast::rt

#endif // SPARCAST_RUNTIME_STATUS_H
