//===- LowerToLinalg.cpp - reference lowering of sc ops -------------------===//
//
// Lowers every sc op to the naive linalg/tensor/arith computation of its
// definition, in fp32. Nothing here is fast: it is the golden model that the
// optimizing rewrites are compared with on the CPU.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToLinalg/GatherRows.h"
#include "sparcast/Conversion/ScToLinalg/LogLinearKeep.h"

#include "sparcast/Conversion/Passes.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

#define DEBUG_TYPE "sc-lower-to-linalg"

namespace mlir::sc {
#define GEN_PASS_DEF_SCLOWERTOLINALGPASS
#include "sparcast/Conversion/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;
using mlir::sc::detail::buildGatherRows;

namespace {

using utils::IteratorType;
constexpr IteratorType kPar = IteratorType::parallel;
constexpr IteratorType kRed = IteratorType::reduction;

/// `tensor.empty` of the given sizes, optionally filled with `fill`.
Value createInit(ImplicitLocOpBuilder &b, ArrayRef<OpFoldResult> sizes,
                 Type elementType, std::optional<double> fill = std::nullopt) {
  Value empty = tensor::EmptyOp::create(b, sizes, elementType);
  if (!fill)
    return empty;
  TypedAttr value =
      isa<IntegerType>(elementType)
          ? TypedAttr(b.getIntegerAttr(elementType, int64_t(*fill)))
          : TypedAttr(b.getFloatAttr(elementType, *fill));
  Value scalar = arith::ConstantOp::create(b, value);
  return linalg::FillOp::create(b, scalar, empty).getResult(0);
}

/// Converts a float scalar to `type` (extension or truncation).
Value convertFloat(OpBuilder &b, Location loc, Value v, Type type) {
  unsigned from = v.getType().getIntOrFloatBitWidth();
  unsigned to = type.getIntOrFloatBitWidth();
  if (v.getType() == type)
    return v;
  if (from < to)
    return arith::ExtFOp::create(b, loc, type, v);
  return arith::TruncFOp::create(b, loc, type, v);
}

/// Casts `v` to `type` when lowering produced a less static type.
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

/// Body of a contraction: acc + f32(a) * f32(b), for (a, b, acc).
void yieldMulAdd(OpBuilder &b, Location loc, ValueRange args) {
  Value x = convertFloat(b, loc, args[0], b.getF32Type());
  Value y = convertFloat(b, loc, args[1], b.getF32Type());
  Value prod = arith::MulFOp::create(b, loc, x, y);
  linalg::YieldOp::create(b, loc,
                          Value(arith::AddFOp::create(b, loc, args[2], prod)));
}

/// Yields an epilogue region's element inside a linalg body: the region's
/// ops cloned with (accumulator, the generic's loop indices, `ins`) for its
/// block arguments.
void yieldEpilogue(OpBuilder &b, Location loc, Block &body, Value acc,
                   unsigned numIndices, ValueRange ins) {
  IRMapping mapping;
  mapping.map(body.getArgument(0), acc);
  for (unsigned d = 0; d < numIndices; ++d)
    mapping.map(body.getArgument(1 + d), linalg::IndexOp::create(b, loc, d));
  for (auto [i, v] : llvm::enumerate(ins))
    mapping.map(body.getArgument(1 + numIndices + i), v);
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  auto yield = cast<YieldOp>(body.getTerminator());
  linalg::YieldOp::create(b, loc, mapping.lookupOrDefault(yield.getValue()));
}

AffineMap mapOf(MLIRContext *ctx, unsigned numDims, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

//===----------------------------------------------------------------------===//
// sc.gather_rows
//===----------------------------------------------------------------------===//

struct LowerGatherRows : OpConversionPattern<GatherRowsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value result = buildGatherRows(b, adaptor.getSource(), adaptor.getIndices());
    rewriter.replaceOp(op, castTo(b, op.getLoc(), result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sc.assemble_hybrid
//===----------------------------------------------------------------------===//

/// The dense weight of packed hybrid tiles, element by element as
/// docs/hybrid-tiles.md defines it: a zero tile's element is zero, a dense
/// tile's is its slot's, a 2:4 tile's is the stored value whose metadata
/// position is the element's column within its group of four (zero if
/// neither is). Only the element's own tile's slot is read.
struct LowerAssembleHybrid : OpConversionPattern<AssembleHybridOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssembleHybridOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    HybridTilesAttr layout = op.getLayout();
    Type element = op.getType().getElementType();
    auto plain = RankedTensorType::get(op.getType().getShape(), element);
    Value init = tensor::EmptyOp::create(b, plain.getShape(), element);
    int64_t tileRows = layout.getTile()[0], tileCols = layout.getTile()[1];
    auto generic = linalg::GenericOp::create(
        b, plain, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{b.getMultiDimIdentityMap(2)},
        SmallVector<IteratorType>{kPar, kPar},
        [&](OpBuilder &nb, Location loc, ValueRange) {
          ImplicitLocOpBuilder e(loc, nb);
          auto cIndex = [&](int64_t v) {
            return arith::ConstantIndexOp::create(e, v).getResult();
          };
          auto cI32 = [&](int64_t v) {
            return arith::ConstantIntOp::create(e, e.getI32Type(), v)
                .getResult();
          };
          auto toIndex = [&](Value v) {
            return arith::IndexCastOp::create(e, e.getIndexType(), v)
                .getResult();
          };
          Value r = linalg::IndexOp::create(e, 0), c = linalg::IndexOp::create(e, 1);
          Value tr = arith::DivUIOp::create(e, r, cIndex(tileRows));
          Value tc = arith::DivUIOp::create(e, c, cIndex(tileCols));
          Value row = arith::RemUIOp::create(e, r, cIndex(tileRows));
          Value col = arith::RemUIOp::create(e, c, cIndex(tileCols));
          Value kind = arith::ExtUIOp::create(
              e, e.getI32Type(),
              tensor::ExtractOp::create(e, adaptor.getKinds(), ValueRange{tr, tc}));
          Value slot = toIndex(
              tensor::ExtractOp::create(e, adaptor.getSlots(), ValueRange{tr, tc}));
          Value zero = arith::ConstantOp::create(e, e.getZeroAttr(element));
          auto isKind = [&](int64_t k) {
            return arith::CmpIOp::create(e, arith::CmpIPredicate::eq, kind, cI32(k))
                .getResult();
          };
          auto dense = scf::IfOp::create(
              e, isKind(1),
              [&](OpBuilder &tb, Location l) {
                Value v = tensor::ExtractOp::create(tb, l, adaptor.getDense(),
                                                    ValueRange{slot, row, col});
                scf::YieldOp::create(tb, l, v);
              },
              [&](OpBuilder &fb, Location l) {
                ImplicitLocOpBuilder f(l, fb);
                auto sparse = scf::IfOp::create(
                    f, isKind(2),
                    [&](OpBuilder &sb, Location l2) {
                      ImplicitLocOpBuilder s(l2, sb);
                      // The group's nibble: bits 4j .. 4j + 3 of word col / 32.
                      Value group = arith::DivUIOp::create(s, col, cIndex(4));
                      Value word = tensor::ExtractOp::create(
                          s, adaptor.getMeta(),
                          ValueRange{slot, row,
                                     arith::DivUIOp::create(s, col, cIndex(32))});
                      Value shift = arith::IndexCastOp::create(
                          s, s.getI32Type(),
                          arith::MulIOp::create(
                              s, arith::RemUIOp::create(s, group, cIndex(8)),
                              cIndex(4)));
                      Value nibble = arith::AndIOp::create(
                          s, arith::ShRUIOp::create(s, word, shift), cI32(15));
                      Value first = arith::AndIOp::create(s, nibble, cI32(3));
                      Value second = arith::ShRUIOp::create(s, nibble, cI32(2));
                      Value pos = arith::IndexCastOp::create(
                          s, s.getI32Type(), arith::RemUIOp::create(s, col, cIndex(4)));
                      Value kept0 = arith::MulIOp::create(s, group, cIndex(2));
                      Value kept1 = arith::AddIOp::create(s, kept0, cIndex(1));
                      Value v0 = tensor::ExtractOp::create(
                          s, adaptor.getSparse(), ValueRange{slot, row, kept0});
                      Value v1 = tensor::ExtractOp::create(
                          s, adaptor.getSparse(), ValueRange{slot, row, kept1});
                      auto eq = [&](Value x, Value y) {
                        return arith::CmpIOp::create(s, arith::CmpIPredicate::eq,
                                                     x, y)
                            .getResult();
                      };
                      Value v = arith::SelectOp::create(
                          s, eq(pos, first), v0,
                          arith::SelectOp::create(s, eq(pos, second), v1, zero));
                      scf::YieldOp::create(s, v);
                    },
                    [&](OpBuilder &zb, Location l2) {
                      scf::YieldOp::create(zb, l2, zero);
                    });
                scf::YieldOp::create(f, sparse.getResult(0));
              });
          linalg::YieldOp::create(e, dense.getResult(0));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sc.batch_matmul
//===----------------------------------------------------------------------===//

struct LowerBatchMatmul : OpConversionPattern<BatchMatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchMatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    MLIRContext *ctx = op.getContext();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    bool lhsBatched = op.getLhs().getType().getRank() == 3;
    bool rhsBatched = op.getRhs().getType().getRank() == 3;
    bool transposed = op.getTransposeRhs();
    Location loc = op.getLoc();

    // [B, M, N] from whichever operands carry them.
    OpFoldResult batch = lhsBatched ? tensor::getMixedSize(b, loc, lhs, 0)
                                    : tensor::getMixedSize(b, loc, rhs, 0);
    OpFoldResult m = tensor::getMixedSize(b, loc, lhs, lhsBatched ? 1 : 0);
    OpFoldResult n = tensor::getMixedSize(
        b, loc, rhs, (rhsBatched ? 1 : 0) + (transposed ? 0 : 1));
    SmallVector<OpFoldResult> sizes = {batch, m, n};
    Type f32 = b.getF32Type();
    Value acc = createInit(b, sizes, f32, 0.0);

    // Loops (b, m, n, k).
    enum { B = 0, M = 1, N = 2, K = 3 };
    SmallVector<unsigned> lhsDims = lhsBatched ? SmallVector<unsigned>{B, M, K}
                                               : SmallVector<unsigned>{M, K};
    SmallVector<unsigned> rhsDims;
    if (rhsBatched)
      rhsDims.push_back(B);
    if (transposed)
      rhsDims.append({N, K});
    else
      rhsDims.append({K, N});
    SmallVector<AffineMap> maps = {mapOf(ctx, 4, lhsDims),
                                   mapOf(ctx, 4, rhsDims),
                                   mapOf(ctx, 4, {B, M, N})};
    acc = linalg::GenericOp::create(
              b, acc.getType(), ValueRange{lhs, rhs}, ValueRange{acc}, maps,
              {kPar, kPar, kPar, kRed},
              yieldMulAdd)
              .getResult(0);

    // Epilogue: the region's body inlined into an element-wise generic
    // (with sum_rows, of the element type its region yields).
    Type resultElement = op.getEpilogueElementType();
    Value init = createInit(b, sizes, resultElement);
    SmallVector<AffineMap> idMaps(2, b.getMultiDimIdentityMap(3));
    auto epilogue = linalg::GenericOp::create(
        b, init.getType(), ValueRange{acc}, ValueRange{init}, idMaps,
        {kPar, kPar, kPar}, [&](OpBuilder &nb, Location l, ValueRange args) {
          if (!op.hasEpilogue()) {
            linalg::YieldOp::create(
                nb, l, convertFloat(nb, l, args[0], resultElement));
            return;
          }
          yieldEpilogue(nb, l, op.getEpilogue().front(), args[0],
                        BatchMatmulOp::kNumEpilogueLeadingArgs - 1,
                        adaptor.getEpilogueIns());
        });
    Value result = epilogue.getResult(0);
    if (op.getSumRows()) {
      // The rows summed in f32 into the result's one row.
      SmallVector<OpFoldResult> oneRow = {batch, b.getIndexAttr(1), n};
      Value sum = createInit(b, oneRow, f32, 0.0);
      SmallVector<AffineMap> sumMaps = {
          b.getMultiDimIdentityMap(3),
          AffineMap::get(3, 0,
                         {b.getAffineDimExpr(0), b.getAffineConstantExpr(0),
                          b.getAffineDimExpr(2)},
                         ctx)};
      result = linalg::GenericOp::create(
                   b, sum.getType(), ValueRange{result}, ValueRange{sum}, sumMaps,
                   {kPar, kRed, kPar},
                   [&](OpBuilder &nb, Location l, ValueRange args) {
                     Value v = convertFloat(nb, l, args[0], nb.getF32Type());
                     linalg::YieldOp::create(
                         nb, l, ValueRange{arith::AddFOp::create(nb, l, args[1], v)});
                   })
                   .getResult(0);
    }
    rewriter.replaceOp(op, castTo(b, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sc.assemble_csr
//===----------------------------------------------------------------------===//

/// The dense rows x D matrix of CSR buffers: zeros, then for each row r and
/// each j in [row_ptr[r], row_ptr[r + 1]) (clamped to the buffers) the value
/// at the column its word names; a word naming a column past D is skipped.
/// The runtime's packing refuses such buffers; this only never writes out
/// of bounds.
struct LowerAssembleCsr : OpConversionPattern<AssembleCsrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssembleCsrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getType().isDynamicDim(1))
      return op.emitOpError() << "the CPU reference scatters rows into a "
                                 "dense matrix: it needs a static D";
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    BlockCsrAttr layout = op.getLayout();
    Type element = op.getType().getElementType();
    Value ptr = adaptor.getRowPtr(), ids = adaptor.getColIds(),
          values = adaptor.getValues();
    auto cIndex = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, v).getResult();
    };
    // rows + 1 pointers; an empty pointer tensor is no rows.
    Value rows = arith::MaxSIOp::create(
        b, arith::SubIOp::create(b, tensor::DimOp::create(b, ptr, 0), cIndex(1)),
        cIndex(0));
    Value nnz = tensor::DimOp::create(b, ids, 0);
    int64_t dim = op.getType().getDimSize(1);
    SmallVector<OpFoldResult> sizes = {rows, b.getIndexAttr(dim)};
    Value dense = createInit(b, sizes, element, 0.0);
    auto rowLoop = scf::ForOp::create(
        b, cIndex(0), rows, cIndex(1), ValueRange{dense},
        [&](OpBuilder &rb, Location loc, Value r, ValueRange rowArgs) {
          ImplicitLocOpBuilder e(loc, rb);
          auto bound = [&](Value at) {
            Value v = arith::IndexCastOp::create(
                e, e.getIndexType(), tensor::ExtractOp::create(e, ptr, at));
            return arith::MinSIOp::create(
                       e, arith::MaxSIOp::create(e, v, cIndex(0)), nnz)
                .getResult();
          };
          Value lo = bound(r);
          Value hi = arith::MaxSIOp::create(
              e, bound(arith::AddIOp::create(e, r, cIndex(1))), lo);
          auto entries = scf::ForOp::create(
              e, lo, hi, cIndex(1), rowArgs,
              [&](OpBuilder &jb, Location l, Value j, ValueRange args) {
                ImplicitLocOpBuilder f(l, jb);
                Value word = arith::IndexCastUIOp::create(
                    f, f.getIndexType(), tensor::ExtractOp::create(f, ids, j));
                Value block = arith::ShRUIOp::create(
                    f, word, cIndex(layout.getOffsetBits()));
                Value offset = arith::AndIOp::create(
                    f, word, cIndex((int64_t(1) << layout.getOffsetBits()) - 1));
                Value col = arith::AddIOp::create(
                    f,
                    arith::MulIOp::create(f, block, cIndex(layout.getBlockSize())),
                    offset);
                Value inside = arith::CmpIOp::create(
                    f, arith::CmpIPredicate::ult, col, cIndex(dim));
                auto put = scf::IfOp::create(
                    f, inside,
                    [&](OpBuilder &tb, Location tl) {
                      Value v = tensor::ExtractOp::create(tb, tl, values, j);
                      Value next = tensor::InsertOp::create(tb, tl, v, args[0],
                                                            ValueRange{r, col});
                      scf::YieldOp::create(tb, tl, next);
                    },
                    [&](OpBuilder &fb, Location fl) {
                      scf::YieldOp::create(fb, fl, args[0]);
                    });
                scf::YieldOp::create(f, put.getResult(0));
              });
          scf::YieldOp::create(e, entries.getResult(0));
        });
    auto plain = RankedTensorType::get(op.getType().getShape(), element);
    rewriter.replaceOp(op, castTo(b, op.getLoc(), rowLoop.getResult(0), plain));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sc.sparse_matmul
//===----------------------------------------------------------------------===//

/// The dense form: the heads' product sum_h lhs_head[m, h] * rhs_head[n, h]
/// (when split), then sum_d lhs[m, d] * rhs[n, d] (rhs[d, n] with
/// transpose_rhs) added in fp32, then the epilogue region element-wise with
/// (dot, m, n, epilogue operands).
struct LowerSparseMatmul : OpConversionPattern<SparseMatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SparseMatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    bool byColumn = op.getTransposeRhs();
    SmallVector<OpFoldResult> sizes = {
        tensor::getMixedSize(b, loc, lhs, 0),
        tensor::getMixedSize(b, loc, rhs, byColumn ? 1 : 0)};
    Value acc = createInit(b, sizes, b.getF32Type(), 0.0);
    enum { M = 0, N = 1, D = 2 };
    auto contract = [&](Value x, Value y, AffineMap yMap) {
      acc = linalg::GenericOp::create(
                b, acc.getType(), ValueRange{x, y}, ValueRange{acc},
                SmallVector<AffineMap>{mapOf(ctx, 3, {M, D}), yMap,
                                       mapOf(ctx, 3, {M, N})},
                {kPar, kPar, kRed}, yieldMulAdd)
                .getResult(0);
    };
    if (op.getLhsHead())
      contract(adaptor.getLhsHead(), adaptor.getRhsHead(),
               mapOf(ctx, 3, {N, D}));
    contract(lhs, rhs, byColumn ? mapOf(ctx, 3, {D, N}) : mapOf(ctx, 3, {N, D}));
    if (op.getEpilogue().empty()) {
      rewriter.replaceOp(op, castTo(b, loc, acc, op.getType()));
      return success();
    }
    Type resultElement = op.getType().getElementType();
    Value init = createInit(b, sizes, resultElement);
    SmallVector<AffineMap> idMaps(2, b.getMultiDimIdentityMap(2));
    auto epilogue = linalg::GenericOp::create(
        b, init.getType(), ValueRange{acc}, ValueRange{init}, idMaps,
        {kPar, kPar}, [&](OpBuilder &nb, Location l, ValueRange args) {
          yieldEpilogue(nb, l, op.getEpilogue().front(), args[0], 2,
                        adaptor.getEpilogueIns());
        });
    rewriter.replaceOp(op, castTo(b, loc, epilogue.getResult(0), op.getType()));
    return success();
  }
};

/// One step of a row-major walk over a rank-2 tensor's elements: the state
/// after (element, row, column) given the state before.
using ElementStep = function_ref<SmallVector<Value>(
    ImplicitLocOpBuilder &, Value, Value, Value, ValueRange)>;

/// The state a row-major walk over every element of the rank-2 `input`
/// ends with, from `init` (nested scf.for loops carrying it).
ValueRange foldElements(ImplicitLocOpBuilder &b, Value input, ValueRange init,
                        ElementStep step) {
  auto cIndex = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, v).getResult();
  };
  Value rows = tensor::DimOp::create(b, input, 0);
  Value cols = tensor::DimOp::create(b, input, 1);
  return scf::ForOp::create(
             b, cIndex(0), rows, cIndex(1), init,
             [&](OpBuilder &rb, Location l, Value r, ValueRange rowState) {
               auto inner = scf::ForOp::create(
                   rb, l, cIndex(0), cols, cIndex(1), rowState,
                   [&](OpBuilder &cb, Location cl, Value c, ValueRange state) {
                     ImplicitLocOpBuilder e(cl, cb);
                     Value v = tensor::ExtractOp::create(e, input, ValueRange{r, c});
                     scf::YieldOp::create(e, step(e, v, r, c, state));
                   });
               scf::YieldOp::create(rb, l, inner.getResults());
             })
      .getResults();
}

//===----------------------------------------------------------------------===//
// sc.top_k
//===----------------------------------------------------------------------===//

/// Per row, each element's rank (how many elements order before it: larger,
/// NaN above every number, ties to the lower column) and, where the rank is
/// below k, the element and its column stored at that rank. Rows of fewer
/// than k columns keep the -inf / -1 fill past their end. O(N^2) a row: a
/// reference for small rows only.
struct LowerTopK : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t k = op.getK();
    auto cIndex = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, v).getResult();
    };
    Value rows = tensor::DimOp::create(b, input, 0);
    Value cols = tensor::DimOp::create(b, input, 1);
    SmallVector<OpFoldResult> sizes = {rows, b.getIndexAttr(k)};
    Value values = createInit(b, sizes, b.getF32Type(),
                              -std::numeric_limits<double>::infinity());
    Value indices = linalg::FillOp::create(
                        b,
                        ValueRange{arith::ConstantIntOp::create(
                            b, b.getI32Type(), -1)},
                        ValueRange{tensor::EmptyOp::create(b, sizes, b.getI32Type())})
                        .getResult(0);
    // a orders before b: a > b, or a is NaN and b is not.
    auto before = [](ImplicitLocOpBuilder &e, Value x, Value y) {
      Value greater = arith::CmpFOp::create(e, arith::CmpFPredicate::OGT, x, y);
      Value xNan = arith::CmpFOp::create(e, arith::CmpFPredicate::UNO, x, x);
      Value yNum = arith::CmpFOp::create(e, arith::CmpFPredicate::ORD, y, y);
      return arith::OrIOp::create(
                 e, greater, arith::AndIOp::create(e, xNan, yNum))
          .getResult();
    };
    auto same = [](ImplicitLocOpBuilder &e, Value x, Value y) {
      Value eq = arith::CmpFOp::create(e, arith::CmpFPredicate::OEQ, x, y);
      Value xNan = arith::CmpFOp::create(e, arith::CmpFPredicate::UNO, x, x);
      Value yNan = arith::CmpFOp::create(e, arith::CmpFPredicate::UNO, y, y);
      return arith::OrIOp::create(e, eq, arith::AndIOp::create(e, xNan, yNan))
          .getResult();
    };
    ValueRange ranked = foldElements(
        b, input, ValueRange{values, indices},
        [&](ImplicitLocOpBuilder &f, Value v, Value r, Value c,
            ValueRange args) -> SmallVector<Value> {
          auto rankLoop = scf::ForOp::create(
              f, cIndex(0), cols, cIndex(1), ValueRange{cIndex(0)},
              [&](OpBuilder &kb, Location kl, Value o, ValueRange acc) {
                ImplicitLocOpBuilder g(kl, kb);
                Value w = tensor::ExtractOp::create(g, input, ValueRange{r, o});
                Value tieBefore = arith::AndIOp::create(
                    g, same(g, w, v),
                    arith::CmpIOp::create(g, arith::CmpIPredicate::ult, o, c));
                Value counts = arith::OrIOp::create(g, before(g, w, v), tieBefore);
                Value next = arith::SelectOp::create(
                    g, counts, arith::AddIOp::create(g, acc[0], cIndex(1)), acc[0]);
                scf::YieldOp::create(g, next);
              });
          Value rank = rankLoop.getResult(0);
          Value kept =
              arith::CmpIOp::create(f, arith::CmpIPredicate::ult, rank, cIndex(k));
          auto put = scf::IfOp::create(
              f, kept,
              [&](OpBuilder &tb, Location tl) {
                Value at[] = {r, rank};
                Value vs = tensor::InsertOp::create(tb, tl, v, args[0], at);
                Value col = arith::IndexCastOp::create(tb, tl, tb.getI32Type(), c);
                Value is = tensor::InsertOp::create(tb, tl, col, args[1], at);
                scf::YieldOp::create(tb, tl, ValueRange{vs, is});
              },
              [&](OpBuilder &fb, Location fl) { scf::YieldOp::create(fb, fl, args); });
          return SmallVector<Value>(put.getResults());
        });
    rewriter.replaceOp(op, {castTo(b, loc, ranked[0], op.getValues().getType()),
                            castTo(b, loc, ranked[1], op.getIndices().getType())});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sc.select_above
