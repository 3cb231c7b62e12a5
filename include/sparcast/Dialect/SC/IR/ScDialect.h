//===- ScDialect.h - the Sparcast `sc` dialect ------------------*- C++ -*-===//
//
// Dialect, enums, attribute interfaces and attributes of `sc`.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_DIALECT_SC_IR_SCDIALECT_H
#define SPARCAST_DIALECT_SC_IR_SCDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "sparcast/Dialect/SC/IR/ScOpsDialect.h.inc"

#include "sparcast/Dialect/SC/IR/ScEnums.h.inc"

#include "sparcast/Dialect/SC/IR/ScAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sparcast/Dialect/SC/IR/ScAttrs.h.inc"

#endif // SPARCAST_DIALECT_SC_IR_SCDIALECT_H
