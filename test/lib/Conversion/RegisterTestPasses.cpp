//===- RegisterTestPasses.cpp - register the test-only passes -------------===//
//
// Declared by the tools that take them (sparcast-opt, sparcast-equiv), as
// upstream mlir-opt declares its test registrations.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

namespace mlir::sc::test {
void registerTestPasses() { registerSparcastTestPasses(); }
} // namespace mlir::sc::test
