//===- LowerToSck.cpp - a GEMM's kernel as an sck tile loop ---------------===//
//
// The tiling the warp-specialized GEMM generator uses, written as IR: per
// output tile (tileM x 256 of one batch element), a loop over 64-wide
// k-tiles that loads an A box and a B box and multiplies them into the
// accumulator, then the op's epilogue at the tile (its element-wise region
// carried along, the epilogue's tensors the function's arguments). With
// `attention`, flash attention's tiling as well: per 64-row query tile, a
// loop over key blocks (S = Q K^T, an online-softmax step, O += P V).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Transforms/KernelConfig.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCLOWERTOSCKPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr int64_t kTileK = 64;

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
  auto weight = dyn_cast_or_null<HybridTilesAttr>(op.getRhs().getType().getEncoding());
  if (op.getSumRows() && (lhs.getRank() != 2 || weight))
    return "its rows are summed (sum_rows): a shared lhs times dense "
           "operands only";
  if (weight && weight.getTile()[1] % 128 != 0)
    return "hybrid tiles of a multiple of 128 columns only (a 2:4 tile's "
           "values a whole 128-byte swizzled box)";
  return "";
}

/// Whether rows of `cols` elements of `element` are a TMA stride (a
/// multiple of 16 bytes).
bool isTmaStride(int64_t cols, Type element) {
  return cols * element.getIntOrFloatBitWidth() / 8 % 16 == 0;
}

/// The schedule of `op`'s kernel.
StringRef scheduleOf(BatchMatmulOp op) {
  return stringifyGemmSchedule(getGemmSchedule(op));
}


