//===- LowerSckSimt.cpp - the sck ops CUDA cores run, lowered op by op ----===//
//
// sc-lower-sck-simt: one pattern per op of the sparse-row, fp32-tile and
// rescoring kernels (sck.csr_row, sck.csr_entry, sck.csr_lower_bound,
// sck.scatter_add, sck.stage_rows, sck.fma_tile, sck.store_tile,
// sck.select_tile, sck.table_add, sck.table_find, sck.row_dot,
// sck.append_above) to gpu, memref, vector, math, scf and arith ops,
// as upstream lowers NVGPU to NVVM. Every access is bounds-checked against
// the memrefs' sizes: buffers with bad contents never reach outside them.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/Passes.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCLOWERSCKSIMTPASS
#include "sparcast/Conversion/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;

namespace {

/// The CTA the tile ops assume, and the fp32 tile each thread holds of it.
constexpr int64_t kThreads = 256, kTile = 128, kPerThread = 8;

Value cIndex(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}
Value ult(ImplicitLocOpBuilder &b, Value x, Value y) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
}

/// `x` (an i32 entry index read from a row pointer) as an index in
/// [0, limit].
Value clampEntry(ImplicitLocOpBuilder &b, Value x, Value limit) {
  Value i = arith::IndexCastOp::create(b, b.getIndexType(), x);
  return arith::MinSIOp::create(b, arith::MaxSIOp::create(b, i, cIndex(b, 0)),
                                limit);
}

struct LowerCsrRow : OpConversionPattern<sck::CsrRowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::CsrRowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value ptr = adaptor.getRowPtr(), row = adaptor.getRow();
    Value next = arith::AddIOp::create(b, row, cIndex(b, 1));
    Value has = ult(b, next, memref::DimOp::create(b, ptr, 0));
    auto range = scf::IfOp::create(
        b, has,
        [&](OpBuilder &tb, Location loc) {
          ImplicitLocOpBuilder t(loc, tb);
          Value begin = clampEntry(t, memref::LoadOp::create(t, ptr, row),
                                   adaptor.getEntries());
          Value end = clampEntry(t, memref::LoadOp::create(t, ptr, next),
                                 adaptor.getEntries());
          end = arith::MaxSIOp::create(t, end, begin);
          scf::YieldOp::create(t, ValueRange{begin, end});
        },
        [&](OpBuilder &eb, Location loc) {
          Value zero = arith::ConstantIndexOp::create(eb, loc, 0);
          scf::YieldOp::create(eb, loc, ValueRange{zero, zero});
        });
    rewriter.replaceOp(op, range.getResults());
    return success();
  }
};

/// The column of entry `e` of `words`: `(word >> bits) * block + (word &
/// (2^bits - 1))`.
Value loadColumn(ImplicitLocOpBuilder &b, Value words, Value e, int64_t block,
                 int64_t bits) {
  Value word = arith::IndexCastUIOp::create(
      b, b.getIndexType(), memref::LoadOp::create(b, words, e));
  Value high = arith::ShRUIOp::create(b, word, cIndex(b, bits));
  Value offset =
      arith::AndIOp::create(b, word, cIndex(b, (int64_t(1) << bits) - 1));
  return arith::AddIOp::create(
      b, arith::MulIOp::create(b, high, cIndex(b, block)), offset);
}

struct LowerCsrEntry : OpConversionPattern<sck::CsrEntryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::CsrEntryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value e = adaptor.getEntry();
    Value column = loadColumn(b, adaptor.getWords(), e, op.getBlockSize(),
                              op.getOffsetBits());
    Value value = memref::LoadOp::create(b, adaptor.getValues(), e);
    rewriter.replaceOp(op, {column, value});
    return success();
  }
};

