//===- PTXTest.cpp - gpu.module to PTX through the C++ API ----------------===//

#include "sparcast/InitAll.h"
#include "sparcast/Target/PTX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::sc;

namespace {

constexpr const char *kKernel = R"mlir(
gpu.module @kernels {
  gpu.func @scale(%x: memref<256xf32>, %s: f32) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<256xf32>
    %r = arith.mulf %v, %s : f32
    memref.store %r, %x[%i] : memref<256xf32>
    gpu.return
  }
}
)mlir";

class PTXTest : public ::testing::Test {
protected:
  PTXTest() {
    DialectRegistry registry;
    registerAllSparcastDialects(registry);
    context.appendDialectRegistry(registry);
  }
  MLIRContext context;
};

TEST_F(PTXTest, CompilesForEachSupportedChip) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernel, &context);
  ASSERT_TRUE(module);
  for (StringRef chip : {"sm_80", "sm_90a"}) {
    PTXOptions options;
    options.chip = chip.str();
    auto ptx = compileToPTX(*module, options);
    ASSERT_TRUE(succeeded(ptx));
    ASSERT_EQ(ptx->size(), 1u);
    EXPECT_EQ((*ptx)[0].name, "kernels");
    EXPECT_NE((*ptx)[0].ptx.find(".target " + chip.str()), std::string::npos);
    EXPECT_NE((*ptx)[0].ptx.find(".entry scale"), std::string::npos);
  }
}

TEST_F(PTXTest, RejectsUnknownChip) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernel, &context);
  ASSERT_TRUE(module);
  std::string diags;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diags += d.str();
    return success();
  });
  PTXOptions options;
  options.chip = "sm_70";
  EXPECT_TRUE(failed(compileToPTX(*module, options)));
  EXPECT_NE(diags.find("unsupported chip 'sm_70'"), std::string::npos);
}

TEST_F(PTXTest, PtxasAcceptsGeneratedPTXWhenInstalled) {
  if (!findPtxas())
    GTEST_SKIP() << "ptxas not installed";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernel, &context);
  ASSERT_TRUE(module);
  auto ptx = compileToPTX(*module, PTXOptions());
  ASSERT_TRUE(succeeded(ptx));
  std::string error;
  auto cubin = assembleWithPtxas((*ptx)[0].ptx, "sm_90a", true, error);
  ASSERT_TRUE(succeeded(cubin)) << error;
  EXPECT_EQ(cubin->cubin.substr(0, 4), "\x7f" "ELF");
  EXPECT_NE(cubin->log.find("Used"), std::string::npos) << cubin->log;
}

TEST_F(PTXTest, PtxasReportsBadPTX) {
  if (!findPtxas())
    GTEST_SKIP() << "ptxas not installed";
  std::string error;
  EXPECT_TRUE(failed(assembleWithPtxas("this is not ptx", "sm_90a", false,
                                       error)));
  EXPECT_NE(error.find("ptxas failed"), std::string::npos) << error;
}

} // namespace
