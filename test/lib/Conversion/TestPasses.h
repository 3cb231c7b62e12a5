//===- TestPasses.h - Sparcast test-only passes -----------------*- C++ -*-===//
#ifndef SPARCAST_TEST_LIB_CONVERSION_TESTPASSES_H
#define SPARCAST_TEST_LIB_CONVERSION_TESTPASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::sc {

#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

} // namespace mlir::sc

#endif // SPARCAST_TEST_LIB_CONVERSION_TESTPASSES_H
