//===- AttentionTilingTest.cpp - the attention kernel's tiling rules ------===//
//
// AttentionOp::getKernelConsumers / getKernelKeyBlock decide the GPU
// kernel's consumer warpgroups and key blocks; the generator and
// sc-lower-to-sck both use them, so the rules are checked here case by case.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>
#include <string>

using namespace mlir;
using namespace mlir::sc;

namespace {

class AttentionTilingTest : public ::testing::Test {
protected:
  AttentionTilingTest() {
    DialectRegistry registry;
    registerAllSparcastDialects(registry);
    context.appendDialectRegistry(registry);
  }

  /// (consumers, key block) of an attention with query length `query`
  /// ("?" for dynamic), an index or not, `mask` (or "") and key length
  /// `keys`.
  std::pair<int64_t, int64_t> tiling(const std::string &query, bool indexed,
                                     const std::string &mask,
                                     const std::string &keys = "2048") {
    std::string q = "tensor<?x2x" + query + "x64xf16>";
    std::string kv = "tensor<?x2x" + keys + "x64xf16>";
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
      return {0, 0};
    AttentionOp op;
    module->walk([&](AttentionOp a) { op = a; });
    return {op.getKernelConsumers(), op.getKernelKeyBlock()};
  }

  MLIRContext context;
};

TEST_F(AttentionTilingTest, CandidatePairsShareKeyBlocksOf128) {
  // Two candidates of one request per CTA: an index, at most 64 rows, more
  // than 1024 keys or a dynamic number.
  EXPECT_EQ(tiling("64", true, ""), std::make_pair(int64_t(2), int64_t(128)));
  EXPECT_EQ(tiling("32", true, ""), std::make_pair(int64_t(2), int64_t(128)));
  EXPECT_EQ(tiling("64", true, "", "1025"), std::make_pair(int64_t(2), int64_t(128)));
  EXPECT_EQ(tiling("64", true, "", "?"), std::make_pair(int64_t(2), int64_t(128)));
}

TEST_F(AttentionTilingTest, ShortHistoriesRunOneConsumerACandidate) {
  // At most 1024 keys: one consumer a candidate on 64-key blocks (two CTAs
  // an SM).
  EXPECT_EQ(tiling("64", true, "", "1024"), std::make_pair(int64_t(1), int64_t(64)));
  EXPECT_EQ(tiling("32", true, "", "256"), std::make_pair(int64_t(1), int64_t(64)));
}

TEST_F(AttentionTilingTest, LongQueriesSplitTheirBlocksOf128Rows) {
  EXPECT_EQ(tiling("100", false, ""), std::make_pair(int64_t(2), int64_t(128)));
  EXPECT_EQ(tiling("100", true, ""), std::make_pair(int64_t(2), int64_t(128)));
  // A dynamic query length takes the split form too.
  EXPECT_EQ(tiling("?", false, ""), std::make_pair(int64_t(2), int64_t(128)));
}

TEST_F(AttentionTilingTest, ShortQueriesRunOneConsumerOn64KeyBlocks) {
  EXPECT_EQ(tiling("64", false, ""), std::make_pair(int64_t(1), int64_t(64)));
  EXPECT_EQ(tiling("40", false, ""), std::make_pair(int64_t(1), int64_t(64)));
}

TEST_F(AttentionTilingTest, MasksGiveTheirBlockSize) {
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

} // namespace