/// At `b`: the tile loop of `op` over `batches` batch elements, one CTA per
/// tile in plain order: per tile a loop over k-tiles (64 wide; 32 for the
/// multistage schedule) loading the A and B boxes into the accumulator, then the epilogue into C (the
/// transposed schedule: tiles of up to 152 rows by 128 columns computed as
/// B^T A^T, both boxes read transposed, the epilogue storing the
/// accumulator transposed) with the op's element-wise region reading `ins`
/// (the kernel's values of the op's epilogue operands).
/// With `flatRows` (a batched lhs times a shared rhs), A and C are taken
/// as the rows of all batch elements: one loop over tiles of B x M rows,
/// so no tile is cut short at a batch element's end and B is read once a
/// tile of the flattened rows.
void buildTileLoop(OpBuilder &b, BatchMatmulOp op, Value batches,
                   ValueRange ins, bool flatRows, int64_t multistageCols) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  Type element = lhsType.getElementType();
  // (M from the lhs: a result whose rows are summed has one.)
  int64_t m = lhsType.getShape()[lhsType.getRank() - 2],
          n = op.getType().getDimSize(2);
  int64_t k = lhsType.getShape().back();
  bool lhsBatched = lhsType.getRank() == 3, rhsBatched = rhsType.getRank() == 3;
  StringRef schedule = scheduleOf(op);
  bool transposed = schedule == "transposed";
  // sm_80 / sm_86 / sm_89's multistage kernel: 128 x 128 or 256 tiles,
  // 32 deep.
  bool multistage = schedule == "multistage";
  int64_t tileM = transposed   ? transposedTileRows(m)
                  : multistage ? kMultistageTileM
                  : schedule == "pingpong" ? 64
                                           : 128;
  int64_t tileN = transposed   ? 128
                  : multistage ? multistageTileCols(multistageCols, n)
                               : gemmTileCols(n);
  int64_t tileK = multistage ? kMultistageTileK : kTileK;
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // One CTA per tile, in plain order (group 1): sc-persistent decides
  // otherwise.
  Value tilesM = cst(llvm::divideCeil(m, tileM));
  if (flatRows) {
    Value rows = arith::MulIOp::create(b, loc, batches, cst(m));
    tilesM = arith::CeilDivUIOp::create(b, loc, rows, cst(tileM));
    batches = cst(1);
  }
  Value tilesN = cst(llvm::divideCeil(n, tileN));
  Value kTiles = cst(llvm::divideCeil(k, tileK));
  auto loop = sck::TileLoopOp::create(b, loc, batches, tilesM, tilesN,
                                      sck::TileSchedule::grid, 1, 1);
  // The caller's insertion point comes back after the loop.
  OpBuilder::InsertionGuard after(b);
  Block *body = b.createBlock(&loop.getBody(), {},
                              {b.getIndexType(), b.getIndexType(),
                               b.getIndexType()},
                              {loc, loc, loc});
  b.setInsertionPointToStart(body);
  Value bIdx = body->getArgument(0), mb = body->getArgument(1),
        nb = body->getArgument(2);
  Value m0 = arith::MulIOp::create(b, loc, mb, cst(tileM));
  Value n0 = arith::MulIOp::create(b, loc, nb, cst(tileN));
  auto accType =
      transposed ? sck::AccType::get(ctx, {tileN, tileM}, b.getF32Type())
                 : sck::AccType::get(ctx, {tileM, tileN}, b.getF32Type());
  auto aType = transposed ? sck::BoxType::get(ctx, {tileK, tileM}, element)
                          : sck::BoxType::get(ctx, {tileM, tileK}, element);
  auto bType = transposed ? sck::BoxType::get(ctx, {tileN, tileK}, element)
                          : sck::BoxType::get(ctx, {tileK, tileN}, element);
  Value zero = sck::ZeroOp::create(b, loc, accType);
  auto kLoop = scf::ForOp::create(b, loc, cst(0), kTiles, cst(1), zero);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kt = kLoop.getInductionVar();
    Value k0 = arith::MulIOp::create(b, loc, kt, cst(tileK));
    // Box coordinates, innermost first, as the TMA maps take them.
    SmallVector<Value> aCoords = {k0, m0};
    if (lhsBatched && !flatRows)
      aCoords.push_back(bIdx);
    SmallVector<Value> bCoords =
        op.getTransposeRhs() ? SmallVector<Value>{k0, n0} : SmallVector<Value>{n0, k0};
    if (rhsBatched)
      bCoords.push_back(bIdx);
    Value boxA = sck::LoadOp::create(b, loc, aType, b.getStringAttr("A"),
                                     aCoords, transposed);
    auto boxB = sck::LoadOp::create(b, loc, bType, b.getStringAttr("B"),
                                    bCoords, transposed || op.getTransposeRhs());
    // Rows of N elements that are no TMA stride (16 bytes): Hopper's
    // producer threads copy the box instead of TMA, the multistage
    // kernel's threads in pieces smaller than 16 bytes.
    if (!transposed && !op.getTransposeRhs() && !isTmaStride(n, element))
      boxB.setByThreads(true);
    Value acc = sck::MmaOp::create(b, loc, accType, transposed ? boxB : boxA,
                                   transposed ? boxA : boxB,
                                   kLoop.getRegionIterArgs().front());
    scf::YieldOp::create(b, loc, acc);
  }
  SmallVector<Value> cCoords = {n0, m0};
  if (!flatRows)
    cCoords.push_back(bIdx);
  auto epilogue = sck::EpilogueOp::create(
      b, loc, b.getStringAttr("C"), cCoords, kLoop.getResult(0), ins,
      transposed, op.getSumRows() ? b.getI64IntegerAttr(m) : IntegerAttr());
  // Result rows that are no TMA stride: each thread stores its own.
  if (!transposed && !multistage && !op.getSumRows() &&
      !isTmaStride(n, op.getType().getElementType()))
    epilogue.setDirectStores(true);
  if (op.hasEpilogue()) {
    // The op's element-wise epilogue, its sc.yield an sck.yield.
    IRMapping mapping;
    op.getEpilogue().cloneInto(&epilogue.getBody(), mapping);
    Operation *yield = epilogue.getBody().front().getTerminator();
    OpBuilder at(yield);
    sck::YieldOp::create(at, yield->getLoc(), yield->getOperand(0));
    yield->erase();
  }
}

