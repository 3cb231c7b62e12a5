//===- ScOps.cpp - ops of the sc dialect ----------------------------------===//
//
// Verifiers of the sc ops. Shape checks share small helpers that take the
// role of the operand, so every message names what is wrong and where.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sc;

static bool compatibleDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static std::string dimToString(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// Checks that dimension `what` of `role` (size `have`) matches `want`.
static LogicalResult verifyDim(Operation *op, StringRef role, StringRef what,
                               int64_t have, int64_t want) {
  if (compatibleDims(have, want))
    return success();
  return op->emitOpError() << "expected " << role << " " << what << " to be "
                           << dimToString(want) << ", got "
                           << dimToString(have);
}

static LogicalResult verifyRank(Operation *op, StringRef role,
                                RankedTensorType type,
                                ArrayRef<int64_t> allowed) {
  if (llvm::is_contained(allowed, type.getRank()))
    return success();
  InFlightDiagnostic diag = op->emitOpError() << "expected " << role
                                              << " of rank ";
  llvm::interleave(allowed, diag, " or ");
  return diag << ", got " << type.getRank();
}

static bool isMatmulFloat(Type type) {
  return type.isF16() || type.isBF16() || type.isF32();
}

//===----------------------------------------------------------------------===//
// GatherRowsOp
//===----------------------------------------------------------------------===//

LogicalResult GatherRowsOp::verify() {
  auto sourceType = getSource().getType();
  auto resultType = getResult().getType();
  if (sourceType.getRank() < 1)
    return emitOpError() << "expected source with a batch dimension, got "
                         << sourceType;
  if (resultType.getRank() != sourceType.getRank())
    return emitOpError() << "expected result of rank " << sourceType.getRank()
                         << ", got " << resultType.getRank();
  if (resultType.getElementType() != sourceType.getElementType())
    return emitOpError() << "expected result element type "
                         << sourceType.getElementType() << ", got "
                         << resultType.getElementType();
  if (failed(verifyDim(*this, "result", "dim 0", resultType.getDimSize(0),
                       getIndices().getType().getDimSize(0))))
    return failure();
  for (int64_t d = 1; d < sourceType.getRank(); ++d)
    if (failed(verifyDim(*this, "result", "dim " + std::to_string(d),
                         resultType.getDimSize(d), sourceType.getDimSize(d))))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// AssembleHybridOp
//===----------------------------------------------------------------------===//

LogicalResult AssembleHybridOp::verify() {
  RankedTensorType type = getResult().getType();
  auto layout = dyn_cast_or_null<HybridTilesAttr>(type.getEncoding());
  if (!layout)
    return emitOpError() << "expected a result with a #sc.hybrid_tiles "
                            "encoding, got "
                         << type;
  if (type.getRank() != 2)
    return emitOpError() << "expected a rank-2 result, got rank "
                         << type.getRank();
  if (failed(verifyDim(*this, "result", "rows", type.getDimSize(0),
                       layout.getRows())) ||
      failed(verifyDim(*this, "result", "columns", type.getDimSize(1),
                       layout.getCols())))
    return failure();
  ArrayRef<int64_t> tile = layout.getTile(), grid = layout.getGrid();
  for (auto [name, operand] :
       {std::pair<StringRef, Value>{"kinds", getKinds()}, {"slots", getSlots()}})
    for (int d = 0; d < 2; ++d)
      if (failed(verifyDim(*this, name, "dim " + std::to_string(d),
                           cast<RankedTensorType>(operand.getType()).getDimSize(d),
                           grid[d])))
        return failure();
  // [tiles, tile rows, columns a tile stores]
  auto verifyPlanes = [&](StringRef name, Value operand,
                          int64_t cols) -> LogicalResult {
    auto t = cast<RankedTensorType>(operand.getType());
    if (failed(verifyDim(*this, name, "dim 1", t.getDimSize(1), tile[0])) ||
        failed(verifyDim(*this, name, "dim 2", t.getDimSize(2), cols)))
      return failure();
    return success();
  };
  if (failed(verifyPlanes("dense", getDense(), tile[1])) ||
      failed(verifyPlanes("sparse", getSparse(), tile[1] / 2)) ||
      failed(verifyPlanes("meta", getMeta(), tile[1] / 32)))
    return failure();
  Type element = type.getElementType();
  if (getDense().getType().getElementType() != element ||
      getSparse().getType().getElementType() != element)
    return emitOpError() << "expected dense and sparse tiles of the weight's "
                            "element type "
                         << element;
  return success();
}

//===----------------------------------------------------------------------===//
// AssembleCsrOp, SparseMatmulOp, TopKOp
//===----------------------------------------------------------------------===//

LogicalResult AssembleCsrOp::verify() {
  RankedTensorType type = getResult().getType();
  auto layout = dyn_cast_or_null<BlockCsrAttr>(type.getEncoding());
  if (!layout)
    return emitOpError() << "expected a result with a #sc.block_csr "
                            "encoding, got "
                         << type;
  if (type.getRank() != 2)
    return emitOpError() << "expected a rank-2 result (rows x D), got rank "
                         << type.getRank();
  int64_t dim = type.getDimSize(1);
  // Every column must have a word: D <= block_size * 2^id_bits. A dynamic D
  // (the GPU kernels bounds-check every column) is checked when packed.
  if (!ShapedType::isDynamic(dim) &&
      dim > layout.getBlockSize() * (int64_t(1) << layout.getIdBits()))
    return emitOpError() << "expected a D that " << layout
                         << " can address, got " << dimToString(dim);
  if (type.getElementType() != getValues().getType().getElementType())
    return emitOpError() << "expected values of the result's element type "
                         << type.getElementType();
  if (failed(verifyDim(*this, "values", "dim 0",
                       getValues().getType().getDimSize(0),
                       getColIds().getType().getDimSize(0))))
    return failure();
  int64_t rows = type.getDimSize(0), ptr = getRowPtr().getType().getDimSize(0);
  if (!ShapedType::isDynamic(rows) && !ShapedType::isDynamic(ptr) &&
      ptr != rows + 1)
    return emitOpError() << "expected " << rows + 1
                         << " row pointers (rows + 1), got " << ptr;
  return success();
}

LogicalResult SparseMatmulOp::verify() {
  auto lhs = getLhs().getType(), rhs = getRhs().getType();
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"lhs", lhs},
                         {"rhs", rhs}})
    if (t.getRank() != 2 || !isa_and_nonnull<BlockCsrAttr>(t.getEncoding()))
      return emitOpError() << "expected the " << name
                           << " to be rows of a #sc.block_csr matrix, got "
                           << t;
  int64_t rhsDim = rhs.getDimSize(getTransposeRhs() ? 0 : 1);
  if (failed(verifyDim(*this, "rhs", getTransposeRhs() ? "D (dim 0)" : "D",
                       rhsDim, lhs.getDimSize(1))))
    return failure();
  RankedTensorType result = getResult().getType();
  if (result.getRank() != 2 ||
      failed(verifyDim(*this, "result", "rows", result.getDimSize(0),
                       lhs.getDimSize(0))) ||
      failed(verifyDim(*this, "result", "columns", result.getDimSize(1),
                       getNumItems())))
    return failure();
  if (Value lhsHead = getLhsHead()) {
    auto lh = cast<RankedTensorType>(lhsHead.getType());
    auto rh = cast<RankedTensorType>(getRhsHead().getType());
    for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"lhs head", lh},
                           {"rhs head", rh}})
      if (t.getRank() != 2 || !t.getElementType().isF32() || t.getEncoding())
        return emitOpError() << "expected the " << name
                             << " to be a dense rank-2 f32 tensor, got " << t;
    if (failed(verifyDim(*this, "lhs head", "rows", lh.getDimSize(0),
                         result.getDimSize(0))) ||
        failed(verifyDim(*this, "rhs head", "rows", rh.getDimSize(0),
                         result.getDimSize(1))) ||
        failed(verifyDim(*this, "rhs head", "columns (H)", rh.getDimSize(1),
                         lh.getDimSize(1))))
      return failure();
  }
  if (getEpilogue().empty() && !result.getElementType().isF32())
    return emitOpError() << "expected an f32 result without an epilogue, got "
                         << result.getElementType();
  if (getEpilogue().empty() && !getEpilogueIns().empty())
    return emitOpError() << "has epilogue operands but no epilogue region";
  return success();
}

