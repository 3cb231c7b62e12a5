//===- LineageAnalysis.cpp - batch lineage of every value -----------------===//
//
// A forward walk in program order: functions here are straight-line tensor
// programs (the lineage of a value defined in a region is the join of the
// values the op reads).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Analysis/LineageAnalysis.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::sc;

LineageAnalysis::LineageAnalysis(Operation *root) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      if (func.isExternal())
        return;
      for (auto [i, arg] : llvm::enumerate(func.getArguments()))
        if (auto attr = func.getArgAttrOfType<LineageKindAttr>(
                i, ScDialect::getLineageAttrName()))
          lineage[arg] = attr.getValue();
      return;
    }
    visit(op);
  });
}

std::optional<LineageKind> LineageAnalysis::lookup(Value v) const {
  auto it = lineage.find(v);
  if (it == lineage.end())
    return std::nullopt;
  return it->second;
}

static StringRef describe(LineageKind kind) {
  switch (kind) {
  case LineageKind::request:
    return "request-batched";
  case LineageKind::candidate:
  case LineageKind::index:
    return "candidate-batched";
  case LineageKind::gathered:
    return "gathered (candidate-batched)";
  case LineageKind::shared:
    return "shared";
  }
  return "";
}

/// The join of the operands' lineages: shared and unknown values take the
/// lineage of the others; candidate and gathered rows join to candidate;
/// request with any candidate-batched value is a conflict.
std::optional<LineageKind> LineageAnalysis::joinOperands(Operation *op,
                                                         ValueRange operands) {
  std::optional<LineageKind> result;
  int64_t resultOperand = -1;
  for (auto [i, v] : llvm::enumerate(operands)) {
    std::optional<LineageKind> l = lookup(v);
    if (!l || *l == LineageKind::shared)
      continue;
    if (!result || *result == *l) {
      if (!result)
        resultOperand = i;
      result = *l;
      continue;
    }
    bool lCand = isCandidateBatched(*l), rCand = isCandidateBatched(*result);
    if (lCand && rCand) {
      result = LineageKind::candidate;
      continue;
    }
    op->emitError() << "mixes a " << describe(*result) << " value (operand #"
                    << resultOperand << ") with a " << describe(*l)
                    << " value (operand #" << i
                    << ") along the batch dim; broadcast the request value "
                       "with sc.gather_rows first";
    conflicts = true;
    return std::nullopt;
  }
  if (!result && !operands.empty() &&
      llvm::all_of(operands, [&](Value v) {
        std::optional<LineageKind> l = lookup(v);
        return l && *l == LineageKind::shared;
      }))
    return LineageKind::shared;
  return result;
}

void LineageAnalysis::visit(Operation *op) {
  std::optional<LineageKind> result;
  if (auto gather = dyn_cast<GatherRowsOp>(op)) {
    std::optional<LineageKind> src = lookup(gather.getSource());
    if (src && isCandidateBatched(*src)) {
      op->emitError() << "gathers a " << describe(*src)
                      << " tensor through the candidate->request index; its "
                         "source must be request-batched";
      conflicts = true;
      return;
    }
    result = LineageKind::gathered;
  } else if (auto matmul = dyn_cast<BatchMatmulOp>(op)) {
    // A rank-3 operand is batched along dim 0, a rank-2 one is the same for
    // every batch element: a shared batched operand, or a request- or
    // candidate-batched weight, contradicts its own shape.
    for (auto [i, v] : llvm::enumerate(
             ValueRange{matmul.getLhs(), matmul.getRhs()})) {
      std::optional<LineageKind> l = lookup(v);
      bool batched = cast<RankedTensorType>(v.getType()).getRank() == 3;
      if (l && batched && *l == LineageKind::shared &&
          cast<RankedTensorType>(v.getType()).isDynamicDim(0)) {
        op->emitError() << "multiplies operand #" << i
                        << " along a dynamic batch dim, but its lineage is "
                           "shared (one copy for every row): give it request "
                           "or candidate lineage";
        conflicts = true;
        return;
      }
      if (l && !batched && *l != LineageKind::shared) {
        op->emitError() << "multiplies operand #" << i << ", a "
                        << describe(*l)
                        << " tensor, as its unbatched (rank-2) operand: a "
                           "weight shared by every row must be shared";
        conflicts = true;
        return;
      }
    }
    // The epilogue operands are read at any indices (e.g. through the
    // index): only the multiplied operands set the batch.
    result = joinOperands(op, {matmul.getLhs(), matmul.getRhs()});
  } else if (auto attention = dyn_cast<AttentionOp>(op)) {
    if (attention.getIndex()) {
      std::optional<LineageKind> q = lookup(attention.getQuery());
      for (Value kv : {attention.getKey(), attention.getValue()}) {
        std::optional<LineageKind> l = lookup(kv);
        if (l && isCandidateBatched(*l)) {
          op->emitError() << "reads " << describe(*l)
                          << " keys/values through the index; they must be "
                             "request-batched";
          conflicts = true;
          return;
        }
      }
      if (q && *q == LineageKind::request) {
        op->emitError() << "indexes keys/values by candidate but its queries "
                           "are request-batched";
        conflicts = true;
        return;
      }
      result = q ? *q : LineageKind::candidate;
    } else {
      result = joinOperands(op, op->getOperands());
    }
  } else {
    // An op with no results (func.return) only forwards its operands; they
    // keep their own lineages.
    if (op->getNumResults() == 0)
      return;
    SmallVector<Value> tensors;
    for (Value v : op->getOperands())
      if (isa<RankedTensorType>(v.getType()))
        tensors.push_back(v);
    if (tensors.empty())
      return;
    result = joinOperands(op, tensors);
  }
  if (!result)
    return;
  for (Value r : op->getResults())
    if (isa<RankedTensorType>(r.getType()))
      lineage[r] = *result;
}