/// A function @<caller>_gemm<index>_kernel(%batch, the op's epilogue
/// tensors...) for `op`, its entry block ready.
func::FuncOp createKernelFunction(BatchMatmulOp op, func::FuncOp caller,
                                  unsigned index) {
  OpBuilder b(op.getContext());
  b.setInsertionPointAfter(caller);
  std::string name =
      (caller.getSymName() + "_gemm" + Twine(index) + "_kernel").str();
  SmallVector<Type> argTypes = {b.getIndexType()};
  llvm::append_range(argTypes, op.getEpilogueIns().getTypes());
  auto func = func::FuncOp::create(b, op.getLoc(), name,
                                   b.getFunctionType(argTypes, {}));
  func.setPrivate();
  func->setAttr("sck.op", b.getStringAttr(caller.getSymName() + "/gemm" +
                                          Twine(index)));
  func->setAttr(sck::kKernelScheduleAttrName,
                sck::KernelScheduleAttr::get(
                    op.getContext(), *sck::symbolizeKernelSchedule(scheduleOf(op))));
  op->setAttr(BatchMatmulOp::getKernelAttrName(),
              FlatSymbolRefAttr::get(func.getSymNameAttr()));
  func.addEntryBlock();
  return func;
}

/// The kernel of `op` (the `index`-th GEMM of `caller`): (batch elements,
/// the epilogue's tensor operands...).
void buildKernel(BatchMatmulOp op, func::FuncOp caller, unsigned index,
                 int64_t multistageCols) {
  func::FuncOp func = createKernelFunction(op, caller, index);
  Block *entry = &func.front();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  bool flatRows = op.getLhs().getType().getRank() == 3 &&
                  op.getRhs().getType().getRank() == 2;
  buildTileLoop(b, op, entry->getArgument(0), entry->getArguments().drop_front(),
                flatRows, multistageCols);
  func::ReturnOp::create(b, op.getLoc());
}

/// Tokens a tile of the hybrid-tiled GEMM takes: the N of its wgmma, the
/// least power of two from 8 that covers M, up to 256.
int64_t hybridTokenTile(int64_t m) {
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(m), 8, 256);
}

/// Weight rows a tile of the hybrid-tiled GEMM takes: 128 (two consumers,
/// 64 rows each, on one tokens' box) where the token tile is 128 or more
/// and a weight tile holds 128 rows (both halves then have its kind), else
/// 64. At prefill sizes a 64-row tile reads the tokens' box once per 64
/// weight rows and is bound by that traffic (docs/decisions.md).
int64_t hybridBandRows(int64_t tokens, int64_t tileRows) {
  return tokens >= 128 && tileRows % 128 == 0 ? 128 : 64;
}