LogicalResult SparseMatmulOp::verifyRegions() {
  if (getEpilogue().empty())
    return success();
  Block &body = getEpilogue().front();
  unsigned want = 3 + getEpilogueIns().size();
  if (body.getNumArguments() != want)
    return emitOpError() << "expected " << want
                         << " epilogue block arguments (dot product, row, "
                            "column, then one per epilogue operand), got "
                         << body.getNumArguments();
  if (!body.getArgument(0).getType().isF32() ||
      !body.getArgument(1).getType().isIndex() ||
      !body.getArgument(2).getType().isIndex())
    return emitOpError() << "expected epilogue arguments (f32, index, index, "
                            "...)";
  for (auto [i, operand] : llvm::enumerate(getEpilogueIns()))
    if (body.getArgument(3 + i).getType() != operand.getType())
      return emitOpError() << "expected epilogue block argument #" << 3 + i
                           << " to be " << operand.getType();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValue().getType() != getResult().getType().getElementType())
    return emitOpError() << "expected the epilogue to yield "
                         << getResult().getType().getElementType();
  return success();
}

bool SparseMatmulOp::isEpilogueLinearInProduct() {
  if (getEpilogue().empty())
    return true;
  Block &body = getEpilogue().front();
  Value dot = body.getArgument(0);
  // Values the dot reaches, and of those the ones linear in it; a zero
  // constant counts as linear (epilogue(x) = 0 is).
  llvm::DenseSet<Value> reached{dot}, linear{dot};
  auto isLinear = [&](Value v) {
    return linear.contains(v) || matchPattern(v, m_AnyZeroFloat());
  };
  auto isFree = [&](Value v) { return !reached.contains(v); };
  for (Operation &op : body.without_terminator()) {
    // The op, or one in its regions, reads a value the dot reached.
    bool readsDot = false;
    op.walk([&](Operation *inner) {
      readsDot |= !llvm::all_of(inner->getOperands(), isFree);
    });
    if (!readsDot)
      continue;
    bool result =
        TypeSwitch<Operation *, bool>(&op)
            .Case([&](arith::MulFOp m) {
              return (isLinear(m.getLhs()) && isFree(m.getRhs())) ||
                     (isFree(m.getLhs()) && isLinear(m.getRhs()));
            })
            .Case([&](arith::DivFOp d) {
              return isLinear(d.getLhs()) && isFree(d.getRhs());
            })
            .Case([&](arith::NegFOp n) { return isLinear(n.getOperand()); })
            .Case<arith::AddFOp, arith::SubFOp>([&](Operation *o) {
              return isLinear(o->getOperand(0)) && isLinear(o->getOperand(1));
            })
            .Case([&](arith::SelectOp s) {
              return isFree(s.getCondition()) && isLinear(s.getTrueValue()) &&
                     isLinear(s.getFalseValue());
            })
            .Default([](Operation *) { return false; });
    for (Value r : op.getResults()) {
      reached.insert(r);
      if (result)
        linear.insert(r);
    }
  }
  return isLinear(body.getTerminator()->getOperand(0));
}

