//===- GatherRows.h - sc.gather_rows as a linalg.generic --------*- C++ -*-===//
//
// Shared by sc-lower-to-linalg (the op's reference semantics) and
// sparcast-aot (a gather left in an entry runs as the generated kernel of
// this generic).
//
//===----------------------------------------------------------------------===//

#ifndef SPARCAST_CONVERSION_SCTOLINALG_GATHERROWS_H
#define SPARCAST_CONVERSION_SCTOLINALG_GATHERROWS_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::sc::detail {

/// `source[indices[b], ...]` as a linalg.generic over the result, each
/// element a `tensor.extract` of the index and one of the source.
Value buildGatherRows(ImplicitLocOpBuilder &b, Value source, Value indices);

} // namespace mlir::sc::detail

#endif // SPARCAST_CONVERSION_SCTOLINALG_GATHERROWS_H