//===----------------------------------------------------------------------===//

/// Two passes over the input: count the elements above the threshold, then
/// write each one's row, column and value at the next position.
struct LowerSelectAbove : OpConversionPattern<SelectAboveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SelectAboveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value input = adaptor.getInput();
    auto cIndex = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, v).getResult();
    };
    Value threshold = arith::ConstantOp::create(b, op.getThresholdAttr());
    auto above = [&](ImplicitLocOpBuilder &e, Value v) {
      return arith::CmpFOp::create(e, arith::CmpFPredicate::OGT, v, threshold)
          .getResult();
    };
    Value count = foldElements(b, input, ValueRange{cIndex(0)},
                        [&](ImplicitLocOpBuilder &e, Value v, Value, Value,
                            ValueRange state) -> SmallVector<Value> {
                          Value one = arith::SelectOp::create(
                              e, above(e, v), cIndex(1), cIndex(0));
                          return {arith::AddIOp::create(e, state[0], one)};
                        })[0];
    auto empty = [&](Type element) {
      return tensor::EmptyOp::create(b, ArrayRef<OpFoldResult>{count}, element)
          .getResult();
    };
    SmallVector<Value> init = {cIndex(0), empty(b.getI32Type()),
                               empty(b.getI32Type()), empty(b.getF32Type())};
    ValueRange written = foldElements(
        b, input, init, [&](ImplicitLocOpBuilder &e, Value v, Value r, Value c,
                  ValueRange state) -> SmallVector<Value> {
          auto put = scf::IfOp::create(
              e, above(e, v),
              [&](OpBuilder &tb, Location l) {
                Value at = state[0];
                auto i32 = [&](Value x) {
                  return arith::IndexCastOp::create(tb, l, tb.getI32Type(), x)
                      .getResult();
                };
                Value rs = tensor::InsertOp::create(tb, l, i32(r), state[1], at);
                Value cs = tensor::InsertOp::create(tb, l, i32(c), state[2], at);
                Value vs = tensor::InsertOp::create(tb, l, v, state[3], at);
                Value next = arith::AddIOp::create(
                    tb, l, at, arith::ConstantIndexOp::create(tb, l, 1));
                scf::YieldOp::create(tb, l, ValueRange{next, rs, cs, vs});
              },
              [&](OpBuilder &fb, Location l) { scf::YieldOp::create(fb, l, state); });
          return SmallVector<Value>(put.getResults());
        });
    rewriter.replaceOp(op, written.drop_front());
    return success();
  }
};