/// Bisection of [begin, end) (end clamped to the words, begin to end):
/// while lo < hi, the middle entry's column below `column` moves lo past
/// it, else hi to it.
struct LowerCsrLowerBound : OpConversionPattern<sck::CsrLowerBoundOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::CsrLowerBoundOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value words = adaptor.getWords(), column = adaptor.getColumn();
    Value end = arith::MinUIOp::create(b, adaptor.getEnd(),
                                       memref::DimOp::create(b, words, 0));
    Value begin = arith::MinUIOp::create(b, adaptor.getBegin(), end);
    Type index = b.getIndexType();
    auto loop = scf::WhileOp::create(
        b, TypeRange{index, index}, ValueRange{begin, end},
        [&](OpBuilder &ob, Location loc, ValueRange range) {
          ImplicitLocOpBuilder c(loc, ob);
          scf::ConditionOp::create(c, ult(c, range[0], range[1]), range);
        },
        [&](OpBuilder &ob, Location loc, ValueRange range) {
          ImplicitLocOpBuilder c(loc, ob);
          Value lo = range[0], hi = range[1];
          Value mid = arith::AddIOp::create(
              c, lo,
              arith::DivUIOp::create(c, arith::SubIOp::create(c, hi, lo),
                                     cIndex(c, 2)));
          Value below = ult(c, loadColumn(c, words, mid, op.getBlockSize(),
                                          op.getOffsetBits()),
                            column);
          Value next = arith::AddIOp::create(c, mid, cIndex(c, 1));
          scf::YieldOp::create(
              c, ValueRange{arith::SelectOp::create(c, below, next, lo),
                            arith::SelectOp::create(c, below, hi, mid)});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

Value i32Const(ImplicitLocOpBuilder &b, int32_t v) {
  return arith::ConstantOp::create(b, b.getI32IntegerAttr(v));
}

/// The first slot of the i32 `k32`'s probe sequence in a table of `slots`
/// (a power of two): the top bits of k32 * 2654435761 (Knuth's
/// multiplicative hash) in 32 bits.
Value firstProbe(ImplicitLocOpBuilder &b, Value k32, int64_t slots) {
  Value mixed = arith::MulIOp::create(b, k32, i32Const(b, -1640531535));
  int64_t shift = 32 - llvm::Log2_64(slots);
  Value top = shift == 32 ? i32Const(b, 0)
                          : arith::ShRUIOp::create(b, mixed, i32Const(b, shift))
                                .getResult();
  return arith::IndexCastUIOp::create(b, b.getIndexType(), top);
}

/// Walks the i32 `key`'s probe sequence over a table of `slots` slots: `step(slot)`
/// returns (done, result) for the slot; stops at the first done or after
/// every slot. Returns the last slot and its result.
std::pair<Value, Value> probe(
    ImplicitLocOpBuilder &b, Value key, int64_t slots,
    llvm::function_ref<std::pair<Value, Value>(ImplicitLocOpBuilder &, Value)>
        step) {
  Type index = b.getIndexType();
  auto loop = scf::WhileOp::create(
      b, TypeRange{index, index, b.getI1Type()},
      ValueRange{firstProbe(b, key, slots), cIndex(b, 0)},
      [&](OpBuilder &ob, Location loc, ValueRange args) {
        ImplicitLocOpBuilder c(loc, ob);
        auto [done, result] = step(c, args[0]);
        Value more = ult(c, arith::AddIOp::create(c, args[1], cIndex(c, 1)),
                         cIndex(c, slots));
        Value go = arith::AndIOp::create(
            c, more,
            arith::XOrIOp::create(
                c, done, arith::ConstantOp::create(c, c.getBoolAttr(true))));
        scf::ConditionOp::create(c, go, ValueRange{args[0], args[1], result});
      },
      [&](OpBuilder &ob, Location loc, ValueRange args) {
        ImplicitLocOpBuilder c(loc, ob);
        Value next = arith::AndIOp::create(
            c, arith::AddIOp::create(c, args[0], cIndex(c, 1)),
            cIndex(c, slots - 1));
        scf::YieldOp::create(
            c, ValueRange{next, arith::AddIOp::create(c, args[1], cIndex(c, 1))});
      });
  return {loop.getResult(0), loop.getResult(2)};
}

/// A relaxed compare-and-swap of element `at` of the contiguous
/// workgroup-memory `table` (`expected` becomes `desired`): its value
/// before. (memref.generic_atomic_rmw would lower to a loop of
/// acquire-release, system-scope exchanges: a fence a probe.)
Value compareAndSwap(ImplicitLocOpBuilder &b, Value table, Value at,
                     Value expected, Value desired) {
  auto memref = cast<MemRefType>(table.getType());
  // NVPTX's shared address space (gpu-to-nvvm maps workgroup memory there).
  constexpr unsigned kSharedAddressSpace = 3;
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace);
  Value address = arith::IndexCastUIOp::create(
      b, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, table));
  Value base = LLVM::IntToPtrOp::create(b, ptrType, address);
  Value element = LLVM::GEPOp::create(
      b, ptrType, memref.getElementType(), base,
      ValueRange{arith::IndexCastUIOp::create(b, b.getI64Type(), at)});
  Value pair = LLVM::AtomicCmpXchgOp::create(
      b, element, expected, desired, LLVM::AtomicOrdering::monotonic,
      LLVM::AtomicOrdering::monotonic);
  return LLVM::ExtractValueOp::create(b, pair, 0);
}

/// Per probe: a slot holding the key is the key's; an empty one is claimed
/// by a relaxed compare-and-swap (-1 becomes the key) and is
/// the key's when it was still empty or another thread put the key there.
/// The value is added to the slot's sum with an atomic add.
struct LowerTableAdd : OpConversionPattern<sck::TableAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::TableAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value keys = adaptor.getKeys();
    int64_t slots = op.getKeys().getType().getDimSize(0);
    Value key32 =
        arith::IndexCastUIOp::create(b, b.getI32Type(), adaptor.getKey());
    auto [slot, mine] = probe(b, key32, slots, [&](ImplicitLocOpBuilder &c,
                                                 Value s) {
      Value held = memref::LoadOp::create(c, keys, s);
      Value empty = arith::CmpIOp::create(c, arith::CmpIPredicate::eq, held,
                                          i32Const(c, -1));
      auto claim = scf::IfOp::create(
          c, empty,
          [&](OpBuilder &tb, Location loc) {
            ImplicitLocOpBuilder t(loc, tb);
            scf::YieldOp::create(
                t, compareAndSwap(t, keys, s, i32Const(t, -1), key32));
          },
          [&](OpBuilder &eb, Location loc) {
            scf::YieldOp::create(eb, loc, held);
          });
      Value before = claim.getResult(0);
      Value ours = arith::OrIOp::create(
          c,
          arith::CmpIOp::create(c, arith::CmpIPredicate::eq, before, key32),
          arith::CmpIOp::create(c, arith::CmpIPredicate::eq, before,
                                i32Const(c, -1)));
      return std::make_pair(ours, ours);
    });
    auto add = scf::IfOp::create(b, mine);
    b.setInsertionPointToStart(add.thenBlock());
    memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addf,
                                adaptor.getValue(), adaptor.getSums(),
                                ValueRange{slot});
    rewriter.replaceOp(op, mine);
    return success();
  }
};

