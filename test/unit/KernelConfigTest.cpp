//===- KernelConfigTest.cpp - the attention kernel configuration rules ---===//
//
// chooseAttentionConfig decides the GPU kernel's walk, consumer warpgroups
// and key blocks (sc-select-kernel-config records them; sc-lower-to-sck and
// the kernel builder read them), so the rules are checked here case by case.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/InitAll.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>
#include <string>

using namespace mlir;
using namespace mlir::sc;

namespace {

class KernelConfigTest : public ::testing::Test {
protected:
  KernelConfigTest() {
    DialectRegistry registry;
    registerAllSparcastDialects(registry);
    context.appendDialectRegistry(registry);
  }

  /// The configuration `options` give an attention with query length
  /// `query` ("?" for dynamic), an index or not, `mask` (or ""), key length
  /// `keys` and element type `type`.
  AttentionConfigAttr config(const std::string &query, bool indexed,
                             const std::string &mask,
                             const std::string &keys = "2048",
                             const AttentionConfigOptions &options = {},
                             const std::string &type = "f16") {
    std::string q = "tensor<?x2x" + query + "x64x" + type + ">";
    std::string kv = "tensor<?x2x" + keys + "x64x" + type + ">";
    std::string source =
        "func.func @f(%q: " + q + ", %k: " + kv + ", %v: " + kv +
        ", %i: tensor<?xi32>) -> " + q + " {\n  %o = sc.attention %q, %k, %v" +
        (indexed ? " index %i" : "") + (mask.empty() ? "" : " mask(" + mask + ")") +
        " : " + q + ", " + kv + ", " + kv + (indexed ? ", tensor<?xi32>" : "") +
        " -> " + q + "\n  return %o : " + q + "\n}\n";
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return {};
    AttentionOp op;
    module->walk([&](AttentionOp a) { op = a; });
    return chooseAttentionConfig(op, options);
  }

  /// (consumers, key block) of that configuration.
  std::pair<int64_t, int64_t> tiling(const std::string &query, bool indexed,
                                     const std::string &mask,
                                     const std::string &keys = "2048") {
    AttentionConfigAttr c = config(query, indexed, mask, keys);
    return c ? std::make_pair(c.getConsumers(), c.getKeyBlock())
             : std::make_pair(int64_t(0), int64_t(0));
  }

