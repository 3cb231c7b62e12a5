//===- MaterializeBlockMask.cpp - log-linear masks to block tables --------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Transforms/Transforms.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "sc-materialize-block-mask"

namespace mlir::sc {
#define GEN_PASS_DEF_SCMATERIALIZEBLOCKMASKPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

FailureOr<BlockSparseMaskAttr>
mlir::sc::materializeLogLinearMask(LogLinearMaskAttr mask, int64_t queryLength,
                                   int64_t keyLength) {
  if (ShapedType::isDynamic(queryLength) || ShapedType::isDynamic(keyLength))
    return failure();
  int64_t block = mask.getBlockSize();
  int64_t queryBlocks = llvm::divideCeil(queryLength, block);
  int64_t keyBlocks = llvm::divideCeil(keyLength, block);
  SmallVector<int32_t> offsets, indices;
  cast<BlockMaskAttrInterface>(mask).getBlockTables(queryBlocks, keyBlocks,
                                                    offsets, indices);
  return BlockSparseMaskAttr::get(mask.getContext(), block, keyBlocks, offsets,
                                  indices);
}

namespace {
struct ScMaterializeBlockMaskPass
    : sc::impl::ScMaterializeBlockMaskPassBase<ScMaterializeBlockMaskPass> {
  using Base::Base;
  void runOnOperation() final {
    getOperation()->walk([&](AttentionOp op) {
      auto mask = dyn_cast_or_null<LogLinearMaskAttr>(op.getMaskAttr());
      if (!mask)
        return;
      FailureOr<BlockSparseMaskAttr> table = materializeLogLinearMask(
          mask, op.getQuery().getType().getDimSize(2),
          op.getKey().getType().getDimSize(2));
      if (failed(table))
        return; // dynamic lengths: the pattern is evaluated later
      if (report) {
        size_t entries = table->getOffsets().size() + table->getIndices().size();
        int64_t pairs = table->getNumQueryBlocks() * table->getKeyBlocks();
        std::string density;
        llvm::raw_string_ostream(density)
            << llvm::format("%.1f", 100.0 * table->getIndices().size() / pairs);
        op.emitRemark() << "materialized " << table->getNumQueryBlocks()
                        << " query blocks x " << table->getKeyBlocks()
                        << " key blocks: " << table->getIndices().size()
                        << " kept blocks (" << density << "%), tables of "
                        << entries * 4 << " bytes";
      }
      op.setMaskAttr(*table);
    });
  }
};
} // namespace