/// The probe sequence stops at the key (found) or an empty slot.
struct LowerTableFind : OpConversionPattern<sck::TableFindOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::TableFindOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value keys = adaptor.getKeys();
    int64_t slots = op.getKeys().getType().getDimSize(0);
    Value key32 = arith::IndexCastUIOp::create(b, b.getI32Type(), adaptor.getKey());
    Value found = probe(b, key32, slots, [&](ImplicitLocOpBuilder &c,
                                             Value s) {
      Value held = memref::LoadOp::create(c, keys, s);
      Value hit = arith::CmpIOp::create(c, arith::CmpIPredicate::eq, held, key32);
      Value empty = arith::CmpIOp::create(c, arith::CmpIPredicate::eq, held,
                                          i32Const(c, -1));
      return std::make_pair(arith::OrIOp::create(c, hit, empty).getResult(), hit);
    }).second;
    rewriter.replaceOp(op, found);
    return success();
  }
};

/// Whether row `r` of the rank-2 f32 `m` starts on 16 bytes and is
/// contiguous: a vector<4xf32> read at any multiple of 4 inside it is
/// aligned.
Value rowOnSixteenBytes(ImplicitLocOpBuilder &b, Value m, Value r) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, m);
  Value first = arith::AddIOp::create(
      b, meta.getOffset(),
      arith::MulIOp::create(b, r, meta.getStrides()[0]));
  Value address = arith::AddIOp::create(
      b, memref::ExtractAlignedPointerAsIndexOp::create(b, m),
      arith::MulIOp::create(b, first, cIndex(b, 4)));
  Value zero = cIndex(b, 0);
  return arith::AndIOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                            arith::RemUIOp::create(b, address, cIndex(b, 16)),
                            zero),
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, meta.getStrides()[1],
                            cIndex(b, 1)));
}

/// sum_k a[row, k] * x[col, k] for k < depth (a multiple of `width`),
/// fused multiply-adds in k order from 0. `width` 1 reads a column of each
/// row at a time; a multiple of 4 reads `width` columns of each row as
/// vectors of four (aligned: the caller checked), all issued before the
/// first multiply-add, so a step waits for one memory round trip.
Value dotOfRows(ImplicitLocOpBuilder &b, Value a, Value row, Value x,
                Value col, Value depth, int64_t width) {
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0));
  auto loop = scf::ForOp::create(b, cIndex(b, 0), depth, cIndex(b, width),
                                 ValueRange{zero});
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value k = loop.getInductionVar(), sum = loop.getRegionIterArgs()[0];
  if (width == 1) {
    sum = math::FmaOp::create(b, memref::LoadOp::create(b, a, ValueRange{row, k}),
                              memref::LoadOp::create(b, x, ValueRange{col, k}),
                              sum);
  } else {
    auto quad = VectorType::get({4}, b.getF32Type());
    auto readQuad = [&](Value m, Value r, int64_t q) {
      Value at = q ? arith::AddIOp::create(b, k, cIndex(b, 4 * q)).getResult() : k;
      return vector::LoadOp::create(b, quad, m, ValueRange{r, at},
                                    /*nontemporal=*/false,
                                    llvm::MaybeAlign(16))
          .getResult();
    };
    SmallVector<Value> as, xs;
    for (int64_t q = 0; q < width / 4; ++q) {
      as.push_back(readQuad(a, row, q));
      xs.push_back(readQuad(x, col, q));
    }
    for (int64_t i = 0; i < width; ++i)
      sum = math::FmaOp::create(b, vector::ExtractOp::create(b, as[i / 4], i % 4),
                                vector::ExtractOp::create(b, xs[i / 4], i % 4),
                                sum);
  }
  scf::YieldOp::create(b, sum);
  b.setInsertionPointAfter(loop);
  return loop.getResult(0);
}