/// The kernel of `op`, a GEMM whose rhs is a hybrid-tiled weight W
/// (`y = x W^T`, sc.assemble_hybrid): per tile of `hybridBandRows` weight
/// rows by `hybridTokenTile` tokens, a loop over W's tile columns that reads the
/// tile's kind and slot (sck.hybrid_tile) and multiplies the token box by
/// the dense box of a dense tile (sck.mma), the compressed box and its
/// metadata of a 2:4 tile (sck.mma_sp), nothing for a zero tile. The
/// accumulator holds the result tile transposed (rows: weight rows, the
/// result's columns; the sparse MMA takes only its first operand sparse).
void buildHybridKernel(BatchMatmulOp op, func::FuncOp caller, unsigned index) {
  func::FuncOp func = createKernelFunction(op, caller, index);
  func->setAttr(sck::kKernelScheduleAttrName,
                sck::KernelScheduleAttr::get(op.getContext(),
                                             sck::KernelSchedule::hybrid));
  Block *entry = &func.front();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  auto weight = cast<RankedTensorType>(op.getRhs().getType());
  auto layout = cast<HybridTilesAttr>(weight.getEncoding());
  int64_t tileRows = layout.getTile()[0], tileCols = layout.getTile()[1];
  int64_t m = op.getType().getDimSize(1), n = op.getType().getDimSize(2);
  int64_t tokens = hybridTokenTile(m);
  int64_t band = hybridBandRows(tokens, tileRows);
  func->setAttr(sck::kConsumersAttrName, b.getI64IntegerAttr(band / 64));
  Type element = weight.getElementType();
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto loop = sck::TileLoopOp::create(
      b, loc, entry->getArgument(0), cst(llvm::divideCeil(m, tokens)),
      cst(n / band), sck::TileSchedule::grid, 1, 1);
  func::ReturnOp::create(b, loc);
  Block *body = b.createBlock(&loop.getBody(), {},
                              {b.getIndexType(), b.getIndexType(),
                               b.getIndexType()},
                              {loc, loc, loc});
  b.setInsertionPointToStart(body);
  Value bIdx = body->getArgument(0), mt = body->getArgument(1),
        nt = body->getArgument(2);
  Value m0 = arith::MulIOp::create(b, loc, mt, cst(tokens));
  Value n0 = arith::MulIOp::create(b, loc, nt, cst(band));
  // The tile row of W holding these rows, and where in it they start.
  Value tileRow = arith::DivUIOp::create(b, loc, n0, cst(tileRows));
  Value rowInTile = arith::RemUIOp::create(b, loc, n0, cst(tileRows));
  auto accType = sck::AccType::get(ctx, {band, tokens}, b.getF32Type());
  Value zero = sck::ZeroOp::create(b, loc, accType);
  auto kLoop = scf::ForOp::create(b, loc, cst(0), cst(layout.getGrid()[1]),
                                  cst(1), zero);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kt = kLoop.getInductionVar();
    Value acc = kLoop.getRegionIterArgs().front();
    Value k0 = arith::MulIOp::create(b, loc, kt, cst(tileCols));
    // The tokens' box [k, m, b], read transposed: k by tokens.
    Value xBox = sck::LoadOp::create(
        b, loc, sck::BoxType::get(ctx, {tileCols, tokens}, element),
        b.getStringAttr("A"), ValueRange{k0, m0, bIdx}, /*transposed=*/true);
    auto tile = sck::HybridTileOp::create(b, loc, b.getIndexType(),
                                          b.getIndexType(), b.getStringAttr("B"),
                                          tileRow, kt);
    Value c0 = cst(0);
    auto kinds = scf::IndexSwitchOp::create(b, loc, TypeRange{accType},
                                            tile.getKind(),
                                            ArrayRef<int64_t>{1, 2}, 2);
    auto box = [&](StringRef name, int64_t cols, Type type) {
      return sck::LoadOp::create(b, loc, sck::BoxType::get(ctx, {band, cols}, type),
                                 b.getStringAttr(name),
                                 ValueRange{c0, rowInTile, tile.getSlot()},
                                 /*transposed=*/false)
          .getResult();
    };
    {
      b.setInsertionPointToStart(&kinds.getCaseRegions()[0].emplaceBlock());
      Value w = box("B.dense", tileCols, element);
      scf::YieldOp::create(b, loc,
                           Value(sck::MmaOp::create(b, loc, accType, w, xBox, acc)));
      b.setInsertionPointToStart(&kinds.getCaseRegions()[1].emplaceBlock());
      Value values = box("B.sparse", tileCols / 2, element);
      Value meta = box("B.meta", tileCols / 32, b.getI32Type());
      scf::YieldOp::create(b, loc, Value(sck::MmaSparseOp::create(
                                       b, loc, accType, values, meta, xBox, acc)));
      // A zero tile adds nothing.
      b.setInsertionPointToStart(&kinds.getDefaultRegion().emplaceBlock());
      scf::YieldOp::create(b, loc, acc);
    }
    b.setInsertionPointAfter(kinds);
    scf::YieldOp::create(b, loc, kinds.getResult(0));
  }
  b.setInsertionPointAfter(kLoop);
  auto epilogue = sck::EpilogueOp::create(
      b, loc, b.getStringAttr("C"), ValueRange{n0, m0, bIdx}, kLoop.getResult(0),
      entry->getArguments().drop_front(), /*transposed=*/true,
      /*sum_rows=*/IntegerAttr());
  if (op.hasEpilogue()) {
    IRMapping mapping;
    op.getEpilogue().cloneInto(&epilogue.getBody(), mapping);
    Operation *yield = epilogue.getBody().front().getTerminator();
    OpBuilder at(yield);
    sck::YieldOp::create(at, yield->getLoc(), yield->getOperand(0));
    yield->erase();
  }
}