/// Row by row in column order: each element above the row's threshold counted
/// and, while the count is below the capacity, written at the count.
struct LowerSelectRowsAbove : OpConversionPattern<SelectRowsAboveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SelectRowsAboveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), thresholds = adaptor.getThresholds();
    auto cIndex = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, v).getResult();
    };
    int64_t capacity = op.getCapacity();
    SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, input, 0),
                                       b.getIndexAttr(capacity)};
    Value counts = createInit(b, {sizes[0]}, b.getI32Type(), 0);
    Value values = createInit(b, sizes, b.getF32Type(),
                              -std::numeric_limits<double>::infinity());
    Value cols = createInit(b, sizes, b.getI32Type(), -1);
    auto i32 = [](OpBuilder &ob, Location l, Value x) {
      return arith::IndexCastOp::create(ob, l, ob.getI32Type(), x).getResult();
    };
    auto rowLoop = scf::ForOp::create(
        b, cIndex(0), tensor::DimOp::create(b, input, 0), cIndex(1),
        ValueRange{counts, values, cols},
        [&](OpBuilder &rb, Location l, Value r, ValueRange rowState) {
          Value theta = tensor::ExtractOp::create(rb, l, thresholds, r);
          Value zero = arith::ConstantIndexOp::create(rb, l, 0);
          auto colLoop = scf::ForOp::create(
              rb, l, zero, tensor::DimOp::create(rb, l, input, 1),
              arith::ConstantIndexOp::create(rb, l, 1),
              ValueRange{zero, rowState[1], rowState[2]},
              [&](OpBuilder &cb, Location cl, Value c, ValueRange st) {
                Value v = tensor::ExtractOp::create(cb, cl, input, ValueRange{r, c});
                Value keep = arith::CmpFOp::create(
                    cb, cl, arith::CmpFPredicate::OGT, v, theta);
                auto put = scf::IfOp::create(
                    cb, cl, keep,
                    [&](OpBuilder &tb, Location tl) {
                      Value room = arith::CmpIOp::create(
                          tb, tl, arith::CmpIPredicate::ult, st[0],
                          arith::ConstantIndexOp::create(tb, tl, capacity));
                      auto write = scf::IfOp::create(
                          tb, tl, room,
                          [&](OpBuilder &wb, Location wl) {
                            Value vs = tensor::InsertOp::create(
                                wb, wl, v, st[1], ValueRange{r, st[0]});
                            Value cs = tensor::InsertOp::create(
                                wb, wl, i32(wb, wl, c), st[2], ValueRange{r, st[0]});
                            scf::YieldOp::create(wb, wl, ValueRange{vs, cs});
                          },
                          [&](OpBuilder &wb, Location wl) {
                            scf::YieldOp::create(wb, wl, ValueRange{st[1], st[2]});
                          });
                      Value next = arith::AddIOp::create(
                          tb, tl, st[0], arith::ConstantIndexOp::create(tb, tl, 1));
                      scf::YieldOp::create(
                          tb, tl, ValueRange{next, write.getResult(0), write.getResult(1)});
                    },
                    [&](OpBuilder &fb, Location fl) { scf::YieldOp::create(fb, fl, st); });
                scf::YieldOp::create(cb, cl, put.getResults());
              });
          Value n = tensor::InsertOp::create(
              rb, l, i32(rb, l, colLoop.getResult(0)), rowState[0], r);
          scf::YieldOp::create(
              rb, l, ValueRange{n, colLoop.getResult(1), colLoop.getResult(2)});
        });
    SmallVector<Value> results;
    for (auto [v, t] : llvm::zip(rowLoop.getResults(), op.getResultTypes()))
      results.push_back(castTo(b, loc, v, cast<RankedTensorType>(t)));
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sc.attention
//===----------------------------------------------------------------------===//

} // namespace