/// Inside both rows: four columns a read when the depth is a multiple of
/// four and both rows start on 16 bytes (the heads' rows: a scalar read a
/// column moved a 32-byte sector for 4 bytes), else one; 0 outside.
struct LowerRowDot : OpConversionPattern<sck::RowDotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::RowDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value a = adaptor.getA(), x = adaptor.getB();
    Value row = adaptor.getRow(), col = adaptor.getCol();
    Value depth = arith::MinUIOp::create(b, memref::DimOp::create(b, a, 1),
                                         memref::DimOp::create(b, x, 1));
    Value inside = arith::AndIOp::create(
        b, ult(b, row, memref::DimOp::create(b, a, 0)),
        ult(b, col, memref::DimOp::create(b, x, 0)));
    auto dot = scf::IfOp::create(
        b, inside,
        [&](OpBuilder &tb, Location loc) {
          ImplicitLocOpBuilder t(loc, tb);
          Value quads = arith::AndIOp::create(
              t,
              arith::CmpIOp::create(
                  t, arith::CmpIPredicate::eq,
                  arith::RemUIOp::create(t, depth, cIndex(t, 4)), cIndex(t, 0)),
              arith::AndIOp::create(t, rowOnSixteenBytes(t, a, row),
                                    rowOnSixteenBytes(t, x, col)));
          auto read = scf::IfOp::create(
              t, quads,
              [&](OpBuilder &vb, Location vloc) {
                ImplicitLocOpBuilder v(vloc, vb);
                // Heads padded to 16 columns: 16 at a time.
                Value sixteens = arith::CmpIOp::create(
                    v, arith::CmpIPredicate::eq,
                    arith::RemUIOp::create(v, depth, cIndex(v, 16)),
                    cIndex(v, 0));
                auto byWidth = scf::IfOp::create(
                    v, sixteens,
                    [&](OpBuilder &wb, Location wloc) {
                      ImplicitLocOpBuilder w(wloc, wb);
                      scf::YieldOp::create(
                          w, dotOfRows(w, a, row, x, col, depth, 16));
                    },
                    [&](OpBuilder &wb, Location wloc) {
                      ImplicitLocOpBuilder w(wloc, wb);
                      scf::YieldOp::create(
                          w, dotOfRows(w, a, row, x, col, depth, 4));
                    });
                scf::YieldOp::create(v, byWidth.getResult(0));
              },
              [&](OpBuilder &sb, Location sloc) {
                ImplicitLocOpBuilder v(sloc, sb);
                scf::YieldOp::create(v, dotOfRows(v, a, row, x, col, depth, 1));
              });
          scf::YieldOp::create(t, read.getResult(0));
        },
        [&](OpBuilder &eb, Location loc) {
          scf::YieldOp::create(
              eb, loc,
              arith::ConstantOp::create(eb, loc, eb.getF32FloatAttr(0))
                  .getResult());
        });
    rewriter.replaceOp(op, dot.getResult(0));
    return success();
  }
};

/// Whether (row, column) is inside the rank-2 `m`.
Value inside(ImplicitLocOpBuilder &b, Value m, Value row, Value column) {
  return arith::AndIOp::create(
      b, ult(b, row, memref::DimOp::create(b, m, 0)),
      ult(b, column, memref::DimOp::create(b, m, 1)));
}

/// The function `name` of `op`'s gpu.module, when it takes (f32, index,
/// index, and `numIns` ins) to `element`; else a located error.
FailureOr<func::FuncOp> epilogueFunction(Operation *op, StringRef name,
                                         size_t numIns, Type element) {
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  auto epilogue =
      module ? module.lookupSymbol<func::FuncOp>(name) : func::FuncOp();
  if (!epilogue || epilogue.getNumResults() != 1 ||
      epilogue.getResultTypes()[0] != element ||
      epilogue.getNumArguments() != 3 + numIns)
    return op->emitOpError() << "expected '" << name
                             << "' to be a function of the gpu.module taking "
                                "(f32, index, index, ins...) to "
                             << element;
  return epilogue;
}

struct LowerScatterAdd : OpConversionPattern<sck::ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    func::FuncOp scale;
    if (op.getScale()) {
      FailureOr<func::FuncOp> found =
          epilogueFunction(op, *op.getScale(), op.getIns().size(),
                           b.getF32Type());
      if (failed(found))
        return failure();
      scale = *found;
    }
    Value result = adaptor.getResult(), row = adaptor.getRow(),
          column = adaptor.getColumn(), value = adaptor.getValue();
    auto guard = scf::IfOp::create(b, inside(b, result, row, column));
    b.setInsertionPointToStart(guard.thenBlock());
    if (scale) {
      SmallVector<Value> args = {
          arith::ConstantOp::create(b, b.getF32FloatAttr(1)), row, column};
      llvm::append_range(args, adaptor.getIns());
      value = arith::MulFOp::create(
          b, value, func::CallOp::create(b, scale, args).getResult(0));
    }
    memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addf, value, result,
                                ValueRange{row, column});
    rewriter.eraseOp(op);
    return success();
  }
};

