//===- MaskPatterns.h - block patterns of attention masks -------*- C++ -*-===//
//
// The log-linear pattern as a plain function, shared by the attribute, the
// reference lowering's tests and (later) the mask materialization.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_DIALECT_SC_IR_MASKPATTERNS_H
#define SPARCAST_DIALECT_SC_IR_MASKPATTERNS_H

#include "llvm/ADT/SmallVector.h"
#include <cstdint>

namespace mlir::sc {

struct LogLinearParams {
  int64_t localWidth = 1;
  bool anchorFirst = true;
  bool anchorMiddle = true;
  bool anchorLast = true;
  bool causal = false;
};

/// Sorted, distinct key blocks (in block units, never tokens) that query
/// block `queryBlock` keeps under the log-linear pattern, for a key sequence
/// of `numKeyBlocks` blocks. O(log n) work.
llvm::SmallVector<int64_t> logLinearKeptBlocks(int64_t queryBlock,
                                               int64_t numKeyBlocks,
                                               const LogLinearParams &params);

} // namespace mlir::sc

#endif // SPARCAST_DIALECT_SC_IR_MASKPATTERNS_H
