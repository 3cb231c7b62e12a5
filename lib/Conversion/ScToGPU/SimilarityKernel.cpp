//===- SimilarityKernel.cpp - the kernels of a split sc.sparse_matmul -----===//
//
// A similarity split at a head (docs/sparse-similarity.md) runs as two
// kernels written in sck ops:
//  - scatter: a warp a query row; for each entry (d, v) of the query's tail,
//    the lanes walk the items of dimension d (the rhs by dimension,
//    transpose_rhs) and add v * w into the scores with atomics. Only the
//    tail's pair products are touched. When the epilogue is linear in the
//    product (the cosine) and nothing selects from the result, it runs
//    after the tile kernel and adds v * w * epilogue(1) into the result
//    itself: no workspace is cleared, written and read back.
//  - tile: a 128 x 128 tile of (query, item) a CTA: the dense heads'
//    product in exact fp32 (CUDA-core FMAs over k-tiles of 16 staged in
//    shared memory), plus the scores, through the epilogue (the cosine),
//    stored; or, with a selection (sc.select_rows_above) consuming the
//    product, each element above its row's threshold appended to the row
//    (a clear kernel empties the slots first) and the scores never stored.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/SimilarityKernel.h"
#include "GemmKernelCommon.h"
#include "KernelBuilder.h"

#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
constexpr int64_t kThreads = 256, kWarps = kThreads / 32;
// sck.fma_tile's tile, the k-tile depth staged at once, and the stage's
// row length (padded by 4 floats: the transposed stores of a warp spread
// over 8 banks instead of one).
constexpr int64_t kTile = 128, kDepth = 16, kStageRow = kTile + 4;

/// The memref type of a tensor the entry passes.
MemRefType memrefOfValue(Value v) {
  return memrefOf(cast<RankedTensorType>(v.getType()));
}

/// The #sc.block_csr of a row set.
BlockCsrAttr layoutOf(Value rows) {
  return cast<BlockCsrAttr>(cast<RankedTensorType>(rows.getType()).getEncoding());
}

/// The buffers of the sc.assemble_csr that made `rows`.
AssembleCsrOp assembly(Value rows) { return rows.getDefiningOp<AssembleCsrOp>(); }

/// The memref types of the epilogue operands.
SmallVector<Type> epilogueMemrefs(SparseMatmulOp op) {
  SmallVector<Type> types;
  for (Value in : op.getEpilogueIns())
    types.push_back(memrefOfValue(in));
  return types;
}

/// scatter(lhs ptr, words, values, rhs ptr, words, values, scores), or with
/// `scale` (the epilogue function) scatter(..., result, ins...), each
/// product scaled by scale(1, row, column, ins...).
void writeScatterKernel(SparseMatmulOp op, gpu::GPUModuleOp module,
                        StringRef name, StringRef scale) {
  Location loc = op.getLoc();
  OpBuilder b(op.getContext());
  AssembleCsrOp lhs = assembly(op.getLhs()), rhs = assembly(op.getRhs());
  SmallVector<Type> params;
  for (AssembleCsrOp a : {lhs, rhs})
    for (Value v : a->getOperands())
      params.push_back(memrefOfValue(v));
  params.push_back(MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic},
                                   b.getF32Type()));
  unsigned firstIn = params.size();
  if (!scale.empty())
    llvm::append_range(params, epilogueMemrefs(op));
  auto func = createKernelFunction(b, loc, module, name, params, kThreads);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  BlockArgument lPtr = func.getArgument(0), lWords = func.getArgument(1),
                lValues = func.getArgument(2), rPtr = func.getArgument(3),
                rWords = func.getArgument(4), rValues = func.getArgument(5),
                scores = func.getArgument(6);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, index(kWarps)),
      arith::DivUIOp::create(b, loc, tid, index(32)));
  Value lane = arith::RemUIOp::create(b, loc, tid, index(32));
  Value lEntries = memref::DimOp::create(b, loc, lWords, 0);
  Value rEntries = memref::DimOp::create(b, loc, rWords, 0);
  BlockCsrAttr lLayout = layoutOf(op.getLhs()), rLayout = layoutOf(op.getRhs());
  auto entry = [&](Value words, Value values, Value at, BlockCsrAttr layout) {
    return sck::CsrEntryOp::create(b, loc, b.getIndexType(), b.getF32Type(),
                                   words, values, at, layout.getBlockSize(),
                                   layout.getOffsetBits());
  };
  Type indexType = b.getIndexType();
  auto range =
      sck::CsrRowOp::create(b, loc, indexType, indexType, lPtr, row, lEntries);
  auto entries = scf::ForOp::create(b, loc, range.getBegin(), range.getEnd(),
                                    index(1));
  b.setInsertionPointToStart(entries.getBody());
  auto q = entry(lWords, lValues, entries.getInductionVar(), lLayout);
  auto items = sck::CsrRowOp::create(b, loc, indexType, indexType, rPtr,
                                     q.getColumn(), rEntries);
  auto walk = scf::ForOp::create(
      b, loc, arith::AddIOp::create(b, loc, items.getBegin(), lane),
      items.getEnd(), index(32));
  b.setInsertionPointToStart(walk.getBody());
  auto item = entry(rWords, rValues, walk.getInductionVar(), rLayout);
  Value product =
      arith::MulFOp::create(b, loc, q.getValue(), item.getValue());
  sck::ScatterAddOp::create(
      b, loc, product, scores, row, item.getColumn(),
      scale.empty() ? FlatSymbolRefAttr() : b.getAttr<FlatSymbolRefAttr>(scale),
      func.getArguments().drop_front(firstIn));
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
}