/// The CTA's threads copy `rows` x K elements, a thread every 256th, each a
/// load (zero past the source) and a transposed store.
struct LowerStageRows : OpConversionPattern<sck::StageRowsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::StageRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value source = adaptor.getSource(), stage = adaptor.getStage();
    int64_t depth = op.getStage().getType().getDimSize(0);
    int64_t count = op.getRows() * depth;
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0));
    gpu::BarrierOp::create(b);
    for (int64_t first = 0; first < count; first += kThreads) {
      Value e = arith::AddIOp::create(b, tid, cIndex(b, first));
      Value r = arith::DivUIOp::create(b, e, cIndex(b, depth));
      Value k = arith::RemUIOp::create(b, e, cIndex(b, depth));
      Value at = arith::AddIOp::create(b, adaptor.getRow(), r);
      Value atK = arith::AddIOp::create(b, adaptor.getK(), k);
      Value in = inside(b, source, at, atK);
      auto load = scf::IfOp::create(
          b, in,
          [&](OpBuilder &tb, Location loc) {
            Value v = memref::LoadOp::create(tb, loc, source, ValueRange{at, atK});
            scf::YieldOp::create(tb, loc, v);
          },
          [&](OpBuilder &eb, Location loc) {
            scf::YieldOp::create(eb, loc, zero);
          });
      auto mine = scf::IfOp::create(b, ult(b, e, cIndex(b, count)));
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(mine.thenBlock());
      memref::StoreOp::create(b, load.getResult(0), stage, ValueRange{k, r});
    }
    gpu::BarrierOp::create(b);
    rewriter.eraseOp(op);
    return success();
  }
};

/// This thread's place in sck.fma_tile's layout: its 8 rows' and 8
/// columns' offsets in the tile (two groups of four, 64 apart).
struct ThreadPlace {
  Value rowBase, colBase; // ty * 4, tx * 4
  ThreadPlace(ImplicitLocOpBuilder &b) {
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    rowBase = arith::MulIOp::create(
        b, arith::DivUIOp::create(b, tid, cIndex(b, 16)), cIndex(b, 4));
    colBase = arith::MulIOp::create(
        b, arith::RemUIOp::create(b, tid, cIndex(b, 16)), cIndex(b, 4));
  }
  /// Offset of this thread's i-th row (or column) from `base`.
  static Value nth(ImplicitLocOpBuilder &b, Value base, int64_t i) {
    return arith::AddIOp::create(b, base,
                                 cIndex(b, (i / 4) * (kTile / 2) + i % 4));
  }
};

/// Per k: this thread's 8 values of a (two 16-byte reads) and of b, then
/// 64 fused multiply-adds.
struct LowerFmaTile : OpConversionPattern<sck::FmaTileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::FmaTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    ThreadPlace place(b);
    auto quad = VectorType::get({4}, b.getF32Type());
    auto eight = [&](Value stage, Value k, Value base) {
      SmallVector<Value> values;
      for (int64_t half = 0; half < 2; ++half) {
        Value at = arith::AddIOp::create(b, base, cIndex(b, half * kTile / 2));
        Value v = vector::LoadOp::create(b, quad, stage, ValueRange{k, at},
                                         /*nontemporal=*/false,
                                         llvm::MaybeAlign(16));
        for (int64_t i = 0; i < 4; ++i)
          values.push_back(vector::ExtractOp::create(b, v, i));
      }
      return values;
    };
    Value acc = adaptor.getAcc();
    int64_t depth = op.getA().getType().getDimSize(0);
    for (int64_t k = 0; k < depth; ++k) {
      Value ck = cIndex(b, k);
      SmallVector<Value> a = eight(adaptor.getA(), ck, place.rowBase);
      SmallVector<Value> x = eight(adaptor.getB(), ck, place.colBase);
      for (int64_t r = 0; r < kPerThread; ++r)
        for (int64_t c = 0; c < kPerThread; ++c) {
          int64_t at = r * kPerThread + c;
          Value old = vector::ExtractOp::create(b, acc, at);
          Value sum = math::FmaOp::create(b, a[r], x[c], old);
          acc = vector::InsertOp::create(b, sum, acc, at);
        }
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// `addend`'s element (row, col), 0 outside it.
Value readAddendElement(ImplicitLocOpBuilder &b, Value addend, Value row,
                        Value col) {
  auto read = scf::IfOp::create(
      b, inside(b, addend, row, col),
      [&](OpBuilder &tb, Location loc) {
        Value x = memref::LoadOp::create(tb, loc, addend, ValueRange{row, col});
        scf::YieldOp::create(tb, loc, x);
      },
      [&](OpBuilder &eb, Location loc) {
        Value zero = arith::ConstantOp::create(eb, loc, eb.getF32FloatAttr(0));
        scf::YieldOp::create(eb, loc, zero);
      });
  return read.getResult(0);
}

/// `addend`'s elements (row, col0 .. col0 + 3), 0 outside it: one vector
/// read when all four are inside and its rows are a multiple of four long.
Value readAddendQuad(ImplicitLocOpBuilder &b, Value addend, Value row,
                     Value col0) {
  auto quad = VectorType::get({4}, b.getF32Type());
  Value rows = memref::DimOp::create(b, addend, 0);
  Value cols = memref::DimOp::create(b, addend, 1);
  Value whole = arith::AndIOp::create(
      b,
      arith::AndIOp::create(
          b, ult(b, row, rows),
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                arith::RemUIOp::create(b, cols, cIndex(b, 4)),
                                cIndex(b, 0))),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ule,
                            arith::AddIOp::create(b, col0, cIndex(b, 4)), cols));
  auto read = scf::IfOp::create(
      b, whole,
      [&](OpBuilder &tb, Location loc) {
        Value v = vector::LoadOp::create(tb, loc, quad, addend,
                                         ValueRange{row, col0},
                                         /*nontemporal=*/false,
                                         llvm::MaybeAlign(16));
        scf::YieldOp::create(tb, loc, v);
      },
      [&](OpBuilder &eb, Location loc) {
        ImplicitLocOpBuilder e(loc, eb);
        Value zero = arith::ConstantOp::create(e, e.getF32FloatAttr(0));
        Value v = vector::BroadcastOp::create(e, quad, zero);
        for (int64_t j = 0; j < 4; ++j) {
          Value col = arith::AddIOp::create(e, col0, cIndex(e, j));
          v = vector::InsertOp::create(e, readAddendElement(e, addend, row, col),
                                       v, j);
        }
        scf::YieldOp::create(e, v);
      });
  return read.getResult(0);
}