/// Why `op` has no kernel-level form here, or an empty string.
std::string limitation(AttentionOp op) {
  RankedTensorType q = op.getQuery().getType();
  Type element = q.getElementType();
  if (!element.isF16() && !element.isBF16())
    return "16-bit operands only";
  auto mask = dyn_cast_if_present<BlockMaskAttrInterface>(op.getMaskAttr());
  if (op.getMaskAttr() &&
      (!mask || (mask.getMaskBlockSize() != 64 && mask.getMaskBlockSize() != 128)))
    return "block masks of 64 or 128 tokens only";
  if (q.isDynamicDim(1) || q.isDynamicDim(3))
    return "heads and head dim must be static";
  if (q.getDimSize(3) % 64 != 0)
    return "the head dim must be a multiple of 64";
  std::string why = attentionConfigLimitation(op, getAttentionConfig(op));
  if (!why.empty())
    return "its kernel configuration cannot run it: " + why;
  return "";
}

/// The kernel of attention `op` (the `index`-th of `caller`): a function
/// (batch elements (, the index) (, the pairs table) (, the candidate
/// order) (, the query length) (, the key length) (, the mask's tables),
/// the lengths when dynamic, the tables when a block mask's lengths are) whose tile loop runs over batch x 64-row
/// query tiles x heads, each tile a flash-attention loop over key blocks.
void buildAttentionKernel(AttentionOp op, func::FuncOp caller,
                          unsigned index, float scale) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(caller);
  RankedTensorType qType = op.getQuery().getType();
  Type element = qType.getElementType();
  int64_t queryLen = qType.getDimSize(2), headDim = qType.getDimSize(3);
  int64_t heads = qType.getDimSize(1);
  int64_t keyLen = op.getKey().getType().getDimSize(2);
  bool indexed = static_cast<bool>(op.getIndex());
  // The kernel's key blocks, consumer warpgroups and walk.
  AttentionConfigAttr config = getAttentionConfig(op);
  auto mask = dyn_cast_if_present<BlockMaskAttrInterface>(op.getMaskAttr());
  int64_t blockN = config.getKeyBlock();
  // The mask's blocks: the key blocks, or two of them each (64-key blocks
  // under a 128-token mask).
  int64_t maskBlock = mask ? mask.getMaskBlockSize() : blockN;
  int64_t keyBlocksPerMaskBlock = maskBlock / blockN;
  bool dynamicQuery = ShapedType::isDynamic(queryLen);
  bool dynamicKey = ShapedType::isDynamic(keyLen);
  // A block mask over lengths known only at launch: its BSR tables
  // ([offsets per query block, then kept key blocks], as the runtime
  // builds them) are an argument, marked with the mask they encode.
  bool tablesArg = mask && (dynamicQuery || dynamicKey);
  // Two candidates of one request a tile (the generator's pairs kernel):
  // which ones is known from the index's values only, so the table the
  // pairing kernel makes (partner + 1, 0 alone, -1 some other's partner)
  // is an argument after the index, marked sck.candidate_pairs.
  bool pairs = config.getWalk() == AttentionWalk::pairs;
  // Candidates in request order (a grouping kernel sorts them by the
  // index first): the tile loop's batch coordinate is a position of the
  // order, an argument after the pairs table marked sck.candidate_order
  // (the pairs table is then by position, its partners candidates).
  bool grouped = config.getGroupCandidates();
  auto i32Table = RankedTensorType::get({ShapedType::kDynamic}, b.getI32Type());
  SmallVector<Type> argTypes = {b.getIndexType()};
  if (indexed)
    argTypes.push_back(op.getIndex().getType());
  unsigned pairsArg = argTypes.size();
  if (pairs)
    argTypes.push_back(i32Table);
  unsigned orderArg = argTypes.size();
  if (grouped)
    argTypes.push_back(i32Table);
  if (dynamicQuery)
    argTypes.push_back(b.getIndexType());
  if (dynamicKey)
    argTypes.push_back(b.getIndexType());
  if (tablesArg)
    argTypes.push_back(i32Table);
  std::string name =
      (caller.getSymName() + "_attention" + Twine(index) + "_kernel").str();
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  func.setPrivate();
  if (tablesArg)
    func.setArgAttr(argTypes.size() - 1, "sck.mask_tables", op.getMaskAttr());
  if (pairs)
    func.setArgAttr(pairsArg, "sck.candidate_pairs", b.getUnitAttr());
  if (grouped)
    func.setArgAttr(orderArg, "sck.candidate_order", b.getUnitAttr());
  func->setAttr("sck.op", b.getStringAttr(caller.getSymName() + "/attention" +
                                          Twine(index)));
  func->setAttr(sck::kConsumersAttrName,
                b.getI64IntegerAttr(config.getConsumers()));
  op->setAttr(BatchMatmulOp::getKernelAttrName(),
              FlatSymbolRefAttr::get(func.getSymNameAttr()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // The lengths: constants, or the function's arguments after the index.
  unsigned next = orderArg + (grouped ? 1 : 0);
  Value queryLenValue =
      dynamicQuery ? entry->getArgument(next++) : cst(queryLen);
  Value keyLenValue = dynamicKey ? entry->getArgument(next++) : cst(keyLen);
  auto ceilDiv = [&](Value v, int64_t d) -> Value {
    Value up = arith::AddIOp::create(b, loc, v, cst(d - 1));
    return arith::DivUIOp::create(b, loc, up, cst(d));
  };
  // A block mask's kept key blocks as BSR tables (offsets per query
  // block, then key blocks), constants of the kernel as in the generator.
  Value offsets, indices;
  // Kept key block i of the index table is at indices[indexBase + i].
  Value indexBase = cst(0);
  if (tablesArg) {
    offsets = indices = entry->getArguments().back();
    indexBase = arith::AddIOp::create(
        b, loc, ceilDiv(queryLenValue, maskBlock), cst(1));
  } else if (mask) {
    int64_t numQueryBlocks = llvm::divideCeil(queryLen, maskBlock);
    int64_t numKeyBlocks = llvm::divideCeil(keyLen, maskBlock);
    SmallVector<int32_t> offsetTable, indexTable;
    mask.getBlockTables(numQueryBlocks, numKeyBlocks, offsetTable, indexTable);
    auto table = [&](ArrayRef<int32_t> values) -> Value {
      auto type = RankedTensorType::get(
          {static_cast<int64_t>(values.size())}, b.getI32Type());
      return arith::ConstantOp::create(b, loc, type,
                                       DenseIntElementsAttr::get(type, values));
    };
    offsets = table(offsetTable);
    indices = table(indexTable);
  }
  Value keyBlocks = ceilDiv(keyLenValue, blockN);
  // Two consumers on query tiles that read the same keys, as the generator
  // runs them: two candidates of one request (tile b: candidate b and its
  // partner from the pairs table, nothing when b is some other's partner),
  // or the two 64-row halves of a 128-row query tile; either way a tile of
  // two halves sharing every K/V box.
  int64_t halves = config.getConsumers();
  int64_t tileRows = config.getTileRows();
  auto loop = sck::TileLoopOp::create(
      b, loc, entry->getArgument(0), ceilDiv(queryLenValue, tileRows),
      cst(heads),
      // Chained heads: a CTA per (candidate, query tile) walks its heads.
      config.getWalk() == AttentionWalk::chained ? sck::TileSchedule::chained
                                                 : sck::TileSchedule::grid,
      1, 1);
  func::ReturnOp::create(b, loc);
  Block *body = b.createBlock(&loop.getBody(), {},
                              {b.getIndexType(), b.getIndexType(),
                               b.getIndexType()},
                              {loc, loc, loc});
  b.setInsertionPointToStart(body);
  Value bIdx = body->getArgument(0), qTile = body->getArgument(1),
        h = body->getArgument(2);
  Value tile0 = arith::MulIOp::create(b, loc, qTile, cst(tileRows));
  // The tile's candidate: bIdx, or the one at position bIdx of the order.
  Value candidate = bIdx;
  if (grouped)
    candidate = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        tensor::ExtractOp::create(b, loc, entry->getArgument(orderArg), bIdx));
  // Per half its batch element and first query row.
  SmallVector<Value> q0s, batches(halves, candidate);
  for (int64_t half = 0; half < halves; ++half)
    q0s.push_back(pairs ? tile0
                        : arith::AddIOp::create(b, loc, tile0, cst(64 * half)));
  Value hasPartner;
  if (pairs) {
    // Entry p of tile b: p > 0 pairs its candidate with candidate p - 1, 0
    // leaves it alone, -1 makes it some other's partner (nothing to do).
    Value entryB =
        tensor::ExtractOp::create(b, loc, entry->getArgument(pairsArg), bIdx);
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
    Value leads = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                        entryB, zero);
    auto ifLeads = scf::IfOp::create(b, loc, leads, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifLeads.getThenRegion().front());
    hasPartner = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                       entryB, zero);
    Value partner = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::SubIOp::create(b, loc, entryB,
                              arith::ConstantIntOp::create(b, loc, 1, 32)));
    // Alone, the second half repeats the first and stores nothing.
    batches[1] = arith::SelectOp::create(b, loc, hasPartner, partner, candidate);
  }
  // The second half stores only when it holds rows of its own: a
  // candidate's partner, or rows before the query length (its consumer
  // has nothing to do otherwise).
  Value secondOwns = hasPartner;
  if (halves == 2 && !pairs)
    secondOwns = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       q0s[1], queryLenValue);
  // Keys and values of the request index[b] (IKBO type II), else of b.
  Value kvBatch = candidate;
  if (indexed) {
    Value user =
        tensor::ExtractOp::create(b, loc, entry->getArgument(1), candidate);
    kvBatch = arith::IndexCastOp::create(b, loc, b.getIndexType(), user);
  }
  // Q as 64-column chunks of the head dim (the k of Q K^T), per half.
  int64_t chunks = headDim / 64;
  auto qBox = sck::BoxType::get(ctx, {64, 64}, element);
  SmallVector<SmallVector<Value>> qs(halves);
  for (int64_t half = 0; half < halves; ++half)
    for (int64_t c = 0; c < chunks; ++c)
      qs[half].push_back(sck::LoadOp::create(
          b, loc, qBox, b.getStringAttr("Q"),
          ValueRange{cst(c * 64), q0s[half], h, batches[half]},
          /*transposed=*/false));
  auto oType = sck::AccType::get(ctx, {64, headDim}, b.getF32Type());
  auto stateType = sck::AccType::get(ctx, {64, 2}, b.getF32Type());
  auto sType = sck::AccType::get(ctx, {64, blockN}, b.getF32Type());
  // Per half its O and softmax state, carried through the key blocks.
  SmallVector<Value> inits;
  for (int64_t half = 0; half < halves; ++half) {
    inits.push_back(sck::ZeroOp::create(b, loc, oType));
    inits.push_back(sck::SoftmaxInitOp::create(b, loc, stateType));
  }
  // The key blocks: all, or the kept ones of this tile's query block
  // (positions first .. last of the index table; both halves of a 128-row
  // tile lie in one query block of a 128-token mask).
  auto extract = [&](Value table, Value at) -> Value {
    Value v = tensor::ExtractOp::create(b, loc, table, at);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  // Under a mask of blocks twice the key blocks', position i of the loop
  // is half i % 2 of the table's kept block i / 2.
  auto times = [&](Value v, int64_t n) -> Value {
    return n == 1 ? v : arith::MulIOp::create(b, loc, v, cst(n)).getResult();
  };
  Value first = cst(0), last = keyBlocks;
  if (mask) {
    Value queryBlock = arith::DivUIOp::create(b, loc, tile0, cst(maskBlock));
    first = times(extract(offsets, queryBlock), keyBlocksPerMaskBlock);
    last = times(extract(offsets,
                         arith::AddIOp::create(b, loc, queryBlock, cst(1))),
                 keyBlocksPerMaskBlock);
  }
  auto blocks = scf::ForOp::create(b, loc, first, last, cst(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(blocks.getBody());
    Value keyBlock = blocks.getInductionVar();
    if (mask && keyBlocksPerMaskBlock == 1) {
      keyBlock = extract(indices,
                         arith::AddIOp::create(b, loc, indexBase, keyBlock));
    } else if (mask) {
      Value kept = arith::DivUIOp::create(b, loc, keyBlock,
                                          cst(keyBlocksPerMaskBlock));
      Value part = arith::RemUIOp::create(b, loc, keyBlock,
                                          cst(keyBlocksPerMaskBlock));
      Value maskKeyBlock =
          extract(indices, arith::AddIOp::create(b, loc, indexBase, kept));
      keyBlock = arith::AddIOp::create(
          b, loc, times(maskKeyBlock, keyBlocksPerMaskBlock), part);
    }
    Value k0 = arith::MulIOp::create(b, loc, keyBlock, cst(blockN));
    // K stored [keys][head dim], read transposed: its boxes serve both
    // halves, as V's box does.
    auto kBox = sck::BoxType::get(ctx, {64, blockN}, element);
    SmallVector<Value> ks;
    for (int64_t c = 0; c < chunks; ++c)
      ks.push_back(sck::LoadOp::create(b, loc, kBox, b.getStringAttr("K"),
                                       ValueRange{cst(c * 64), k0, h, kvBatch},
                                       /*transposed=*/true));
    ValueRange iters = blocks.getRegionIterArgs();
    SmallVector<sck::SoftmaxOp> steps;
    for (int64_t half = 0; half < halves; ++half) {
      // S = Q K^T, one softmax step.
      Value s = sck::ZeroOp::create(b, loc, sType);
      for (int64_t c = 0; c < chunks; ++c)
        s = sck::MmaOp::create(b, loc, sType, qs[half][c], ks[c], s);
      steps.push_back(sck::SoftmaxOp::create(
          b, loc, sck::FragType::get(ctx, {64, blockN}, element), stateType, s,
          iters[2 * half + 1], k0, keyLenValue, b.getF32FloatAttr(scale)));
    }
    auto vBox = sck::BoxType::get(ctx, {blockN, headDim}, element);
    Value v = sck::LoadOp::create(b, loc, vBox, b.getStringAttr("V"),
                                  ValueRange{cst(0), k0, h, kvBatch},
                                  /*transposed=*/false);
    SmallVector<Value> yields;
    for (auto [half, step] : llvm::enumerate(steps)) {
      // O brought to the block's maxima, then P V added.
      Value o = sck::RescaleOp::create(b, loc, oType, iters[2 * half],
                                       iters[2 * half + 1], step.getNewState());
      yields.push_back(sck::MmaOp::create(b, loc, oType, step.getP(), v, o));
      yields.push_back(step.getNewState());
    }
    scf::YieldOp::create(b, loc, yields);
  }
  for (int64_t half = 0; half < halves; ++half) {
    Value out = sck::NormalizeOp::create(b, loc, oType,
                                         blocks.getResult(2 * half),
                                         blocks.getResult(2 * half + 1));
    OpBuilder::InsertionGuard guard(b);
    if (half == 1) {
      auto ifOwn = scf::IfOp::create(b, loc, secondOwns, false);
      b.setInsertionPointToStart(&ifOwn.getThenRegion().front());
    }
    sck::EpilogueOp::create(b, loc, b.getStringAttr("O"),
                            ValueRange{cst(0), q0s[half], h, batches[half]},
                            out, ValueRange{}, /*transposed=*/false,
                            /*sum_rows=*/IntegerAttr());
  }
}


struct ScLowerToSckPass : sc::impl::ScLowerToSckPassBase<ScLowerToSckPass> {
  using Base::Base;
  void runOnOperation() final {
    if (multistageTileCols != 0 && multistageTileCols != 128 &&
        multistageTileCols != 256) {
      getOperation().emitError("sc-lower-to-sck: multistage-tile-cols is 128 "
                               "or 256 (0 chooses), not ")
          << multistageTileCols.getValue();
      return signalPassFailure();
    }
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
        if (isa_and_nonnull<HybridTilesAttr>(op.getRhs().getType().getEncoding())) {
          buildHybridKernel(op, caller, index++);
          continue;
        }
        buildKernel(op, caller, index++, multistageTileCols);
      }
      if (!attention)
        continue;
      unsigned attentionIndex = 0;
      SmallVector<AttentionOp> attentions;
      caller.walk([&](AttentionOp op) { attentions.push_back(op); });
      for (AttentionOp op : attentions) {
        std::string why = limitation(op);
        if (!why.empty()) {
          if (report)
            op.emitRemark() << "no kernel-level form: " << why;
          ++attentionIndex;
          continue;
        }
        buildAttentionKernel(op, caller, attentionIndex++,
                             op.getScaleOrDefault());
      }
    }
  }
};
} // namespace