/// clear(values, cols): every slot of a selection empty (-inf, -1) before
/// the tile kernel appends to the rows; a grid-stride loop.
void writeClearKernel(SelectRowsAboveOp select, gpu::GPUModuleOp module,
                      StringRef name) {
  Location loc = select.getLoc();
  OpBuilder b(select.getContext());
  auto values = memrefOfValue(select.getValues());
  auto cols = memrefOfValue(select.getCols());
  auto func = createKernelFunction(b, loc, module, name, {values, cols}, kThreads);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value v = func.getArgument(0), c = func.getArgument(1);
  Value rows = memref::DimOp::create(b, loc, v, 0);
  Value width = memref::DimOp::create(b, loc, v, 1);
  Value total = arith::MulIOp::create(b, loc, rows, width);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, index(kThreads)), tid);
  Value stride = arith::MulIOp::create(b, loc, grid, index(kThreads));
  Value none = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value noColumn = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(-1));
  auto loop = scf::ForOp::create(b, loc, first, total, stride);
  b.setInsertionPointToStart(loop.getBody());
  Value e = loop.getInductionVar();
  Value r = arith::DivUIOp::create(b, loc, e, width);
  Value k = arith::RemUIOp::create(b, loc, e, width);
  memref::StoreOp::create(b, loc, none, v, ValueRange{r, k});
  // cols has the capacity of values (the op's verifier).
  memref::StoreOp::create(b, loc, noColumn, c, ValueRange{r, k});
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
}

/// The kernels' epilogue, (dot, m, n, ins...) -> element: the op's
/// region (the dot product itself without one).
LogicalResult writeEpilogueFunction(SparseMatmulOp op,
                                    gpu::GPUModuleOp module, StringRef name,
                                    ArrayRef<Type> memrefs) {
  Location loc = op.getLoc();
  OpBuilder b(op.getContext());
  b.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> args = {b.getF32Type(), b.getIndexType(), b.getIndexType()};
  llvm::append_range(args, memrefs);
  Type element = op.getType().getElementType();
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(args, {element}));
  func.setPrivate();
  return buildEpilogueFunction(
      loc, element, /*lead=*/3,
      op.getEpilogue().empty() ? nullptr : &op.getEpilogue().front(), func);
}