  MLIRContext context;
};

TEST_F(KernelConfigTest, CandidatePairsShareKeyBlocksOf128) {
  // Two candidates of one request per CTA: an index, at most 64 rows, more
  // than 1024 keys or a dynamic number.
  EXPECT_EQ(tiling("64", true, ""), std::make_pair(int64_t(2), int64_t(128)));
  EXPECT_EQ(tiling("32", true, ""), std::make_pair(int64_t(2), int64_t(128)));
  EXPECT_EQ(tiling("64", true, "", "1025"), std::make_pair(int64_t(2), int64_t(128)));
  EXPECT_EQ(tiling("64", true, "", "?"), std::make_pair(int64_t(2), int64_t(128)));
}

TEST_F(KernelConfigTest, ShortHistoriesRunOneConsumerACandidate) {
  // At most 1024 keys: one consumer a candidate on 64-key blocks (two CTAs
  // an SM).
  EXPECT_EQ(tiling("64", true, "", "1024"), std::make_pair(int64_t(1), int64_t(64)));
  EXPECT_EQ(tiling("32", true, "", "256"), std::make_pair(int64_t(1), int64_t(64)));
}

TEST_F(KernelConfigTest, LongQueriesSplitTheirBlocksOf128Rows) {
  EXPECT_EQ(tiling("100", false, ""), std::make_pair(int64_t(2), int64_t(128)));
  EXPECT_EQ(tiling("100", true, ""), std::make_pair(int64_t(2), int64_t(128)));
  // A dynamic query length takes the split form too.
  EXPECT_EQ(tiling("?", false, ""), std::make_pair(int64_t(2), int64_t(128)));
}

TEST_F(KernelConfigTest, ShortQueriesRunOneConsumerOn64KeyBlocks) {
  EXPECT_EQ(tiling("64", false, ""), std::make_pair(int64_t(1), int64_t(64)));
  EXPECT_EQ(tiling("40", false, ""), std::make_pair(int64_t(1), int64_t(64)));
}

TEST_F(KernelConfigTest, MasksGiveTheirBlockSize) {
  // 128-token blocks: two consumers on the halves of a query block.
  EXPECT_EQ(tiling("256", false, "#sc.log_linear<block_size = 128>"),
            std::make_pair(int64_t(2), int64_t(128)));
  // 64-token blocks: one consumer per 64-row query block.
  EXPECT_EQ(tiling("256", false, "#sc.log_linear<block_size = 64>"),
            std::make_pair(int64_t(1), int64_t(64)));
  // Candidate pairs keep the mask's blocks.
  EXPECT_EQ(tiling("64", true, "#sc.log_linear<block_size = 64>"),
            std::make_pair(int64_t(2), int64_t(64)));
}

TEST_F(KernelConfigTest, WalksFollowTheShapeAndTheOptions) {
  // Long histories: pairs; short ones over static lengths: chained heads;
  // no index: one CTA a tile.
  EXPECT_EQ(config("64", true, "").getWalk(), AttentionWalk::pairs);
  EXPECT_EQ(config("64", true, "", "1024").getWalk(), AttentionWalk::chained);
  EXPECT_EQ(config("64", false, "", "1024").getWalk(), AttentionWalk::grid);
  AttentionConfigOptions unchained;
  unchained.chainHeads = false;
  EXPECT_EQ(config("64", true, "", "1024", unchained).getWalk(),
            AttentionWalk::grid);
  // The pairs threshold is an option.
  AttentionConfigOptions early;
  early.pairsMinKeys = 512;
  EXPECT_EQ(config("64", true, "", "512", early).getWalk(),
            AttentionWalk::pairs);
  EXPECT_EQ(config("64", true, "", "511", early).getWalk(),
            AttentionWalk::chained);
}

TEST_F(KernelConfigTest, OptionsApplyOnlyWhereTheyCan) {
  AttentionConfigOptions asked;
  asked.groupCandidates = true;
  asked.pInF16 = true;
  // Grouping needs a chained or pairs walk; P in f16 a bf16 attention.
  AttentionConfigAttr grid = config("64", false, "", "1024", asked, "bf16");
  EXPECT_FALSE(grid.getGroupCandidates());
  EXPECT_TRUE(grid.getPInF16());
  AttentionConfigAttr chained = config("64", true, "", "1024", asked);
  EXPECT_TRUE(chained.getGroupCandidates());
  EXPECT_FALSE(chained.getPInF16());
}

} // namespace

// Tile shapes: the narrowest of 64 / 128 / 256 columns that holds N; the
// transposed tile's rows m split M evenly into tiles of at most 152 rows,
// rounded up to a multiple of 8.
TEST(KernelConfigTiles, ColumnsAndTransposedRows) {
  EXPECT_EQ(mlir::sc::gemmTileCols(8), 64);
  EXPECT_EQ(mlir::sc::gemmTileCols(64), 64);
  EXPECT_EQ(mlir::sc::gemmTileCols(65), 128);
  EXPECT_EQ(mlir::sc::gemmTileCols(128), 128);
  EXPECT_EQ(mlir::sc::gemmTileCols(136), 256);
  EXPECT_EQ(mlir::sc::gemmTileCols(8192), 256);
  EXPECT_EQ(mlir::sc::transposedTileRows(433), 152);
  EXPECT_EQ(mlir::sc::transposedTileRows(7), 8);
  EXPECT_EQ(mlir::sc::transposedTileRows(152), 152);
  EXPECT_EQ(mlir::sc::transposedTileRows(153), 80);
}