LogicalResult TopKOp::verify() {
  auto in = getInput().getType();
  int64_t k = getK();
  if (in.getRank() != 2)
    return emitOpError() << "expected a rank-2 input, got rank " << in.getRank();
  if (k < 1 || k > 1024)
    return emitOpError() << "expected k in [1, 1024], got " << k;
  for (auto [name, t] :
       {std::pair<StringRef, RankedTensorType>{"values", getValues().getType()},
        {"indices", getIndices().getType()}})
    if (t.getRank() != 2 ||
        failed(verifyDim(*this, name, "rows", t.getDimSize(0), in.getDimSize(0))) ||
        failed(verifyDim(*this, name, "columns", t.getDimSize(1), k)))
      return failure();
  return success();
}

LogicalResult SelectRowsAboveOp::verify() {
  int64_t rows = getInput().getType().getDimSize(0), capacity = getCapacity();
  if (capacity < 1)
    return emitOpError() << "expected a capacity >= 1, got " << capacity;
  if (failed(verifyDim(*this, "thresholds", "dim 0",
                       getThresholds().getType().getDimSize(0), rows)) ||
      failed(verifyDim(*this, "counts", "dim 0",
                       getCounts().getType().getDimSize(0), rows)))
    return failure();
  for (auto [name, t] :
       {std::pair<StringRef, RankedTensorType>{"values", getValues().getType()},
        {"cols", getCols().getType()}})
    if (failed(verifyDim(*this, name, "rows", t.getDimSize(0), rows)) ||
        failed(verifyDim(*this, name, "columns (the capacity)", t.getDimSize(1),
                         capacity)))
      return failure();
  return success();
}

LogicalResult SelectAboveOp::verify() {
  if (getInput().getType().getRank() != 2)
    return emitOpError() << "expected a rank-2 input, got rank "
                         << getInput().getType().getRank();
  // How many elements are above is known only when it runs.
  for (Type t : getResultTypes())
    if (!cast<RankedTensorType>(t).isDynamicDim(0))
      return emitOpError() << "expected dynamic-size results (the count of "
                              "elements above the threshold), got "
                           << t;
  return success();
}