/// tile(lhs head, rhs head, [scores,] result, ins...), or with `select`
/// tile(lhs head, rhs head, scores, thresholds, counts, values, cols,
/// ins...); the scores only with `withScores`.
void writeTileKernel(SparseMatmulOp op, gpu::GPUModuleOp module,
                     StringRef name, StringRef epilogueName,
                     SelectRowsAboveOp select, bool withScores) {
  Location loc = op.getLoc();
  OpBuilder b(op.getContext());
  SmallVector<Type> params = {memrefOfValue(op.getLhsHead()),
                              memrefOfValue(op.getRhsHead())};
  // The scores workspace, [M, N] f32.
  if (withScores)
    params.push_back(MemRefType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic}, b.getF32Type()));
  unsigned firstOut = params.size();
  if (select)
    for (Value v : {select.getThresholds(), select.getCounts(),
                    select.getValues(), select.getCols()})
      params.push_back(memrefOfValue(v));
  else
    params.push_back(memrefOfValue(op.getResult()));
  unsigned firstIn = params.size();
  llvm::append_range(params, epilogueMemrefs(op));
  auto stage = MemRefType::get(
      {kDepth, kStageRow}, b.getF32Type(), AffineMap(),
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup));
  auto func = createKernelFunction(b, loc, module, name, params, kThreads,
                                   {stage, stage});
  // Two CTAs an SM (128 registers, no spills): the whole entry 1.5x faster
  // than one CTA at 171 registers on the H100 (docs/decisions.md).
  func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(2));
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value lhsHead = func.getArgument(0), rhsHead = func.getArgument(1);
  Value stageA = func.getWorkgroupAttributions()[0],
        stageB = func.getWorkgroupAttributions()[1];
  Value m0 = arith::MulIOp::create(
      b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::y), index(kTile));
  Value n0 = arith::MulIOp::create(
      b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), index(kTile));
  auto accType = VectorType::get({64}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  Value depth = memref::DimOp::create(b, loc, lhsHead, 1);
  auto kLoop = scf::ForOp::create(b, loc, index(0), depth, index(kDepth),
                                  ValueRange{zero});
  b.setInsertionPointToStart(kLoop.getBody());
  Value k = kLoop.getInductionVar();
  sck::StageRowsOp::create(b, loc, lhsHead, m0, k, stageA, kTile);
  sck::StageRowsOp::create(b, loc, rhsHead, n0, k, stageB, kTile);
  Value acc = sck::FmaTileOp::create(b, loc, accType, stageA, stageB,
                                     kLoop.getRegionIterArgs()[0]);
  scf::YieldOp::create(b, loc, acc);
  b.setInsertionPointAfter(kLoop);
  SmallVector<Value> ins;
  for (unsigned i = 0; i < op.getEpilogueIns().size(); ++i)
    ins.push_back(func.getArgument(firstIn + i));
  // The tails' products (the scatter kernel's scores) added to the heads'.
  Value scores = withScores ? func.getArgument(2) : Value();
  auto out = [&](unsigned i) { return func.getArgument(firstOut + i); };
  if (select) {
    Value rows = memref::DimOp::create(b, loc, lhsHead, 0);
    Value items = memref::DimOp::create(b, loc, rhsHead, 0);
    sck::SelectTileOp::create(b, loc, kLoop.getResult(0), m0, n0, rows, items,
                              scores, epilogueName, ins, out(0), out(1),
                              out(2), out(3));
  } else {
    sck::StoreTileOp::create(b, loc, kLoop.getResult(0), out(0), m0, n0,
                             scores, epilogueName, ins);
  }
  gpu::ReturnOp::create(b, loc);
}
} // namespace

std::string mlir::sc::sparseMatmulLimitation(SparseMatmulOp op) {
  if (!op.getLhsHead())
    return "the GPU runs the product split at a head (head(...) operands: "
           "scCsrChooseHead / scCsrSplitHead, sparcast.csr_head / csr_split)";
  if (!op.getTransposeRhs())
    return "the GPU reads the rhs by dimension (transpose_rhs: "
           "scCsrTranspose, sparcast.csr_transpose)";
  if (!assembly(op.getLhs()) || !assembly(op.getRhs()))
    return "both row sets must be sc.assemble_csr of the entry's buffers";
  if (!op.getLhs().getType().getElementType().isF32() ||
      !op.getRhs().getType().getElementType().isF32())
    return "f32 values only";
  for (Value in : op.getEpilogueIns())
    if (!isa<RankedTensorType>(in.getType()))
      return "tensor epilogue operands only";
  return "";
}

bool mlir::sc::addsSparsePartAfterEpilogue(SparseMatmulOp op,
                                           SelectRowsAboveOp select) {
  return !select && op.getType().getElementType().isF32() &&
         op.isEpilogueLinearInProduct();
}

