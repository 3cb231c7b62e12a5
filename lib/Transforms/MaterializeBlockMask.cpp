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
  // Tables are attributes in the IR: past this many blocks a side (8M
  // tokens in blocks of 128) they would be hundreds of megabytes.
  static constexpr int64_t kMaxBlocks = int64_t(1) << 16;

  void runOnOperation() final {
    WalkResult result = getOperation()->walk([&](AttentionOp op) {
      auto mask = dyn_cast_or_null<LogLinearMaskAttr>(op.getMaskAttr());
      if (!mask)
        return WalkResult::advance();
      int64_t queryLength = op.getQuery().getType().getDimSize(2);
      int64_t keyLength = op.getKey().getType().getDimSize(2);
      for (int64_t length : {queryLength, keyLength})
        if (!ShapedType::isDynamic(length) &&
            llvm::divideCeil(length, mask.getBlockSize()) > kMaxBlocks) {
          op.emitOpError() << "cannot materialize a block mask over "
                           << length << " tokens: more than " << kMaxBlocks
                           << " blocks of " << mask.getBlockSize();
          return WalkResult::interrupt();
        }
      FailureOr<BlockSparseMaskAttr> table =
          materializeLogLinearMask(mask, queryLength, keyLength);
      if (failed(table))
        return WalkResult::advance(); // dynamic lengths: evaluated later
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
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
