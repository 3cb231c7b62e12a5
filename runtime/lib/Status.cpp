//===- Status.cpp - the runtime's last-error message ----------------------===//

#include "Status.h"

namespace {
thread_local std::string lastError;
} // namespace

scStatus sparcast::rt::setError(scStatus status, const std::string &message) {
  lastError = message;
  return status;
}

void sparcast::rt::clearError() { lastError.clear(); }

const char *scGetLastError(void) { return lastError.c_str(); }
