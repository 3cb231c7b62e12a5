//===- CpuRunnerTest.cpp - the CPU golden-model runner --------------------===//
//
// Runs sc programs through the reference lowering and checks the results
// against values computed here in plain C++.
//
//===----------------------------------------------------------------------===//

#include "sparcast/ExecutionEngine/CpuRunner.h"
#include "sparcast/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::sc;

namespace {

class CpuRunnerTest : public ::testing::Test {
protected:
  CpuRunnerTest() {
    DialectRegistry registry;
    registerAllSparcastDialects(registry);
    context.appendDialectRegistry(registry);
  }
  MLIRContext context;
};

constexpr const char *kGatherMatmul = R"mlir(
func.func @f(%w: tensor<3x4xf32>,
             %user: tensor<?x4x5xf32> {sc.lineage = #sc.lineage<request>},
             %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x3x5xf32> {
  %e = sc.gather_rows %user[%idx]
      : tensor<?x4x5xf32>, tensor<?xi32> -> tensor<?x4x5xf32>
  %c = sc.batch_matmul %w, %e
      : tensor<3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
  return %c : tensor<?x3x5xf32>
}
)mlir";

TEST_F(CpuRunnerTest, GatherThenMatmulMatchesPlainLoops) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kGatherMatmul, &context);
  ASSERT_TRUE(module);
  InputSpec spec;
  spec.users = 4;
  spec.candidates = 9;
  spec.shuffleIndex = true;
  auto func = module->lookupSymbol<func::FuncOp>("f");
  FailureOr<std::vector<HostTensor>> inputs = makeRandomInputs(func, spec);
  ASSERT_TRUE(succeeded(inputs));
  std::vector<HostTensor> &in = *inputs;
  ASSERT_EQ(in[1].getShape()[0], 4);
  ASSERT_EQ(in[2].getShape()[0], 9);
  for (int64_t b = 0; b < 9; ++b) {
    ASSERT_GE(in[2].get(b), 0);
    ASSERT_LT(in[2].get(b), 4);
  }

  auto compiled = CpuFunction::compile(*module, "f");
  ASSERT_TRUE(succeeded(compiled));
  FailureOr<std::vector<HostTensor>> outs = (*compiled)->call(in);
  ASSERT_TRUE(succeeded(outs));
  ASSERT_EQ(outs->size(), 1u);
  HostTensor *out = &(*outs)[0];
  ASSERT_EQ(out->getShape(), (llvm::ArrayRef<int64_t>{9, 3, 5}));
  for (int64_t b = 0; b < 9; ++b) {
    int64_t u = static_cast<int64_t>(in[2].get(b));
    for (int64_t m = 0; m < 3; ++m)
      for (int64_t n = 0; n < 5; ++n) {
        double want = 0;
        for (int64_t k = 0; k < 4; ++k)
          want += in[0].get(m * 4 + k) * in[1].get((u * 4 + k) * 5 + n);
        EXPECT_NEAR(out->get((b * 3 + m) * 5 + n), want, 1e-5);
      }
  }
}

TEST_F(CpuRunnerTest, IndexGivesEveryUserACandidate) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kGatherMatmul, &context);
  ASSERT_TRUE(module);
  InputSpec spec;
  spec.users = 5;
  spec.candidates = 5;
  auto inputs =
      makeRandomInputs(module->lookupSymbol<func::FuncOp>("f"), spec);
  ASSERT_TRUE(succeeded(inputs));
  // Sorted runs with one candidate each: exactly 0..4.
  for (int64_t b = 0; b < 5; ++b)
    EXPECT_EQ((*inputs)[2].get(b), b);
}

TEST_F(CpuRunnerTest, CompareTensorsSeesDifferences) {
  HostTensor a(ElementKind::f32, {2, 2}), b(ElementKind::f32, {2, 2});
  for (int i = 0; i < 4; ++i) {
    a.set(i, i + 1);
    b.set(i, i + 1);
  }
  EXPECT_EQ(compareTensors(a, b).maxAbs, 0);
  b.set(3, 5);
  Difference d = compareTensors(a, b);
  EXPECT_DOUBLE_EQ(d.maxAbs, 1);
  EXPECT_GT(d.relativeFrobenius, 0.1);
  HostTensor c(ElementKind::f32, {4});
  EXPECT_FALSE(compareTensors(a, c).shapesMatch);
}

TEST_F(CpuRunnerTest, HalfPrecisionRoundsToNearestEven) {
  HostTensor h(ElementKind::f16, {1}), bf(ElementKind::bf16, {1});
  h.set(0, 1.0 + 1.0 / 4096); // below half an ulp of f16 at 1.0
  EXPECT_EQ(h.get(0), 1.0);
  bf.set(0, 3.140625);
  EXPECT_EQ(bf.get(0), 3.140625);
}

} // namespace
