//===- EpilogueScreenCpuTest.cpp - the screen never drops a kept element --===//
//
// writeEpilogueScreen's function, executed on the CPU next to the exact
// epilogue on values placed around each threshold (a few ulps either side,
// and far), with zero, tiny and huge norms and infinite and NaN thresholds:
// every element whose epilogue value is above its threshold passes the
// screen, and for the forms it approximates it rules out most of those far
// below (not a screen that keeps everything).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/EpilogueScreen.h"
#include "sparcast/ExecutionEngine/CpuRunner.h"
#include "sparcast/InitAll.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr int64_t kRows = 48, kCols = 64;

// {0}: the epilogue's body over %dot, %m, %n, %qn, %in (tensors), its
// value %r; @form is the epilogue the screen is written from, the first
// generic its exact values, the second the screen's bits (@screen
// declared here, replaced by the written one).
constexpr const char *kModule = R"mlir(
func.func private @screen(f32, index, index, f32, memref<?xf32>, memref<?xf32>) -> i1
func.func private @form(%dot: f32, %m: index, %n: index, %qn: tensor<?xf32>, %in: tensor<?xf32>) -> f32 {{
  {0}
  return %r : f32
}
func.func @f(%dots: tensor<48x64xf32>, %theta: tensor<48xf32>, %qs: tensor<48xf32>, %is: tensor<64xf32>) -> (tensor<48x64xf32>, tensor<48x64xi32>) {{
  %qn = tensor.cast %qs : tensor<48xf32> to tensor<?xf32>
  %in = tensor.cast %is : tensor<64xf32> to tensor<?xf32>
  %qb = bufferization.to_buffer %qs read_only : tensor<48xf32> to memref<48xf32>
  %ib = bufferization.to_buffer %is read_only : tensor<64xf32> to memref<64xf32>
  %qm = memref.cast %qb : memref<48xf32> to memref<?xf32>
  %im = memref.cast %ib : memref<64xf32> to memref<?xf32>
  %e = tensor.empty() : tensor<48x64xf32>
  %exact = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%dots : tensor<48x64xf32>) outs(%e : tensor<48x64xf32>) {{
  ^bb0(%dot: f32, %o: f32):
    %m = linalg.index 0 : index
    %n = linalg.index 1 : index
    {0}
    linalg.yield %r : f32
  } -> tensor<48x64xf32>
  %b = tensor.empty() : tensor<48x64xi32>
  %bits = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%dots : tensor<48x64xf32>) outs(%b : tensor<48x64xi32>) {{
  ^bb0(%dot: f32, %o: i32):
    %m = linalg.index 0 : index
    %n = linalg.index 1 : index
    %t = tensor.extract %theta[%m] : tensor<48xf32>
    %keep = func.call @screen(%dot, %m, %n, %t, %qm, %im) : (f32, index, index, f32, memref<?xf32>, memref<?xf32>) -> i1
    %k = arith.extui %keep : i1 to i32
    linalg.yield %k : i32
  } -> tensor<48x64xi32>
  return %exact, %bits : tensor<48x64xf32>, tensor<48x64xi32>
}
)mlir";

struct Form {
  const char *body;
  bool approximated; // the screen rules out elements far below
};

const Form kForms[] = {
    // The cosine, zero for an empty row.
    {R"(%a = tensor.extract %qn[%m] : tensor<?xf32>
  %b = tensor.extract %in[%n] : tensor<?xf32>
  %p = arith.mulf %a, %b : f32
  %zero = arith.constant 0.0 : f32
  %none = arith.cmpf oeq, %p, %zero : f32
  %c = arith.divf %dot, %p : f32
  %r = arith.select %none, %zero, %c : f32)",
     true},
    // A product and a quotient, negated.
    {R"(%a = tensor.extract %qn[%m] : tensor<?xf32>
  %b = tensor.extract %in[%n] : tensor<?xf32>
  %s = arith.mulf %a, %dot : f32
  %q = arith.divf %s, %b : f32
  %r = arith.negf %q : f32)",
     true},
    // A quotient by a quotient.
    {R"(%a = tensor.extract %qn[%m] : tensor<?xf32>
  %b = tensor.extract %in[%n] : tensor<?xf32>
  %p = arith.divf %a, %b : f32
  %r = arith.divf %dot, %p : f32)",
     true},
    // A sum of two scalings: tested exactly.
    {R"(%a = tensor.extract %qn[%m] : tensor<?xf32>
  %b = tensor.extract %in[%n] : tensor<?xf32>
  %x = arith.divf %dot, %a : f32
  %y = arith.mulf %dot, %b : f32
  %r = arith.subf %x, %y : f32)",
     false},
};

