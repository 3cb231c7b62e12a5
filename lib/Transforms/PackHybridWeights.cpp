//===- PackHybridWeights.cpp - constant weights as hybrid tiles -----------===//
//
// The compile-time form of the hybrid tiles' inspector: a GEMM's constant
// 16-bit weight planned and packed by sparcast/Support/HybridTiles.h (the
// runtime's scHybridPlan / scHybridPack code) into the constants
// sc.assemble_hybrid takes.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"

#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Support/HybridTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

#define DEBUG_TYPE "sc-pack-hybrid-weights"

namespace mlir::sc {
#define GEN_PASS_DEF_SCPACKHYBRIDWEIGHTSPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;
namespace hybrid = sparcast::hybrid;

namespace {

/// The weight's 16-bit values, row-major [rows, cols] as read by the GEMM
/// ([n, k]): transposed from a [k, n] constant when `transposed` is false.
std::vector<uint16_t> weightBits(DenseElementsAttr value, bool transposeRhs) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t r = type.getDimSize(0), c = type.getDimSize(1);
  std::vector<uint16_t> bits(r * c);
  int64_t i = 0;
  for (APFloat v : value.getValues<APFloat>()) {
    uint16_t b = static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue());
    int64_t row = i / c, col = i % c;
    // [n, k]: the constant's own layout, or its transpose.
    bits[transposeRhs ? row * c + col : col * r + row] = b;
    ++i;
  }
  return bits;
}

/// A dense constant of `shape` and `element` holding `data` (16- or 32-bit
/// words, or bytes).
template <typename T>
Value constantOf(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Type element, ArrayRef<T> data) {
  auto type = RankedTensorType::get(shape, element);
  auto attr = DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(data.data()),
                           data.size() * sizeof(T)));
  return arith::ConstantOp::create(b, loc, attr);
}

struct ScPackHybridWeightsPass
    : sc::impl::ScPackHybridWeightsPassBase<ScPackHybridWeightsPass> {
  using Base::Base;

  void runOnOperation() final {
    if (tileRows <= 0 || tileRows % hybrid::kTileRowQuantum != 0 ||
        tileCols <= 0 || tileCols % hybrid::kTileColQuantum != 0 ||
        !(denseBudget >= 0.0 && denseBudget <= 1.0)) {
      getOperation()->emitError()
          << "sc-pack-hybrid-weights: tiles of multiples of 64 rows and 32 "
             "columns and a dense budget in [0, 1], got "
          << tileRows.getValue() << " x " << tileCols.getValue() << " and "
          << denseBudget.getValue();
      return signalPassFailure();
    }
    getOperation()->walk([&](BatchMatmulOp op) { packWeight(op); });
  }

  /// Why `op`'s weight is not packed, or an empty string.
  std::string whyNot(BatchMatmulOp op, DenseElementsAttr &value) {
    if (op.getLhs().getType().getRank() != 3 ||
        op.getRhs().getType().getRank() != 2)
      return "not rows times a shared weight";
    if (op.getRhs().getType().getEncoding())
      return "the weight has a layout already";
    if (!matchPattern(op.getRhs(), m_Constant(&value)))
      return "the weight is not a constant";
    Type element = op.getRhs().getType().getElementType();
    if (!element.isF16() && !element.isBF16())
      return "the weight is not f16 or bf16";
    auto type = op.getRhs().getType();
    int64_t rows = type.getDimSize(op.getTransposeRhs() ? 0 : 1);
    int64_t cols = type.getDimSize(op.getTransposeRhs() ? 1 : 0);
    std::string why =
        hybrid::checkShape({rows, cols, tileRows.getValue(), tileCols.getValue()});
    return why;
  }

  void packWeight(BatchMatmulOp op) {
    DenseElementsAttr value;
    std::string why = whyNot(op, value);
    if (!why.empty()) {
      if (report)
        op.emitRemark() << "weight not packed in hybrid tiles: " << why;
      return;
    }
    RankedTensorType type = op.getRhs().getType();
    Type element = type.getElementType();
    bool bf16 = element.isBF16(), transposed = op.getTransposeRhs();
    int64_t rows = type.getDimSize(transposed ? 0 : 1);
    int64_t cols = type.getDimSize(transposed ? 1 : 0);
    hybrid::Shape shape{rows, cols, tileRows, tileCols};
    std::vector<uint16_t> w = weightBits(value, transposed);
    hybrid::Plan plan = hybrid::plan(w.data(), shape, bf16, prune, denseBudget);
    if (plan.numDense == shape.numTiles()) {
      if (report)
        op.emitRemark() << "weight not packed in hybrid tiles: every tile "
                           "would stay dense";
      return;
    }
    // Buffers of at least one tile: a kind with no tile still gets a
    // (never read) slot, so no buffer of the entry is empty.
    int64_t denseSlots = std::max<int64_t>(plan.numDense, 1);
    int64_t sparseSlots = std::max<int64_t>(plan.numSparse, 1);
    std::vector<uint8_t> kinds(plan.kinds.size());
    std::string letters;
    for (auto [i, kind] : llvm::enumerate(plan.kinds)) {
      kinds[i] = uint8_t(kind);
      letters += kind == hybrid::TileKind::Dense    ? 'd'
                 : kind == hybrid::TileKind::Sparse24 ? 's'
                                                      : 'z';
    }
    std::vector<int32_t> slots(plan.kinds.size());
    std::vector<uint16_t> dense(denseSlots * shape.tileElements(), 0);
    std::vector<uint16_t> sparse(sparseSlots * shape.tileElements() / 2, 0);
    std::vector<uint32_t> meta(sparseSlots * shape.metaWords(), 0);
    hybrid::pack(w.data(), shape, bf16, plan.kinds.data(), slots.data(),
                 dense.data(), sparse.data(), meta.data());

    OpBuilder b(op);
    Location loc = op.getLoc();
    int64_t gr = shape.gridRows(), gc = shape.gridCols();
    Value kindsV = constantOf<uint8_t>(b, loc, {gr, gc}, b.getI8Type(), kinds);
    Value slotsV = constantOf<int32_t>(b, loc, {gr, gc}, b.getI32Type(), slots);
    Value denseV = constantOf<uint16_t>(b, loc, {denseSlots, tileRows, tileCols},
                                        element, dense);
    Value sparseV = constantOf<uint16_t>(
        b, loc, {sparseSlots, tileRows, tileCols / 2}, element, sparse);
    Value metaV = constantOf<uint32_t>(
        b, loc, {sparseSlots, tileRows, tileCols / 32}, b.getI32Type(), meta);
    auto layout = HybridTilesAttr::get(
        op.getContext(), {tileRows.getValue(), tileCols.getValue()}, {gr, gc},
        letters);
    auto weightType = RankedTensorType::get({rows, cols}, element, layout);
    Value weight = AssembleHybridOp::create(b, loc, weightType, kindsV, slotsV,
                                            denseV, sparseV, metaV);
    op.getRhsMutable().assign(weight);
    op.setTransposeRhs(true);
    if (report) {
      double worst = 0;
      for (float e : plan.error)
        worst = std::max<double>(worst, e);
      op.emitRemark() << "weight packed in " << tileRows.getValue() << " x "
                      << tileCols.getValue()
                      << " hybrid tiles: " << plan.numDense << " dense, "
                      << plan.numSparse << " 2:4, "
                      << shape.numTiles() - plan.numDense - plan.numSparse
                      << " zero" << (prune ? ", pruned" : "")
                      << " (largest relative tile error " << worst << ")";
    }
  }
};

} // namespace