/// Materializes `source[indices[b], ...]` with one `tensor.extract` per element.
Value mlir::sc::detail::buildGatherRows(ImplicitLocOpBuilder &b, Value source,
                                       Value indices) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  int64_t rank = sourceType.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, b.getLoc(), source);
  sizes[0] = tensor::getMixedSize(b, b.getLoc(), indices, 0);
  Value init = createInit(b, sizes, sourceType.getElementType());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  SmallVector<IteratorType> iters(rank, kPar);
  auto generic = linalg::GenericOp::create(
      b, init.getType(), ValueRange{}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location loc, ValueRange) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d)
          at.push_back(linalg::IndexOp::create(nb, loc, d));
        Value row = tensor::ExtractOp::create(nb, loc, indices, at[0]);
        at[0] = arith::IndexCastOp::create(nb, loc, nb.getIndexType(), row);
        Value v = tensor::ExtractOp::create(nb, loc, source, at);
        linalg::YieldOp::create(nb, loc, v);
      });
  return generic.getResult(0);
}

Value mlir::sc::detail::buildLogLinearKeep(OpBuilder &b, Location loc,
                                           LogLinearMaskAttr mask, Value qb,
                                           Value kb, Value numKeyBlocks) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  using P = arith::CmpIPredicate;
  auto cmp = [&](P p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  auto orI = [&](Value x, Value y) {
    return arith::OrIOp::create(b, loc, x, y).getResult();
  };
  Value diff = arith::SubIOp::create(b, loc, qb, kb);
  Value negDiff = arith::SubIOp::create(b, loc, kb, qb);
  Value dist = arith::MaxSIOp::create(b, loc, diff, negDiff);
  Value keep = cmp(P::sle, dist, cst(mask.getLocalWidth()));
  // dist = 2^k, k >= 1  <=>  dist >= 2 and dist & (dist - 1) == 0.
  Value distMinusOne = arith::SubIOp::create(b, loc, dist, cst(1));
  Value pow2 = cmp(P::eq, arith::AndIOp::create(b, loc, dist, distMinusOne),
                   cst(0));
  keep = orI(keep, arith::AndIOp::create(b, loc, pow2,
                                         cmp(P::sge, dist, cst(2))));
  AnchorKinds anchors = mask.getAnchors();
  if (bitEnumContainsAll(anchors, AnchorKinds::first))
    keep = orI(keep, cmp(P::eq, kb, cst(0)));
  if (bitEnumContainsAll(anchors, AnchorKinds::middle))
    keep = orI(keep, cmp(P::eq, kb,
                         arith::DivSIOp::create(b, loc, numKeyBlocks, cst(2))));
  if (bitEnumContainsAll(anchors, AnchorKinds::last))
    keep = orI(keep, cmp(P::eq, kb,
                         arith::SubIOp::create(b, loc, numKeyBlocks, cst(1))));
  if (mask.getCausal())
    keep = arith::AndIOp::create(b, loc, keep, cmp(P::sle, kb, qb));
  return keep;
}