/// Element `at` of the thread's tile (sck.fma_tile's order), plus `extra`
/// when there is one, through `epilogue` at (`row`, `col`).
Value throughEpilogue(ImplicitLocOpBuilder &b, Value tile, int64_t at,
                      Value extra, Value row, Value col, func::FuncOp epilogue,
                      ValueRange ins) {
  Value v = vector::ExtractOp::create(b, tile, at);
  if (extra)
    v = arith::AddFOp::create(b, v, extra);
  SmallVector<Value> args = {v, row, col};
  llvm::append_range(args, ins);
  return func::CallOp::create(b, epilogue, args).getResult(0);
}

/// The thread's 8 elements of its row `r` of the tile at (`row0`, `col0`),
/// each plus the addend's element (0 outside it) through `epilogue`.
/// Elements outside `rows` x `cols` (both non-zero) go through it at the
/// clamped last row or column, their values unused: the calls are made
/// before the caller's appends, so the epilogue's read of the row (its
/// norm) is loaded once, not once an element. (sck.store_tile keeps a call
/// per element between its stores: the clamps cost more than the loads
/// saved, docs/decisions.md.)
SmallVector<Value> rowThroughEpilogue(ImplicitLocOpBuilder &b, Value tile,
                                      int64_t r, Value row0, Value col0,
                                      Value rows, Value cols, Value addend,
                                      func::FuncOp epilogue, ValueRange ins) {
  ThreadPlace place(b);
  Value lastRow = arith::SubIOp::create(b, rows, cIndex(b, 1));
  Value lastCol = arith::SubIOp::create(b, cols, cIndex(b, 1));
  Value row =
      arith::AddIOp::create(b, row0, ThreadPlace::nth(b, place.rowBase, r));
  Value atRow = arith::MinUIOp::create(b, row, lastRow);
  SmallVector<Value> out;
  for (int64_t group = 0; group < 2; ++group) {
    Value first = arith::AddIOp::create(
        b, col0, ThreadPlace::nth(b, place.colBase, group * 4));
    Value extras = addend ? readAddendQuad(b, addend, row, first) : Value();
    for (int64_t j = 0; j < 4; ++j) {
      Value col = arith::AddIOp::create(b, first, cIndex(b, j));
      Value extra =
          extras ? vector::ExtractOp::create(b, extras, j).getResult() : Value();
      out.push_back(throughEpilogue(b, tile, r * kPerThread + group * 4 + j,
                                    extra, atRow,
                                    arith::MinUIOp::create(b, col, lastCol),
                                    epilogue, ins));
    }
  }
  return out;
}

/// Runs `body` only when `rows` and `cols` are both non-zero.
void ifNotEmpty(ImplicitLocOpBuilder &b, Value rows, Value cols,
                llvm::function_ref<void()> body) {
  Value zero = cIndex(b, 0);
  auto nonEmpty = scf::IfOp::create(
      b, arith::AndIOp::create(
             b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, rows, zero),
             arith::CmpIOp::create(b, arith::CmpIPredicate::ne, cols, zero)));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(nonEmpty.thenBlock());
  body();
}

