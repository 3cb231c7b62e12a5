//===- LineageAnalysis.h - batch lineage of every value ---------*- C++ -*-===//
//
// From the `sc.lineage` of function arguments, labels every tensor value
// with what its leading (batch) dim is indexed by: request, candidate,
// index, gathered (a request tensor broadcast to candidates through the
// index) or shared (no batch dim). Values it cannot tell stay unlabelled.
// Ops that mix request and candidate rows without going through the index
// are reported with a located error.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_ANALYSIS_LINEAGEANALYSIS_H
#define SPARCAST_ANALYSIS_LINEAGEANALYSIS_H

#include "sparcast/Dialect/SC/IR/ScDialect.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlir::sc {

class LineageAnalysis {
public:
  /// Analyzes every function under `root`; reports conflicts as errors.
  explicit LineageAnalysis(Operation *root);

  /// The lineage of `v`, or std::nullopt when unknown.
  std::optional<LineageKind> lookup(Value v) const;

  /// Whether some op mixed request and candidate rows.
  bool hasConflicts() const { return conflicts; }

  /// Whether rows of `kind` are indexed by candidate.
  static bool isCandidateBatched(LineageKind kind) {
    return kind == LineageKind::candidate || kind == LineageKind::gathered ||
           kind == LineageKind::index;
  }

private:
  void visit(Operation *op);
  std::optional<LineageKind> joinOperands(Operation *op, ValueRange operands);

  llvm::DenseMap<Value, LineageKind> lineage;
  bool conflicts = false;
};

} // namespace mlir::sc

#endif // SPARCAST_ANALYSIS_LINEAGEANALYSIS_H
