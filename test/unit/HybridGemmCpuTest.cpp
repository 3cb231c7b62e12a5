//===- HybridGemmCpuTest.cpp - the CPU meaning of a hybrid-tiled GEMM -----===//
//
// sc.assemble_hybrid's reference lowering on weights packed by the inspector
// (HybridTiles.h): y = x W^T through the packed buffers equals y through the
// weight the inspector's unpack gives back, for tiles of every kind.
//
//===----------------------------------------------------------------------===//

#include "sparcast/ExecutionEngine/CpuRunner.h"
#include "sparcast/InitAll.h"
#include "sparcast/Support/HybridTiles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;
using namespace mlir::sc;
namespace hybrid = sparcast::hybrid;

namespace {

/// A 128 x 256 weight in 64 x 128 tiles: (0, 0) dense, (0, 1) 2:4, (1, 0)
/// zero, (1, 1) 2:4 with groups of fewer than two non-zeros.
std::vector<uint16_t> makeWeight(HostTensor &scratch, std::mt19937 &rng) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  const int64_t rows = 128, cols = 256;
  std::vector<uint16_t> w(rows * cols, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      bool top = r < 64, left = c < 128;
      double v = uniform(rng);
      int pos = c % 4;
      if (!top && left)
        v = 0;
      else if (top && !left)
        v = (pos == (r % 3) || pos == 3) ? v : 0; // two of four
      else if (!top && !left)
        v = pos == ((r + c / 4) % 4) ? v : 0; // one of four
      scratch.set(0, v);
      uint16_t bits;
      std::memcpy(&bits, scratch.getData(), 2);
      w[r * cols + c] = bits;
    }
  return w;
}

constexpr const char *kHybridGemm = R"mlir(
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @f(%kinds: tensor<2x2xi8>, %slots: tensor<2x2xi32>,
             %dense: tensor<{0}x64x128xf16>, %sparse: tensor<{1}x64x64xf16>,
             %meta: tensor<{1}x64x4xi32>, %x: tensor<3x5x256xf16>)
    -> tensor<3x5x128xf32> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta
      : tensor<2x2xi8>, tensor<2x2xi32>, tensor<{0}x64x128xf16>,
        tensor<{1}x64x64xf16>, tensor<{1}x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {{transpose_rhs}
      : tensor<3x5x256xf16>, tensor<128x256xf16, #w> -> tensor<3x5x128xf32>
  return %y : tensor<3x5x128xf32>
}
)mlir";

TEST(HybridGemmCpuTest, PackedWeightMultipliesAsItsUnpackedWeight) {
  DialectRegistry registry;
  registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  std::mt19937 rng(7);
  HostTensor scratch(ElementKind::f16, {1});
  std::vector<uint16_t> w = makeWeight(scratch, rng);
  hybrid::Shape shape{128, 256, 64, 128};
  hybrid::Plan plan = hybrid::plan(w.data(), shape, false, false, 0);
  ASSERT_EQ(plan.numDense, 1);
  ASSERT_EQ(plan.numSparse, 2);
  ASSERT_EQ(plan.kinds[2], hybrid::TileKind::Zero);

  std::string text = llvm::formatv(kHybridGemm, plan.numDense, plan.numSparse);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  std::vector<HostTensor> in;
  in.emplace_back(ElementKind::i8, ArrayRef<int64_t>{2, 2});
  in.emplace_back(ElementKind::i32, ArrayRef<int64_t>{2, 2});
  in.emplace_back(ElementKind::f16, ArrayRef<int64_t>{plan.numDense, 64, 128});
  in.emplace_back(ElementKind::f16, ArrayRef<int64_t>{plan.numSparse, 64, 64});
  in.emplace_back(ElementKind::i32, ArrayRef<int64_t>{plan.numSparse, 64, 4});
  in.emplace_back(ElementKind::f16, ArrayRef<int64_t>{3, 5, 256});
  for (int64_t t = 0; t < 4; ++t)
    in[0].set(t, double(plan.kinds[t]));
  hybrid::pack(w.data(), shape, false, plan.kinds.data(),
               static_cast<int32_t *>(in[1].getData()),
               static_cast<uint16_t *>(in[2].getData()),
               static_cast<uint16_t *>(in[3].getData()),
               static_cast<uint32_t *>(in[4].getData()));
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (int64_t i = 0; i < in[5].getNumElements(); ++i)
    in[5].set(i, uniform(rng));

  // The weight the inspector's unpack gives back is the one packed.
  std::vector<uint16_t> unpacked(w.size());
  ASSERT_EQ(hybrid::unpack(shape, static_cast<uint8_t *>(in[0].getData()),
                           static_cast<int32_t *>(in[1].getData()),
                           plan.numDense, plan.numSparse,
                           static_cast<uint16_t *>(in[2].getData()),
                           static_cast<uint16_t *>(in[3].getData()),
                           static_cast<uint32_t *>(in[4].getData()),
                           unpacked.data()),
            "");
  ASSERT_EQ(unpacked, w);

  auto compiled = CpuFunction::compile(*module, "f");
  ASSERT_TRUE(succeeded(compiled));
  FailureOr<std::vector<HostTensor>> outs = (*compiled)->call(in);
  ASSERT_TRUE(succeeded(outs));
  HostTensor &y = (*outs)[0];
  ASSERT_EQ(y.getShape(), (ArrayRef<int64_t>{3, 5, 128}));
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t m = 0; m < 5; ++m)
      for (int64_t n = 0; n < 128; ++n) {
        double want = 0;
        for (int64_t k = 0; k < 256; ++k)
          want += in[5].get((b * 5 + m) * 256 + k) *
                  hybrid::toFloat(w[n * 256 + k], false);
        EXPECT_NEAR(y.get((b * 5 + m) * 128 + n), want, 1e-3)
            << "at " << b << ", " << m << ", " << n;
      }
}

} // namespace