namespace {

/// Dense i1 [query blocks, key blocks] table of an explicit block mask.
Value buildBlockSparseTable(ImplicitLocOpBuilder &b, BlockSparseMaskAttr mask) {
  int64_t rows = mask.getNumQueryBlocks(), cols = mask.getKeyBlocks();
  SmallVector<bool> table(rows * cols, false);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c : mask.getKeptKeyBlocks(r, rows, cols))
      table[r * cols + c] = true;
  auto type = RankedTensorType::get({rows, cols}, b.getI1Type());
  return arith::ConstantOp::create(b, DenseElementsAttr::get(type, table));
}

struct LowerAttention : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    // The golden model simply materializes the per-candidate K and V.
    if (Value index = adaptor.getIndex()) {
      k = buildGatherRows(b, k, index);
      v = buildGatherRows(b, v, index);
    }
    Type f32 = b.getF32Type();
    OpFoldResult batch = tensor::getMixedSize(b, loc, q, 0);
    OpFoldResult heads = tensor::getMixedSize(b, loc, q, 1);
    OpFoldResult queryLen = tensor::getMixedSize(b, loc, q, 2);
    OpFoldResult keyLen = tensor::getMixedSize(b, loc, k, 2);
    OpFoldResult valueDim = tensor::getMixedSize(b, loc, v, 3);

    // scores[b, h, l, s] = sum_e q[b, h, l, e] * k[b, h, s, e]
    Value scores = createInit(b, {batch, heads, queryLen, keyLen}, f32, 0.0);
    scores = linalg::GenericOp::create(
                 b, scores.getType(), ValueRange{q, k}, ValueRange{scores},
                 {mapOf(ctx, 5, {0, 1, 2, 4}), mapOf(ctx, 5, {0, 1, 3, 4}),
                  mapOf(ctx, 5, {0, 1, 2, 3})},
                 {kPar, kPar, kPar, kPar, kRed}, yieldMulAdd)
                 .getResult(0);

    // Scale, then -inf outside the kept blocks.
    float scale = op.getScaleOrDefault();
    Attribute maskAttr = op.getMaskAttr();
    Value table, numKeyBlocks;
    int64_t blockSize = 0;
    if (maskAttr) {
      blockSize = cast<BlockMaskAttrInterface>(maskAttr).getMaskBlockSize();
      if (auto bsr = dyn_cast<BlockSparseMaskAttr>(maskAttr))
        table = buildBlockSparseTable(b, bsr);
      Value len = getValueOrCreateConstantIndexOp(b, loc, keyLen);
      Value blockMinusOne = arith::ConstantIndexOp::create(b, blockSize - 1);
      numKeyBlocks = arith::DivUIOp::create(
          b, arith::AddIOp::create(b, len, blockMinusOne),
          arith::ConstantIndexOp::create(b, blockSize));
    }
    SmallVector<AffineMap> id4(1, b.getMultiDimIdentityMap(4));
    scores = linalg::GenericOp::create(
                 b, scores.getType(), ValueRange{}, ValueRange{scores}, id4,
                 {kPar, kPar, kPar, kPar},
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   Value s = arith::MulFOp::create(
                       nb, l, args[0],
                       arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(scale)));
                   if (maskAttr) {
                     Value block = arith::ConstantIndexOp::create(nb, l, blockSize);
                     Value qb = arith::DivUIOp::create(
                         nb, l, linalg::IndexOp::create(nb, l, 2), block);
                     Value kb = arith::DivUIOp::create(
                         nb, l, linalg::IndexOp::create(nb, l, 3), block);
                     Value keep;
                     if (table)
                       keep = tensor::ExtractOp::create(nb, l, table,
                                                        ValueRange{qb, kb});
                     else
                       keep = sc::detail::buildLogLinearKeep(
                           nb, l, cast<LogLinearMaskAttr>(maskAttr), qb, kb,
                           numKeyBlocks);
                     Value negInf = arith::ConstantOp::create(
                         nb, l, nb.getF32FloatAttr(
                                    -std::numeric_limits<float>::infinity()));
                     s = arith::SelectOp::create(nb, l, keep, s, negInf);
                   }
                   linalg::YieldOp::create(nb, l, s);
                 })
                 .getResult(0);

    // Row maximum, exponentials, row sums.
    SmallVector<OpFoldResult> rowSizes = {batch, heads, queryLen};
    AffineMap full = b.getMultiDimIdentityMap(4);
    AffineMap row = mapOf(ctx, 4, {0, 1, 2});
    // Reduces [b, h, l, s] over s into [b, h, l] with `combine`.
    auto reduceRows = [&](Value input, double init, auto combine) {
      Value acc = createInit(b, rowSizes, f32, init);
      return linalg::GenericOp::create(
                 b, acc.getType(), ValueRange{input}, ValueRange{acc},
                 {full, row}, {kPar, kPar, kPar, kRed},
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   linalg::YieldOp::create(nb, l,
                                           combine(nb, l, args[0], args[1]));
                 })
          .getResult(0);
    };
    Value rowMax = reduceRows(
        scores, -std::numeric_limits<double>::infinity(),
        [](OpBuilder &nb, Location l, Value x, Value y) -> Value {
          return arith::MaximumFOp::create(nb, l, x, y);
        });
    Value probs = linalg::GenericOp::create(
                      b, scores.getType(), ValueRange{rowMax}, ValueRange{scores},
                      {row, full}, {kPar, kPar, kPar, kPar},
                      [&](OpBuilder &nb, Location l, ValueRange args) {
                        Value d = arith::SubFOp::create(nb, l, args[1], args[0]);
                        linalg::YieldOp::create(nb, l, Value(math::ExpOp::create(nb, l, d)));
                      })
                      .getResult(0);
    Value rowSum =
        reduceRows(probs, 0.0, [](OpBuilder &nb, Location l, Value x,
                                  Value y) -> Value {
          return arith::AddFOp::create(nb, l, x, y);
        });

    // out[b, h, l, e] = sum_s probs[b, h, l, s] * v[b, h, s, e] / rowSum
    Value out = createInit(b, {batch, heads, queryLen, valueDim}, f32, 0.0);
    out = linalg::GenericOp::create(
              b, out.getType(), ValueRange{probs, v}, ValueRange{out},
              {mapOf(ctx, 5, {0, 1, 2, 4}), mapOf(ctx, 5, {0, 1, 4, 3}),
               mapOf(ctx, 5, {0, 1, 2, 3})},
              {kPar, kPar, kPar, kPar, kRed}, yieldMulAdd)
              .getResult(0);
    Type resultElement = op.getType().getElementType();
    Value init = createInit(b, {batch, heads, queryLen, valueDim}, resultElement);
    Value result =
        linalg::GenericOp::create(
            b, init.getType(), ValueRange{out, rowSum}, ValueRange{init},
            {full, row, full}, {kPar, kPar, kPar, kPar},
            [&](OpBuilder &nb, Location l, ValueRange args) {
              Value x = arith::DivFOp::create(nb, l, args[0], args[1]);
              linalg::YieldOp::create(nb, l,
                                      convertFloat(nb, l, x, resultElement));
            })
            .getResult(0);
    rewriter.replaceOp(op, castTo(b, loc, result, op.getType()));
    return success();
  }
};

struct ScLowerToLinalgPass
    : sc::impl::ScLowerToLinalgPassBase<ScLowerToLinalgPass> {
  using Base::Base;
  void runOnOperation() final {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<ScDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateScToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::sc::populateScToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerAssembleCsr, LowerAssembleHybrid, LowerAttention,
               LowerBatchMatmul, LowerGatherRows, LowerSelectAbove,
               LowerSelectRowsAbove, LowerSparseMatmul, LowerTopK>(
      patterns.getContext());
}