/// Per row and group of four columns: when all four are inside and the
/// rows are a multiple of four long, one vector read of the addend and one
/// vector store; else element by element, each inside the result. Each
/// element goes through the epilogue function.
struct LowerStoreTile : OpConversionPattern<sck::StoreTileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::StoreTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type element = op.getResult().getType().getElementType();
    FailureOr<func::FuncOp> found =
        epilogueFunction(op, op.getEpilogue(), op.getIns().size(), element);
    if (failed(found))
      return failure();
    func::FuncOp epilogue = *found;
    ThreadPlace place(b);
    Value result = adaptor.getResult(), addend = adaptor.getAddend();
    Value rows = memref::DimOp::create(b, result, 0);
    Value cols = memref::DimOp::create(b, result, 1);
    Value rowsOfFour = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, cols, cIndex(b, 4)), cIndex(b, 0));
    // The vector path reads the addend at the same offsets: same row length.
    Value addendRows;
    if (addend) {
      rowsOfFour = arith::AndIOp::create(
          b, rowsOfFour,
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                memref::DimOp::create(b, addend, 1), cols));
      addendRows = memref::DimOp::create(b, addend, 0);
    }
    // Element (r, c) of the thread's tile, plus `extra`, through the
    // epilogue.
    auto finish = [&](ImplicitLocOpBuilder &e, int64_t r, int64_t c, Value row,
                      Value col, Value extra) {
      return throughEpilogue(e, adaptor.getTile(), r * kPerThread + c, extra,
                             row, col, epilogue, adaptor.getIns());
    };
    auto quadOf = [&](Type t) { return VectorType::get({4}, t); };
    int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    for (int64_t r = 0; r < kPerThread; ++r) {
      Value row = arith::AddIOp::create(
          b, adaptor.getRow(), ThreadPlace::nth(b, place.rowBase, r));
      for (int64_t group = 0; group < 2; ++group) {
        Value col0 = arith::AddIOp::create(
            b, adaptor.getColumn(),
            ThreadPlace::nth(b, place.colBase, group * 4));
        Value rowInside = ult(b, row, rows);
        if (addend)
          rowInside = arith::AndIOp::create(b, rowInside,
                                            ult(b, row, addendRows));
        Value whole = arith::AndIOp::create(
            b, arith::AndIOp::create(b, rowInside, rowsOfFour),
            arith::CmpIOp::create(b, arith::CmpIPredicate::ule,
                                  arith::AddIOp::create(b, col0, cIndex(b, 4)),
                                  cols));
        auto branch = scf::IfOp::create(b, whole, /*withElseRegion=*/true);
        {
          ImplicitLocOpBuilder t(op.getLoc(), rewriter);
          t.setInsertionPointToStart(branch.thenBlock());
          Value extras;
          if (addend)
            extras = vector::LoadOp::create(t, quadOf(t.getF32Type()), addend,
                                            ValueRange{row, col0},
                                            /*nontemporal=*/false,
                                            llvm::MaybeAlign(16));
          Value out = arith::ConstantOp::create(
              t, quadOf(element),
              DenseElementsAttr::get(quadOf(element),
                                     t.getZeroAttr(element)));
          for (int64_t j = 0; j < 4; ++j) {
            Value col = arith::AddIOp::create(t, col0, cIndex(t, j));
            Value extra =
                extras ? vector::ExtractOp::create(t, extras, j).getResult()
                       : Value();
            out = vector::InsertOp::create(
                t, finish(t, r, group * 4 + j, row, col, extra), out, j);
          }
          vector::StoreOp::create(t, out, result, ValueRange{row, col0},
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(4 * bytes));
        }
        ImplicitLocOpBuilder f(op.getLoc(), rewriter);
        f.setInsertionPointToStart(branch.elseBlock());
        for (int64_t j = 0; j < 4; ++j) {
          Value col = arith::AddIOp::create(f, col0, cIndex(f, j));
          auto guard = scf::IfOp::create(f, inside(f, result, row, col));
          OpBuilder::InsertionGuard g(f);
          f.setInsertionPointToStart(guard.thenBlock());
          Value extra =
              addend ? readAddendElement(f, addend, row, col) : Value();
          memref::StoreOp::create(
              f, finish(f, r, group * 4 + j, row, col, extra), result,
              ValueRange{row, col});
        }
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The rows every per-row buffer of a selection has: a row is taken only
/// where all of them have it.
Value rowsOfEveryBuffer(ImplicitLocOpBuilder &b, Value thresholds,
                        Value counts, Value values, Value cols) {
  return arith::MinUIOp::create(
      b,
      arith::MinUIOp::create(b, memref::DimOp::create(b, thresholds, 0),
                             memref::DimOp::create(b, counts, 0)),
      arith::MinUIOp::create(b, memref::DimOp::create(b, values, 0),
                             memref::DimOp::create(b, cols, 0)));
}

/// The slots a row has in both `values` and `cols`.
Value slotsOfBoth(ImplicitLocOpBuilder &b, Value values, Value cols) {
  return arith::MinUIOp::create(b, memref::DimOp::create(b, values, 1),
                                memref::DimOp::create(b, cols, 1));
}

/// `score` at `col` written to the i32 `slot` of `row` when the slot is
/// below `capacity`.
void writeSlot(ImplicitLocOpBuilder &b, Value score, Value row, Value col,
               Value slot, Value values, Value cols, Value capacity) {
  OpBuilder::InsertionGuard g(b);
  Value at = arith::IndexCastUIOp::create(b, b.getIndexType(), slot);
  auto room = scf::IfOp::create(b, ult(b, at, capacity));
  b.setInsertionPointToStart(room.thenBlock());
  memref::StoreOp::create(b, score, values, ValueRange{row, at});
  Value col32 = arith::IndexCastUIOp::create(b, b.getI32Type(), col);
  memref::StoreOp::create(b, col32, cols, ValueRange{row, at});
}

/// `score` at `col` takes the row's next slot (an atomic add on
/// counts[row]) and is written there when the slot is below `capacity`.
void appendToRow(ImplicitLocOpBuilder &b, Value score, Value row, Value col,
                 Value counts, Value values, Value cols, Value capacity) {
  Value slot = memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi,
                                           i32Const(b, 1), counts,
                                           ValueRange{row});
  writeSlot(b, score, row, col, slot, values, cols, capacity);
}

/// Inside every per-row buffer, the row's threshold read and compared
/// (ogt: NaN never above); above it, appended.
struct LowerAppendAbove : OpConversionPattern<sck::AppendAboveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::AppendAboveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value thresholds = adaptor.getThresholds(), counts = adaptor.getCounts(),
          values = adaptor.getValues(), cols = adaptor.getCols();
    Value row = adaptor.getRow(), score = adaptor.getScore();
    auto rowIf = scf::IfOp::create(
        b, ult(b, row, rowsOfEveryBuffer(b, thresholds, counts, values, cols)));
    b.setInsertionPointToStart(rowIf.thenBlock());
    Value theta = memref::LoadOp::create(b, thresholds, row);
    auto above = scf::IfOp::create(
        b, arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, score, theta));
    b.setInsertionPointToStart(above.thenBlock());
    appendToRow(b, score, row, adaptor.getCol(), counts, values, cols,
                slotsOfBoth(b, values, cols));
    rewriter.eraseOp(op);
    return success();
  }
};

