//===- LowerToSck.cpp - a GEMM's kernel as an sck tile loop ---------------===//
//
// The tiling the warp-specialized GEMM generator uses, written as IR: per
// output tile (tileM x 256 of one batch element), a loop over 64-wide
// k-tiles that loads an A box and a B box and multiplies them into the
// accumulator, then the op's epilogue at the tile (its element-wise region
// carried along, the epilogue's tensors the function's arguments).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCLOWERTOSCKPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr int64_t kTileN = 256, kTileK = 64;

/// Why `op` has no kernel-level form here, or an empty string.
std::string limitation(BatchMatmulOp op) {
  RankedTensorType lhs = op.getLhs().getType();
  Type element = lhs.getElementType();
  if (!element.isF16() && !element.isBF16())
    return "16-bit operands only";
  if (ShapedType::isDynamic(op.getType().getDimSize(1)) ||
      ShapedType::isDynamic(op.getType().getDimSize(2)) ||
      ShapedType::isDynamic(lhs.getShape().back()))
    return "M, N and K must be static";
  return "";
}

/// The kernel of `op` (the `index`-th GEMM of `caller`) as a function.
void buildKernel(BatchMatmulOp op, func::FuncOp caller, unsigned index) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  Type element = lhsType.getElementType();
  int64_t m = op.getType().getDimSize(1), n = op.getType().getDimSize(2);
  int64_t k = lhsType.getShape().back();
  bool lhsBatched = lhsType.getRank() == 3, rhsBatched = rhsType.getRank() == 3;
  auto schedule = op->getAttrOfType<StringAttr>(BatchMatmulOp::getScheduleAttrName());
  StringRef chosen = schedule ? schedule.getValue() : op.getDefaultSchedule();
  int64_t tileM = chosen == "pingpong" ? 64 : 128;

  OpBuilder b(ctx);
  b.setInsertionPointAfter(caller);
  std::string name =
      (caller.getSymName() + "_gemm" + Twine(index) + "_kernel").str();
  // (batch elements, the epilogue's tensor operands...).
  SmallVector<Type> argTypes = {b.getIndexType()};
  llvm::append_range(argTypes, op.getEpilogueIns().getTypes());
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(argTypes, {}));
  func.setPrivate();
  func->setAttr("sck.op", b.getStringAttr(caller.getSymName() + "/gemm" +
                                          Twine(index)));
  func->setAttr("sck.schedule", b.getStringAttr(chosen));
  op->setAttr(BatchMatmulOp::getKernelAttrName(),
              FlatSymbolRefAttr::get(func.getSymNameAttr()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value batch = entry->getArgument(0);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // One CTA per tile, in plain order (group 1): sc-persistent decides
  // otherwise.
  Value tilesM = cst(llvm::divideCeil(m, tileM));
  Value tilesN = cst(llvm::divideCeil(n, kTileN));
  Value kTiles = cst(llvm::divideCeil(k, kTileK));
  auto loop = sck::TileLoopOp::create(b, loc, batch, tilesM, tilesN,
                                      b.getStringAttr("grid"),
                                      b.getI64IntegerAttr(1));
  Block *body = b.createBlock(&loop.getBody(), {},
                              {b.getIndexType(), b.getIndexType(),
                               b.getIndexType()},
                              {loc, loc, loc});
  b.setInsertionPointToStart(body);
  Value bIdx = body->getArgument(0), mb = body->getArgument(1),
        nb = body->getArgument(2);
  Value m0 = arith::MulIOp::create(b, loc, mb, cst(tileM));
  Value n0 = arith::MulIOp::create(b, loc, nb, cst(kTileN));
  auto accType = sck::AccType::get(ctx, {tileM, kTileN}, b.getF32Type());
  auto aType = sck::BoxType::get(ctx, {tileM, kTileK}, element);
  auto bType = sck::BoxType::get(ctx, {kTileK, kTileN}, element);
  Value zero = sck::ZeroOp::create(b, loc, accType);
  auto kLoop = scf::ForOp::create(b, loc, cst(0), kTiles, cst(1), zero);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kt = kLoop.getInductionVar();
    Value k0 = arith::MulIOp::create(b, loc, kt, cst(kTileK));
    // Box coordinates, innermost first, as the TMA maps take them.
    SmallVector<Value> aCoords = {k0, m0};
    if (lhsBatched)
      aCoords.push_back(bIdx);
    SmallVector<Value> bCoords =
        op.getTransposeRhs() ? SmallVector<Value>{k0, n0} : SmallVector<Value>{n0, k0};
    if (rhsBatched)
      bCoords.push_back(bIdx);
    Value boxA = sck::LoadOp::create(b, loc, aType, b.getStringAttr("A"), aCoords);
    Value boxB = sck::LoadOp::create(b, loc, bType, b.getStringAttr("B"), bCoords);
    Value acc = sck::MmaOp::create(b, loc, accType, boxA, boxB,
                                   kLoop.getRegionIterArgs().front());
    scf::YieldOp::create(b, loc, acc);
  }
  auto epilogue = sck::EpilogueOp::create(
      b, loc, b.getStringAttr("C"), ValueRange{n0, m0, bIdx},
      kLoop.getResult(0), entry->getArguments().drop_front());
  if (op.hasEpilogue()) {
    // The op's element-wise epilogue, its sc.yield an sck.yield.
    IRMapping mapping;
    op.getEpilogue().cloneInto(&epilogue.getBody(), mapping);
    Operation *yield = epilogue.getBody().front().getTerminator();
    OpBuilder at(yield);
    sck::YieldOp::create(at, yield->getLoc(), yield->getOperand(0));
    yield->erase();
  }
  b.setInsertionPointAfter(loop);
  func::ReturnOp::create(b, loc);
}

struct ScLowerToSckPass : sc::impl::ScLowerToSckPassBase<ScLowerToSckPass> {
  using Base::Base;
  void runOnOperation() final {
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp caller : funcs) {
      unsigned index = 0;
      SmallVector<BatchMatmulOp> gemms;
      caller.walk([&](BatchMatmulOp op) { gemms.push_back(op); });
      for (BatchMatmulOp op : gemms) {
        std::string why = limitation(op);
        if (!why.empty()) {
          if (report)
            op.emitRemark() << "no kernel-level form: " << why;
          ++index;
          continue;
        }
        buildKernel(op, caller, index++);
      }
    }
  }
};
} // namespace
