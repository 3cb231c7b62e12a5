//===- DropLineage.cpp - remove sc.lineage argument attributes ------------===//

#include "sparcast/Conversion/Passes.h"
#include "sparcast/Dialect/SC/IR/ScDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#define DEBUG_TYPE "sc-drop-lineage"

namespace mlir::sc {
#define GEN_PASS_DEF_SCDROPLINEAGEPASS
#include "sparcast/Conversion/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
struct ScDropLineagePass : sc::impl::ScDropLineagePassBase<ScDropLineagePass> {
  using Base::Base;
  void runOnOperation() final {
    getOperation()->walk([](FunctionOpInterface func) {
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        func.removeArgAttr(i, ScDialect::getLineageAttrName());
    });
  }
};
} // namespace