/// All 64 elements of the thread's tile through the epilogue first
/// (rowThroughEpilogue: no store between them, so each row's and column's
/// epilogue reads, the norms, are loaded once, not once a row), then row by
/// row each inside the bounds compared with the row's threshold; those above
/// it appended to the row, in consecutive slots taken by one atomic add.
struct LowerSelectTile : OpConversionPattern<sck::SelectTileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::SelectTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    FailureOr<func::FuncOp> found = epilogueFunction(
        op, op.getEpilogue(), op.getIns().size(), b.getF32Type());
    if (failed(found))
      return failure();
    Value thresholds = adaptor.getThresholds(), counts = adaptor.getCounts(),
          values = adaptor.getValues(), cols = adaptor.getCols();
    Value rows = adaptor.getRows(), columns = adaptor.getColumns();
    ifNotEmpty(b, rows, columns, [&] {
      ThreadPlace place(b);
      Value rowLimit = arith::MinUIOp::create(
          b, rows, rowsOfEveryBuffer(b, thresholds, counts, values, cols));
      Value capacity = slotsOfBoth(b, values, cols);
      SmallVector<SmallVector<Value>> tileScores;
      for (int64_t r = 0; r < kPerThread; ++r)
        tileScores.push_back(rowThroughEpilogue(
            b, adaptor.getTile(), r, adaptor.getRow(), adaptor.getColumn(),
            rows, columns, adaptor.getAddend(), *found, adaptor.getIns()));
      for (int64_t r = 0; r < kPerThread; ++r) {
        Value row = arith::AddIOp::create(
            b, adaptor.getRow(), ThreadPlace::nth(b, place.rowBase, r));
        ArrayRef<Value> scores = tileScores[r];
        auto rowIf = scf::IfOp::create(b, ult(b, row, rowLimit));
        OpBuilder::InsertionGuard rowGuard(b);
        b.setInsertionPointToStart(rowIf.thenBlock());
        Value theta = memref::LoadOp::create(b, thresholds, row);
        SmallVector<Value> colsOfRow, keeps;
        Value kept = i32Const(b, 0);
        for (int64_t c = 0; c < kPerThread; ++c) {
          colsOfRow.push_back(arith::AddIOp::create(
              b, adaptor.getColumn(), ThreadPlace::nth(b, place.colBase, c)));
          keeps.push_back(arith::AndIOp::create(
              b, ult(b, colsOfRow.back(), columns),
              arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, scores[c],
                                    theta)));
          kept = arith::AddIOp::create(
              b, kept, arith::ExtUIOp::create(b, b.getI32Type(), keeps.back()));
        }
        // The thread's kept elements of the row take consecutive slots
        // from one atomic add (a contended counter: one add a row, not one
        // an element).
        auto any = scf::IfOp::create(
            b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, kept,
                                     i32Const(b, 0)));
        OpBuilder::InsertionGuard anyGuard(b);
        b.setInsertionPointToStart(any.thenBlock());
        Value slot = memref::AtomicRMWOp::create(
            b, arith::AtomicRMWKind::addi, kept, counts, ValueRange{row});
        for (int64_t c = 0; c < kPerThread; ++c) {
          auto keepIf = scf::IfOp::create(b, keeps[c]);
          {
            OpBuilder::InsertionGuard keepGuard(b);
            b.setInsertionPointToStart(keepIf.thenBlock());
            writeSlot(b, scores[c], row, colsOfRow[c], slot, values, cols,
                      capacity);
          }
          slot = arith::AddIOp::create(
              b, slot, arith::ExtUIOp::create(b, b.getI32Type(), keeps[c]));
        }
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct ScLowerSckSimtPass
    : sc::impl::ScLowerSckSimtPassBase<ScLowerSckSimtPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalOp<sck::CsrRowOp, sck::CsrEntryOp, sck::CsrLowerBoundOp,
                        sck::ScatterAddOp, sck::StageRowsOp, sck::FmaTileOp,
                        sck::StoreTileOp, sck::SelectTileOp, sck::TableAddOp,
                        sck::TableFindOp, sck::RowDotOp,
                        sck::AppendAboveOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    patterns.add<LowerCsrRow, LowerCsrEntry, LowerCsrLowerBound,
                 LowerScatterAdd, LowerStageRows, LowerFmaTile, LowerStoreTile,
                 LowerSelectTile, LowerTableAdd, LowerTableFind, LowerRowDot,
                 LowerAppendAbove>(ctx);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
