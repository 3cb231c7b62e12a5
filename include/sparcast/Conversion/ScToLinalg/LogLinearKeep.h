//===- LogLinearKeep.h - the log-linear mask's definition in IR -*- C++ -*-===//
//
// Shared by sc-lower-to-linalg (the op's reference semantics) and
// sc-test-execute-kernel-ir (the BSR tables of a kernel whose lengths are
// known only at run time).
//
//===----------------------------------------------------------------------===//

#ifndef SPARCAST_CONVERSION_SCTOLINALG_LOGLINEARKEEP_H
#define SPARCAST_CONVERSION_SCTOLINALG_LOGLINEARKEEP_H

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::sc::detail {

/// i1 "query block `qb` keeps key block `kb`" (index values) for a
/// log-linear mask over `numKeyBlocks` key blocks, computed from the
/// definition (not from the enumerated pattern), so that what enumerates it
/// can be checked against it.
Value buildLogLinearKeep(OpBuilder &b, Location loc, LogLinearMaskAttr mask,
                         Value qb, Value kb, Value numKeyBlocks);

} // namespace mlir::sc::detail

#endif // SPARCAST_CONVERSION_SCTOLINALG_LOGLINEARKEEP_H
