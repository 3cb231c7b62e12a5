//===- ScOps.h - ops of the sc dialect --------------------------*- C++ -*-===//
#ifndef SPARCAST_DIALECT_SC_IR_SCOPS_H
#define SPARCAST_DIALECT_SC_IR_SCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "sparcast/Dialect/SC/IR/ScDialect.h"

#define GET_OP_CLASSES
#include "sparcast/Dialect/SC/IR/ScOps.h.inc"

#endif // SPARCAST_DIALECT_SC_IR_SCOPS_H