//===----------------------------------------------------------------------===//
// BatchMatmulOp
//===----------------------------------------------------------------------===//


std::string BatchMatmulOp::getTransposedTileLimitation() {
  if (getLhs().getType().getRank() != 2)
    return "its lhs is batched (the transposed tile shares it)";
  if (getTransposeRhs())
    return "its rhs is transposed";
  if (getSumRows())
    return "its rows are summed (the transposed tile stores 8-row slices)";
  if (!getType().getElementType().isF16() && !getType().getElementType().isBF16())
    return "its result is not f16 or bf16";
  // (It reads E and stores C by TMA only.)
  if (getType().getDimSize(2) % 8 != 0)
    return "its rows of N = " + std::to_string(getType().getDimSize(2)) +
           " are no multiple of 16 bytes (TMA's stride)";
  return "";
}

/// The g of reads of an epilogue operand (`reads`: its block arguments)
/// that all sit at [g, m, n], with one g that depends on neither the
/// accumulator nor the element's row or column; else null, `why` set.
static Value gatheredReadIndex(Block &body, ArrayRef<Value> reads,
                               StringRef what, std::string &why) {
  Value g;
  for (Value read : reads)
    for (Operation *user : read.getUsers()) {
      auto extract = dyn_cast<tensor::ExtractOp>(user);
      if (!extract || extract.getIndices().size() != 3 ||
          extract.getIndices()[1] != body.getArgument(2) ||
          extract.getIndices()[2] != body.getArgument(3)) {
        why = ("the epilogue reads " + what + " other than at [g(b), m, n]")
                  .str();
        return {};
      }
      if (g && extract.getIndices()[0] != g) {
        why = ("the epilogue reads " + what + " at two batch indices").str();
        return {};
      }
      g = extract.getIndices()[0];
    }
  if (!g) {
    why = ("the epilogue does not read " + what).str();
    return {};
  }
  // g must not depend on the accumulator, the row or the column: a tile of
  // this GEMM then reads exactly one tile of the operand.
  SmallVector<Value> work = {g};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &body &&
          (arg.getArgNumber() == 0 || arg.getArgNumber() == 2 ||
           arg.getArgNumber() == 3)) {
        why = ("the batch index read from " + what +
               " depends on the accumulator, the row or the column")
                  .str();
        return {};
      }
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() == &body)
      llvm::append_range(work, def->getOperands());
  }
  return g;
}

Value BatchMatmulOp::getGatheredTileIndex(unsigned epilogueIn,
                                          std::string &why) {
  if (!hasEpilogue() || epilogueIn >= getEpilogueIns().size()) {
    why = "no such epilogue operand";
    return {};
  }
  return getGatheredTileIndex(getEpilogue().front(), epilogueIn, why);
}

Value BatchMatmulOp::getGatheredTileIndex(Block &body, unsigned epilogueIn,
                                          std::string &why) {
  if (kNumEpilogueLeadingArgs + epilogueIn >= body.getNumArguments()) {
    why = "no such epilogue operand";
    return {};
  }
  return gatheredReadIndex(
      body, {body.getArgument(kNumEpilogueLeadingArgs + epilogueIn)},
      "the operand", why);
}

Operation *BatchMatmulOp::getKernelIR() {
  auto ref = (*this)->getAttrOfType<FlatSymbolRefAttr>(getKernelAttrName());
  return ref ? SymbolTable::lookupNearestSymbolFrom(*this, ref) : nullptr;
}

SmallVector<Operation *> BatchMatmulOp::getEpilogueSlice(Value value) {
  Block &body = *value.getParentBlock();
  DenseSet<Operation *> needed;
  SmallVector<Value> work = {value};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (def && def->getBlock() == &body && needed.insert(def).second)
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> slice;
  for (Operation &op : body)
    if (needed.count(&op))
      slice.push_back(&op);
  return slice;
}

int64_t BatchMatmulOp::getContractionSize() {
  return getLhs().getType().getShape().back();
}

int64_t BatchMatmulOp::getRowCount() {
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  return getSumRows() ? lhs[lhs.size() - 2] : getType().getDimSize(1);
}

Type BatchMatmulOp::getEpilogueElementType() {
  if (getSumRows() && hasEpilogue())
    return getEpilogueBlock()->getTerminator()->getOperand(0).getType();
  return getType().getElementType();
}

