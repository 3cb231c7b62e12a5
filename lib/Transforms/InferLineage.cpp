//===- InferLineage.cpp - label every tensor value with its lineage -------===//

#include "sparcast/Analysis/LineageAnalysis.h"
#include "sparcast/Transforms/Passes.h"

#define DEBUG_TYPE "sc-infer-lineage"

namespace mlir::sc {
#define GEN_PASS_DEF_SCINFERLINEAGEPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScInferLineagePass
    : sc::impl::ScInferLineagePassBase<ScInferLineagePass> {
  using Base::Base;
  void runOnOperation() final {
    LineageAnalysis analysis(getOperation());
    if (analysis.hasConflicts())
      return signalPassFailure();
    // Collect, then annotate: the walk does not see its own changes.
    SmallVector<std::pair<Operation *, LineageKind>> labels;
    getOperation()->walk([&](Operation *op) {
      if (op->getNumResults() != 1)
        return;
      if (std::optional<LineageKind> l = analysis.lookup(op->getResult(0)))
        labels.push_back({op, *l});
    });
    MLIRContext *ctx = &getContext();
    for (auto [op, kind] : labels) {
      op->setAttr(ScDialect::getLineageAttrName(),
                  LineageKindAttr::get(ctx, kind));
      if (remarks)
        op->emitRemark() << "lineage: " << stringifyLineageKind(kind);
    }
  }
};
} // namespace
