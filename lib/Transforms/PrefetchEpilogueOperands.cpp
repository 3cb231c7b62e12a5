//===- PrefetchEpilogueOperands.cpp - epilogue tiles loaded ahead ---------===//
//
// An epilogue that reads an operand only at [g(b), m, n] reads one tile of
// it per output tile (IKBO's gather-add: the request GEMM's result at the
// candidate's user). Made a box loaded at the start of the tile, the GPU
// kernel brings it into shared memory under the tile's MMAs, and the
// epilogue reads shared memory instead of waiting on global loads.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Transforms/Transforms.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCPREFETCHEPILOGUEOPERANDSPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;

namespace {
constexpr unsigned kLead = sc::BatchMatmulOp::kNumEpilogueLeadingArgs;
} // namespace

std::string mlir::sc::epiloguePrefetchLimitation(sck::EpilogueOp epilogue,
                                                 sck::TileLoopOp loop,
                                                 unsigned i, Value &g) {
  Value in = epilogue.getIns()[i];
  auto type = dyn_cast<RankedTensorType>(in.getType());
  if (!type || type.getRank() != 3)
    return "not a 3-D tensor";
  std::string why;
  g = sc::BatchMatmulOp::getGatheredTileIndex(epilogue.getBody().front(), i,
                                              why);
  if (!g)
    return why;
  // The index and the operands g reads must be there before the tile:
  // values from outside the tile loop.
  auto outside = [&](Value v) {
    return !loop->isAncestor(v.getParentRegion()->getParentOp());
  };
  if (!llvm::all_of(epilogue.getIns(), outside))
    return "an operand defined inside the tile loop";
  // What the GPU kernels stream (sck-to-nvgpu): one box a tile, of 16- or
  // 32-bit elements; f32 for the transposed tile.
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (llvm::any_of(epilogue.getIns().getTypes(), llvm::IsaPred<sck::BoxType>))
    return "another operand is prefetched already";
  if (bits != 16 && bits != 32)
    return "elements of other than 16 or 32 bits";
  if (ShapedType::isDynamic(type.getDimSize(2)) ||
      type.getDimSize(2) * bits / 8 % 16 != 0)
    return "rows of other than a multiple of 16 bytes (TMA's stride)";
  if (epilogue.getTransposed() && !type.getElementType().isF32())
    return "the transposed tile's epilogue streams f32 operands only";
  // The kernels stream it in subtiles of 128 bytes a row.
  if (!epilogue.getTransposed() &&
      epilogue.getTileShape()[1] * bits / 8 % 128 != 0)
    return "a tile row of other than whole 128-byte subtiles";
  return "";
}

namespace {

/// Where the tile's prefetch goes: right after the last of `values`
/// defined in `block` (the tile coordinates), else at its start.
static void setInsertionAfterDefinitions(OpBuilder &b, Block &block,
                                         ValueRange values) {
  Operation *last = nullptr;
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &block)
      continue;
    if (!last || last->isBeforeInBlock(def))
      last = def;
  }
  if (last)
    b.setInsertionPointAfter(last);
  else
    b.setInsertionPointToStart(&block);
}

/// Erases the region's ops without uses and without side effects (what
/// computed g), last first.
static void eraseDeadOps(Block &body) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

struct ScPrefetchEpilogueOperandsPass
    : sc::impl::ScPrefetchEpilogueOperandsPassBase<
          ScPrefetchEpilogueOperandsPass> {
  using Base::Base;

  void runOnOperation() final {
    getOperation()->walk([&](sck::EpilogueOp epilogue) {
      auto loop = dyn_cast<sck::TileLoopOp>(epilogue->getParentOp());
      std::optional<sck::KernelSchedule> schedule =
          sck::kernelSchedule(epilogue);
      // The hybrid-tiled and multistage GEMMs' epilogues read their
      // operands in place.
      if (schedule == sck::KernelSchedule::hybrid ||
          schedule == sck::KernelSchedule::multistage)
        return;
      if (!loop || loop.isAttention() || epilogue.getBody().empty() ||
          epilogue.getCoords().size() != 3)
        return;
      bool any = false;
      for (unsigned i = 0; i < epilogue.getIns().size(); ++i)
        any |= prefetch(epilogue, loop, i);
      if (any)
        dropUnreadOperands(epilogue);
    });
  }

  /// Makes epilogue operand `i` a box prefetched at the tile's start when
  /// the region reads one tile of it; whether it did.
  bool prefetch(sck::EpilogueOp epilogue, sck::TileLoopOp loop, unsigned i) {
    Value in = epilogue.getIns()[i];
    auto type = dyn_cast<RankedTensorType>(in.getType());
    if (!type || type.getRank() != 3)
      return false;
    Value g;
    std::string why = sc::epiloguePrefetchLimitation(epilogue, loop, i, g);
    if (!why.empty()) {
      if (report)
        epilogue.emitRemark() << "epilogue operand #" << i << " read in place: "
                              << why;
      return false;
    }
    Block &body = epilogue.getBody().front();
    // g's computation at the tile's start: the region's b is the tile's
    // batch element, its operands the epilogue's.
    OpBuilder b(epilogue);
    setInsertionAfterDefinitions(b, loop.getBody().front(), epilogue.getCoords());
    IRMapping mapping;
    mapping.map(body.getArgument(1), epilogue.getCoords().back());
    for (auto [k, v] : llvm::enumerate(epilogue.getIns()))
      mapping.map(body.getArgument(kLead + k), v);
    for (Operation *op : sc::BatchMatmulOp::getEpilogueSlice(g))
      b.clone(*op, mapping);
    // The box of the tile in the result's orientation.
    auto boxType = sck::BoxType::get(&getContext(), epilogue.getTileShape(),
                                     type.getElementType());
    Value box = sck::PrefetchOp::create(
        b, epilogue.getLoc(), boxType, in,
        ValueRange{epilogue.getCoords()[0], epilogue.getCoords()[1],
                   mapping.lookup(g)});
    // The region reads the box's element where it read the tensor.
    BlockArgument arg = body.getArgument(kLead + i);
    SmallVector<Operation *> reads(arg.getUsers());
    arg.setType(type.getElementType());
    for (Operation *read : reads) {
      read->getResult(0).replaceAllUsesWith(arg);
      read->erase();
    }
    epilogue.getInsMutable()[i].set(box);
    eraseDeadOps(body);
    if (report)
      epilogue.emitRemark() << "epilogue operand #" << i << " (" << type
                            << ") read at [g(b), m, n]: prefetched as a "
                            << boxType << " per tile";
    return true;
  }

  /// Operands whose region argument is no longer read leave the epilogue.
  static void dropUnreadOperands(sck::EpilogueOp epilogue) {
    Block &body = epilogue.getBody().front();
    for (int i = static_cast<int>(epilogue.getIns().size()) - 1; i >= 0; --i) {
      if (!body.getArgument(kLead + i).use_empty())
        continue;
      epilogue.getInsMutable().erase(i);
      body.eraseArgument(kLead + i);
    }
  }
};
} // namespace
