//===- ScDialect.cpp - the Sparcast `sc` dialect --------------------------===//
//
// Dialect registration and the verifier of its argument attributes (lineage,
// tensor maps).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Dialect/SC/IR/ScDialect.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::sc;

#include "sparcast/Dialect/SC/IR/ScOpsDialect.cpp.inc"

void ScDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sparcast/Dialect/SC/IR/ScOps.cpp.inc"
      >();
  registerAttributes();
}

/// `sc.lineage` on a function argument: a `#sc.lineage<...>` on a ranked
/// tensor whose shape fits the lineage. `sc.tensor_map` on a kernel
/// argument: a unit attribute on an LLVM pointer (the tensor map it points
/// to is passed by value).
LogicalResult ScDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  if (attr.getName() == getTensorMapAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getTensorMapAttrName()
                             << "' is a unit attribute, got " << attr.getValue();
    Region &region = op->getRegion(regionIndex);
    if (region.empty())
      return success();
    Type type = region.getArgument(argIndex).getType();
    if (!isa<LLVM::LLVMPointerType>(type))
      return op->emitError() << "argument #" << argIndex << " marked '"
                             << getTensorMapAttrName()
                             << "' must be an !llvm.ptr, got " << type;
    return success();
  }
  if (attr.getName() != getLineageAttrName())
    return op->emitError() << "unknown sc argument attribute '"
                           << attr.getName().getValue() << "'";
  auto lineage = dyn_cast<LineageKindAttr>(attr.getValue());
  if (!lineage)
    return op->emitError() << "'" << getLineageAttrName()
                           << "' expects a #sc.lineage attribute, got "
                           << attr.getValue();
  Region &region = op->getRegion(regionIndex);
  if (region.empty())
    return success(); // A declaration: nothing to check the types against.
  Type type = region.getArgument(argIndex).getType();
  // Tensors before bufferization, memrefs after.
  auto tensorType = dyn_cast<ShapedType>(type);
  if (!tensorType || !tensorType.hasRank() ||
      !isa<RankedTensorType, MemRefType>(type))
    return op->emitError() << "argument #" << argIndex << " with lineage "
                           << stringifyLineageKind(lineage.getValue())
                           << " must be a ranked tensor or memref, got "
                           << type;
  switch (lineage.getValue()) {
  case LineageKind::shared:
    return success();
  case LineageKind::request:
  case LineageKind::candidate:
  case LineageKind::gathered:
    if (tensorType.getRank() < 1)
      return op->emitError()
             << "argument #" << argIndex << " with lineage "
             << stringifyLineageKind(lineage.getValue())
             << " needs a batch dimension, got a rank-0 tensor";
    return success();
  case LineageKind::index:
    if (tensorType.getRank() != 1 ||
        !tensorType.getElementType().isSignlessInteger(32))
      return op->emitError() << "argument #" << argIndex
                             << " with lineage index must be a 1-D i32 tensor, got "
                             << type;
    return success();
  }
  return success();
}

/// Discardable sc attributes on ops: `sc.lineage`, the lineage
/// `sc-infer-lineage` found for the op's result; the kernel configuration
/// (`sc.gemm_schedule`, `sc.attention_config`); `sc.kernel_ir`, the op's
/// kernel-level function; `sc.kernel`, the kernel generated for it.
LogicalResult ScDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() == BatchMatmulOp::getScheduleAttrName()) {
    auto schedule = dyn_cast<GemmScheduleAttr>(attr.getValue());
    if (!isa<BatchMatmulOp>(op))
      return op->emitError() << "'" << BatchMatmulOp::getScheduleAttrName()
                             << "' applies to sc.batch_matmul only";
    if (!schedule)
      return op->emitError() << "'" << BatchMatmulOp::getScheduleAttrName()
                             << "' expects a #sc.gemm_schedule attribute, got "
                             << attr.getValue();
    if (schedule.getValue() == GemmSchedule::transposed) {
      std::string why = cast<BatchMatmulOp>(op).getTransposedTileLimitation();
      if (!why.empty())
        return op->emitError() << "the transposed schedule cannot take this "
                                  "GEMM: "
                               << why;
    }
    return success();
  }
  if (attr.getName() == AttentionOp::getConfigAttrName()) {
    if (!isa<AttentionOp>(op) || !isa<AttentionConfigAttr>(attr.getValue()))
      return op->emitError() << "'" << AttentionOp::getConfigAttrName()
                             << "' is a #sc.attention_config on sc.attention";
    return success();
  }
  if (attr.getName() == BatchMatmulOp::getKernelAttrName()) {
    if (!isa<BatchMatmulOp, AttentionOp>(op) ||
        !isa<FlatSymbolRefAttr>(attr.getValue()))
      return op->emitError() << "'" << BatchMatmulOp::getKernelAttrName()
                             << "' is a symbol reference on sc.batch_matmul "
                                "or sc.attention";
    return success();
  }
  if (attr.getName() == "sc.kernel") {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'sc.kernel' expects a string, got "
                             << attr.getValue();
    return success();
  }
  // An entry function's manifest entry (JSON), from sc-build-kernels.
  if (attr.getName() == "sc.manifest_entry") {
    if (!isa<func::FuncOp>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'sc.manifest_entry' is a string on a "
                                "func.func";
    return success();
  }
  if (attr.getName() != getLineageAttrName())
    return op->emitError() << "unknown sc attribute '"
                           << attr.getName().getValue() << "'";
  if (!isa<LineageKindAttr>(attr.getValue()))
    return op->emitError() << "'" << getLineageAttrName()
                           << "' expects a #sc.lineage attribute, got "
                           << attr.getValue();
  return success();
}
