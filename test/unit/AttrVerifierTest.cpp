//===- AttrVerifierTest.cpp - sc attributes through the C++ API -----------===//

#include "sparcast/Dialect/SC/IR/ScDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::sc;

namespace {

class ScAttrTest : public ::testing::Test {
protected:
  ScAttrTest() { context.loadDialect<ScDialect>(); }

  /// Parses `text`, returning the attribute and the diagnostics printed.
  Attribute parse(StringRef text, std::string &diagnostics) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostics += diag.str();
      return success();
    });
    return parseAttribute(text, &context);
  }

  MLIRContext context;
};

TEST_F(ScAttrTest, LogLinearDefaultsAndKeptBlocks) {
  std::string diags;
  auto mask = dyn_cast_or_null<LogLinearMaskAttr>(
      parse("#sc.log_linear<block_size = 128>", diags));
  ASSERT_TRUE(mask) << diags;
  EXPECT_EQ(mask.getLocalWidth(), 1);
  EXPECT_FALSE(mask.getCausal());
  auto iface = cast<BlockMaskAttrInterface>(mask);
  EXPECT_EQ(iface.getMaskBlockSize(), 128);
  // 8 blocks, block 0: local 0,1; strides 2,4; anchors 0,4,7.
  llvm::SmallVector<int64_t> want = {0, 1, 2, 4, 7};
  EXPECT_EQ(iface.getKeptKeyBlocks(0, 8, 8), want);
}

TEST_F(ScAttrTest, LogLinearRejectsBadBlockSize) {
  std::string diags;
  EXPECT_FALSE(parse("#sc.log_linear<block_size = 100>", diags));
  EXPECT_NE(diags.find("power of two"), std::string::npos) << diags;
}

TEST_F(ScAttrTest, BlockSparseRoundTripsThroughInterface) {
  std::string diags;
  auto mask = dyn_cast_or_null<BlockSparseMaskAttr>(parse(
      "#sc.block_sparse<block_size = 64, key_blocks = 3, offsets = [0, 2, 3], "
      "indices = [0, 2, 1]>",
      diags));
  ASSERT_TRUE(mask) << diags;
  auto iface = cast<BlockMaskAttrInterface>(mask);
  EXPECT_EQ(iface.getKeptKeyBlocks(0, 2, 3), (llvm::SmallVector<int64_t>{0, 2}));
  EXPECT_EQ(iface.getKeptKeyBlocks(1, 2, 3), (llvm::SmallVector<int64_t>{1}));
}

TEST_F(ScAttrTest, BlockSparseRejectsEmptyRow) {
  std::string diags;
  EXPECT_FALSE(parse("#sc.block_sparse<block_size = 64, key_blocks = 3, "
                     "offsets = [0, 1, 1], indices = [0]>",
                     diags));
  EXPECT_NE(diags.find("query block 1 keeps no key block"), std::string::npos)
      << diags;
}

TEST_F(ScAttrTest, HybridTilesKinds) {
  std::string diags;
  auto tiles = dyn_cast_or_null<HybridTilesAttr>(parse(
      "#sc.hybrid_tiles<tile = [64, 32], grid = [2, 2], kinds = \"dszd\">",
      diags));
  ASSERT_TRUE(tiles) << diags;
  EXPECT_EQ(tiles.getTileKind(0, 0), HybridTilesAttr::TileKind::dense);
  EXPECT_EQ(tiles.getTileKind(0, 1), HybridTilesAttr::TileKind::sparse24);
  EXPECT_EQ(tiles.getTileKind(1, 0), HybridTilesAttr::TileKind::zero);
}

} // namespace