LogicalResult BatchMatmulOp::verify() {
  RankedTensorType lhsType = getLhs().getType();
  RankedTensorType rhsType = getRhs().getType();
  RankedTensorType resultType = getResult().getType();
  if (failed(verifyRank(*this, "lhs", lhsType, {2, 3})) ||
      failed(verifyRank(*this, "rhs", rhsType, {2, 3})) ||
      failed(verifyRank(*this, "result", resultType, {3})))
    return failure();
  bool lhsBatched = lhsType.getRank() == 3, rhsBatched = rhsType.getRank() == 3;
  if (!lhsBatched && !rhsBatched)
    return emitOpError() << "expected at least one batched (rank 3) operand";
  if (lhsType.getElementType() != rhsType.getElementType())
    return emitOpError() << "expected lhs and rhs of the same element type, got "
                         << lhsType.getElementType() << " and "
                         << rhsType.getElementType();
  // A hybrid-tiled weight is read as the sparse tensor cores take it: its
  // rows are the output columns (y = x W^T).
  if (isa_and_nonnull<HybridTilesAttr>(lhsType.getEncoding()) ||
      (isa_and_nonnull<HybridTilesAttr>(rhsType.getEncoding()) &&
       (!getTransposeRhs() || rhsType.getRank() != 2)))
    return emitOpError() << "expected a hybrid-tiled operand to be a shared "
                            "rhs read [n, k] (transpose_rhs)";
  if (!isMatmulFloat(lhsType.getElementType()))
    return emitOpError() << "expected f16, bf16 or f32 operands, got "
                         << lhsType.getElementType();
  if (!isMatmulFloat(resultType.getElementType()))
    return emitOpError() << "expected f16, bf16 or f32 result, got "
                         << resultType.getElementType();

  ArrayRef<int64_t> lhs = lhsType.getShape(), rhs = rhsType.getShape();
  int64_t m = lhs[lhs.size() - 2], k = lhs.back();
  int64_t rhsK = getTransposeRhs() ? rhs.back() : rhs[rhs.size() - 2];
  int64_t n = getTransposeRhs() ? rhs[rhs.size() - 2] : rhs.back();
  if (failed(verifyDim(*this, "rhs", "contraction size", rhsK, k)))
    return failure();
  int64_t batch = ShapedType::kDynamic;
  if (lhsBatched)
    batch = lhs[0];
  if (rhsBatched) {
    if (lhsBatched &&
        failed(verifyDim(*this, "rhs", "batch size", rhs[0], lhs[0])))
      return failure();
    if (!lhsBatched || ShapedType::isDynamic(batch))
      batch = rhs[0];
  }
  ArrayRef<int64_t> res = resultType.getShape();
  if (getSumRows()) {
    if (!resultType.getElementType().isF32())
      return emitOpError() << "expected an f32 result with sum_rows, got "
                           << resultType.getElementType();
    if (!hasEpilogue())
      return emitOpError() << "expected an epilogue region with sum_rows "
                              "(it rounds each element before the sum)";
  }
  if (failed(verifyDim(*this, "result", "batch size", res[0], batch)) ||
      failed(verifyDim(*this, "result", "rows", res[1], getSumRows() ? 1 : m)) ||
      failed(verifyDim(*this, "result", "columns", res[2], n)))
    return failure();
  if (!hasEpilogue() && !getEpilogueIns().empty())
    return emitOpError() << "has " << getEpilogueIns().size()
                         << " epilogue operands but no epilogue region";
  return success();
}