FailureOr<std::vector<KernelLaunch>>
mlir::sc::buildSparseMatmulKernels(SparseMatmulOp op,
                                   gpu::GPUModuleOp gpuModule, StringRef name,
                                   const SparseMatmulBinding &binding,
                                   SelectRowsAboveOp select) {
  std::string why = sparseMatmulLimitation(op);
  if (!why.empty())
    return op.emitError("sparcast-aot: no kernel for this sc.sparse_matmul: ")
           << why;
  MLIRContext *ctx = op.getContext();
  ctx->loadDialect<arith::ArithDialect, func::FuncDialect, memref::MemRefDialect,
                   scf::SCFDialect, sck::SckDialect, vector::VectorDialect>();
  std::string scatterName = (name + "_scatter").str();
  std::string tileName = (name + "_tile").str();
  std::string clearName = (name + "_clear").str();
  std::string epilogueName = (name + "_epilogue").str();
  if (select && !op.getType().getElementType().isF32())
    return op.emitError("sparcast-aot: a selection reads f32 scores, got ")
           << op.getType().getElementType();
  bool after = binding.scores.empty();
  if (after && !addsSparsePartAfterEpilogue(op, select))
    return op.emitError("sparcast-aot: this sc.sparse_matmul needs a "
                        "workspace for its sparse part");
  if (failed(writeEpilogueFunction(op, gpuModule, epilogueName,
                                   epilogueMemrefs(op))))
    return failure();
  writeScatterKernel(op, gpuModule, scatterName,
                     after ? StringRef(epilogueName) : StringRef());
  if (select)
    writeClearKernel(select, gpuModule, clearName);
  writeTileKernel(op, gpuModule, tileName, epilogueName, select,
                  /*withScores=*/!after);

  KernelLaunch scatter;
  scatter.kernel = scatterName;
  scatter.block[0] = kThreads;
  scatter.grid[0] = binding.rows.dividedUp(kWarps);
  scatter.grid[1] = scatter.grid[2] = LaunchDim::of(1);
  for (const CsrBinding *c : {&binding.lhs, &binding.rhs})
    for (const std::string &t : {c->rowPtr, c->words, c->values})
      scatter.params.push_back(LaunchParam::memref(t));
  if (after) {
    scatter.params.push_back(LaunchParam::memref(binding.result));
    for (const std::string &t : binding.epilogueIns)
      scatter.params.push_back(LaunchParam::memref(t));
    scatter.summary =
        llvm::formatv("{0}: the sparse parts' products of {1} x {2}, each "
                      "scaled by the epilogue at 1, added into {3} (a warp "
                      "a row, atomics)",
                      scatterName, binding.lhs.values, binding.rhs.values,
                      binding.result)
            .str();
  } else {
    scatter.params.push_back(LaunchParam::memref(binding.scores));
    scatter.summary = llvm::formatv("{0}: the sparse parts' products of {1} "
                                    "x {2} into {3} (a warp a row, atomics)",
                                    scatterName, binding.lhs.values,
                                    binding.rhs.values, binding.scores)
                          .str();
  }

  KernelLaunch tile;
  tile.kernel = tileName;
  tile.block[0] = kThreads;
  tile.grid[0] = binding.items.dividedUp(kTile);
  tile.grid[1] = binding.rows.dividedUp(kTile);
  tile.grid[2] = LaunchDim::of(1);
  for (const std::string &t : {binding.lhsHead, binding.rhsHead})
    tile.params.push_back(LaunchParam::memref(t));
  if (!after)
    tile.params.push_back(LaunchParam::memref(binding.scores));
  if (select)
    for (const std::string &t :
         {binding.thresholds, binding.counts, binding.values, binding.cols})
      tile.params.push_back(LaunchParam::memref(t));
  else
    tile.params.push_back(LaunchParam::memref(binding.result));
  for (const std::string &t : binding.epilogueIns)
    tile.params.push_back(LaunchParam::memref(t));
  std::string into =
      select ? llvm::formatv("the elements above {0} appended to their rows "
                             "({1}, {2}, {3}; the scores never written)",
                             binding.thresholds, binding.counts,
                             binding.values, binding.cols)
                   .str()
             : "into " + binding.result;
  std::string plus = after ? "" : ", plus " + binding.scores;
  tile.summary =
      llvm::formatv("{0}: heads {1} x {2}^T in exact fp32 (128 x 128 tiles, "
                    "CUDA-core FMAs){3}, through the epilogue, {4}",
                    tileName, binding.lhsHead, binding.rhsHead, plus, into)
          .str();
  std::vector<KernelLaunch> launches;
  if (select) {
    KernelLaunch clear;
    clear.kernel = clearName;
    clear.block[0] = kThreads;
    // Enough CTAs to fill the GPU; each loops over the rest.
    clear.grid[0] = LaunchDim::of(528);
    clear.grid[1] = clear.grid[2] = LaunchDim::of(1);
    clear.params = {LaunchParam::memref(binding.values),
                    LaunchParam::memref(binding.cols)};
    clear.summary = llvm::formatv("{0}: every slot of {1}, {2} empty (-inf, -1)",
                                  clearName, binding.values, binding.cols)
                        .str();
    launches.push_back(std::move(clear));
  }
  if (after) {
    launches.push_back(std::move(tile));
    launches.push_back(std::move(scatter));
  } else {
    launches.push_back(std::move(scatter));
    launches.push_back(std::move(tile));
  }
  return launches;
}