/// A norm: mostly in [0.5, 50), some zero, tiny, huge or negative.
float normAt(int64_t i, std::mt19937 &rng) {
  switch (i % 11) {
  case 3:
    return 0.0f;
  case 5:
    return 1e-7f;
  case 7:
    return 3e6f;
  case 9:
    return -2.5f;
  default:
    return std::uniform_real_distribution<float>(0.5f, 50.0f)(rng);
  }
}

/// A norm the screen takes as a factor (in [2^-16, 2^16]).
bool inRange(double norm) {
  return std::abs(norm) >= 0x1p-16 && std::abs(norm) <= 0x1p16;
}

TEST(EpilogueScreenCpuTest, KeepsEveryElementAboveItsThreshold) {
  DialectRegistry registry;
  registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  std::mt19937 rng(7);
  const float inf = std::numeric_limits<float>::infinity();
  for (const Form &form : kForms) {
    std::string text = llvm::formatv(kModule, form.body);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << form.body;
    auto epilogue = module->lookupSymbol<func::FuncOp>("form");
    auto memref = MemRefType::get({ShapedType::kDynamic}, Float32Type::get(&context));
    module->lookupSymbol<func::FuncOp>("screen").erase();
    OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
    ASSERT_TRUE(succeeded(writeEpilogueScreen(b, epilogue.getLoc(),
                                              &epilogue.front(),
                                              {memref, memref}, "screen")));
    epilogue.erase();
    auto compiled = CpuFunction::compile(*module, "f");
    ASSERT_TRUE(succeeded(compiled)) << form.body;

    for (int trial = 0; trial < 4; ++trial) {
      std::vector<HostTensor> args = {HostTensor(ElementKind::f32, {kRows, kCols}),
                                      HostTensor(ElementKind::f32, {kRows}),
                                      HostTensor(ElementKind::f32, {kRows}),
                                      HostTensor(ElementKind::f32, {kCols})};
      for (int64_t m = 0; m < kRows; ++m) {
        float theta = std::uniform_real_distribution<float>(-0.9f, 0.9f)(rng);
        if (m % 13 == 1)
          theta = -inf;
        if (m % 13 == 2)
          theta = inf;
        if (m % 13 == 4)
          theta = std::nanf("");
        if (m % 13 == 6)
          theta = 0.0f;
        args[1].set(m, theta);
        args[2].set(m, normAt(m + trial, rng));
      }
      for (int64_t n = 0; n < kCols; ++n)
        args[3].set(n, normAt(n + 2 * trial, rng));
      // Values near where the cosine form meets its row's threshold (a few
      // ulps either side), far from it, zero, and huge.
      for (int64_t m = 0; m < kRows; ++m)
        for (int64_t n = 0; n < kCols; ++n) {
          double at = std::abs(args[1].get(m)) < 1 ? args[1].get(m) : 0.3;
          double scale = args[2].get(m) * args[3].get(n);
          int64_t ulps = static_cast<int64_t>(rng() % 9) - 4;
          float dot = static_cast<float>(at * scale);
          for (int64_t u = 0; u < std::abs(ulps); ++u)
            dot = std::nextafter(dot, ulps > 0 ? inf : -inf);
          switch (rng() % 8) {
          case 0:
            dot = std::uniform_real_distribution<float>(-100, 100)(rng);
            break;
          case 1:
            dot = 0.0f;
            break;
          case 2:
            dot = 3e37f;
            break;
          default:
            break;
          }
          args[0].set(m * kCols + n, dot);
        }
      auto results = (*compiled)->call(args);
      ASSERT_TRUE(succeeded(results));
      const HostTensor &exact = (*results)[0], &bits = (*results)[1];
      int64_t above = 0, farBelow = 0, ruledOut = 0;
      for (int64_t m = 0; m < kRows; ++m)
        for (int64_t n = 0; n < kCols; ++n) {
          int64_t e = m * kCols + n;
          float theta = args[1].get(m);
          double value = exact.get(e);
          if (value > theta) {
            ++above;
            EXPECT_EQ(bits.get(e), 1)
                << form.body << "\nat (" << m << ", " << n << "): value "
                << value << " above " << theta << ", dot "
                << args[0].get(e) << ", norms " << args[2].get(m) << " "
                << args[3].get(n);
          } else if (std::isfinite(theta) && value < theta - 1e-3 &&
                     inRange(args[2].get(m)) && inRange(args[3].get(n)) &&
                     std::abs(args[0].get(e)) < 1e30) {
            ++farBelow;
            ruledOut += bits.get(e) == 0;
          }
        }
      EXPECT_GT(above, kRows * kCols / 10) << form.body; // not vacuous
      if (form.approximated)
        EXPECT_GT(ruledOut, farBelow * 3 / 4) << form.body;
      else
        EXPECT_EQ(ruledOut, farBelow) << form.body; // exact: all of them
    }
  }
}

} // namespace