LogicalResult BatchMatmulOp::verifyRegions() {
  if (!hasEpilogue())
    return success();
  Block &body = getEpilogue().front();
  unsigned want = kNumEpilogueLeadingArgs + getEpilogueIns().size();
  if (body.getNumArguments() != want)
    return emitOpError() << "expected " << want
                         << " epilogue block arguments (accumulator, batch, "
                            "row, column, then one per epilogue operand), got "
                         << body.getNumArguments();
  if (!body.getArgument(0).getType().isF32())
    return emitOpError() << "expected the epilogue accumulator to be f32, got "
                         << body.getArgument(0).getType();
  for (unsigned i = 1; i < kNumEpilogueLeadingArgs; ++i)
    if (!body.getArgument(i).getType().isIndex())
      return emitOpError() << "expected epilogue block argument #" << i
                           << " to be index, got "
                           << body.getArgument(i).getType();
  for (auto [i, operand] : llvm::enumerate(getEpilogueIns())) {
    Type argType = body.getArgument(kNumEpilogueLeadingArgs + i).getType();
    if (argType != operand.getType())
      return emitOpError() << "expected epilogue block argument #"
                           << kNumEpilogueLeadingArgs + i << " to be "
                           << operand.getType() << ", got " << argType;
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError() << "expected the epilogue to end with sc.yield";
  Type elementType = getResult().getType().getElementType();
  if (getSumRows()) {
    if (!isMatmulFloat(yield.getValue().getType()))
      return emitOpError() << "expected the epilogue of sum_rows to yield f16, "
                              "bf16 or f32, got "
                           << yield.getValue().getType();
    return success();
  }
  if (yield.getValue().getType() != elementType)
    return emitOpError() << "expected the epilogue to yield " << elementType
                         << ", got " << yield.getValue().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

float AttentionOp::getScaleOrDefault() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToFloat();
  return 1.0f / std::sqrt(static_cast<float>(
                    getQuery().getType().getShape().back()));
}

LogicalResult AttentionOp::verify() {
  RankedTensorType q = getQuery().getType(), k = getKey().getType(),
                   v = getValue().getType(), out = getResult().getType();
  if (failed(verifyRank(*this, "query", q, {4})) ||
      failed(verifyRank(*this, "key", k, {4})) ||
      failed(verifyRank(*this, "value", v, {4})) ||
      failed(verifyRank(*this, "result", out, {4})))
    return failure();
  Type elementType = q.getElementType();
  if (!isMatmulFloat(elementType))
    return emitOpError() << "expected f16, bf16 or f32 query, got "
                         << elementType;
  if (k.getElementType() != elementType || v.getElementType() != elementType)
    return emitOpError() << "expected query, key and value of one element "
                            "type, got "
                         << elementType << ", " << k.getElementType() << ", "
                         << v.getElementType();
  if (!isMatmulFloat(out.getElementType()))
    return emitOpError() << "expected f16, bf16 or f32 result, got "
                         << out.getElementType();
  if (ShapedType::isDynamic(q.getDimSize(3)) ||
      ShapedType::isDynamic(v.getDimSize(3)))
    return emitOpError() << "expected static head dimensions";

  int64_t batch = q.getDimSize(0), heads = q.getDimSize(1);
  int64_t queryLen = q.getDimSize(2), keyLen = k.getDimSize(2);
  if (failed(verifyDim(*this, "key", "heads", k.getDimSize(1), heads)) ||
      failed(verifyDim(*this, "value", "heads", v.getDimSize(1), heads)) ||
      failed(verifyDim(*this, "key", "head dim", k.getDimSize(3),
                       q.getDimSize(3))) ||
      failed(verifyDim(*this, "value", "length", v.getDimSize(2), keyLen)) ||
      failed(verifyDim(*this, "value", "batch size", v.getDimSize(0),
                       k.getDimSize(0))))
    return failure();
  if (getIndex()) {
    if (failed(verifyDim(*this, "index", "size",
                         getIndex().getType().getDimSize(0), batch)))
      return failure();
  } else if (failed(verifyDim(*this, "key", "batch size", k.getDimSize(0),
                              batch))) {
    return failure();
  }
  if (failed(verifyDim(*this, "result", "batch size", out.getDimSize(0),
                       batch)) ||
      failed(verifyDim(*this, "result", "heads", out.getDimSize(1), heads)) ||
      failed(verifyDim(*this, "result", "length", out.getDimSize(2),
                       queryLen)) ||
      failed(verifyDim(*this, "result", "head dim", out.getDimSize(3),
                       v.getDimSize(3))))
    return failure();

  if (std::optional<APFloat> scale = getScale()) {
    float s = scale->convertToFloat();
    if (!(s > 0.0f) || !std::isfinite(s))
      return emitOpError() << "expected a positive finite scale, got " << s;
  }
  if (Attribute maskAttr = getMaskAttr()) {
    auto mask = cast<BlockMaskAttrInterface>(maskAttr);
    int64_t block = mask.getMaskBlockSize();
    auto numBlocks = [&](int64_t len) {
      return ShapedType::isDynamic(len) ? ShapedType::kDynamic
                                        : llvm::divideCeil(len, block);
    };
    if (failed(mask.verifyBlockCounts([&] { return emitOpError(); },
                                      numBlocks(queryLen),
                                      numBlocks(keyLen))))
      return failure();
  }
  return success();
}

#define GET_OP_CLASSES
#include "sparcast/Dialect/SC/IR/ScOps.cpp.inc"
