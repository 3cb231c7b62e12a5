//===- SimilarityKernel.cpp - the kernels of a split sc.sparse_matmul -----===//
//
// A similarity split at a head (docs/sparse-similarity.md) runs as two
// kernels written in sck ops:
//  - scatter: a CTA a query row; for each entry (d, v) of the query's
//    tail, the items of dimension d (the rhs by dimension, transpose_rhs),
//    v * w added into the scores with atomics, the row's products spread
//    evenly over the threads. Only the tail's pair products are touched. When the epilogue is linear in the
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
constexpr int64_t kThreads = 256;
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

/// The memref types of both row sets' buffers (lhs ptr, words, values, rhs
/// ptr, words, values), as the kernels that walk them take them.
SmallVector<Type> csrMemrefs(SparseMatmulOp op) {
  SmallVector<Type> types;
  for (AssembleCsrOp a : {assembly(op.getLhs()), assembly(op.getRhs())})
    for (Value v : a->getOperands())
      types.push_back(memrefOfValue(v));
  return types;
}

/// An empty slot: (-inf, -1) at [row, slot] of `values` and `cols`.
void storeEmptySlot(OpBuilder &b, Location loc, Value values, Value cols,
                    Value row, Value slot) {
  Value none = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value noColumn = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(-1));
  memref::StoreOp::create(b, loc, none, values, ValueRange{row, slot});
  memref::StoreOp::create(b, loc, noColumn, cols, ValueRange{row, slot});
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
  auto loop = scf::ForOp::create(b, loc, first, total, stride);
  b.setInsertionPointToStart(loop.getBody());
  Value e = loop.getInductionVar();
  Value r = arith::DivUIOp::create(b, loc, e, width);
  Value k = arith::RemUIOp::create(b, loc, e, width);
  // cols has the capacity of values (the op's verifier).
  storeEmptySlot(b, loc, v, c, r, k);
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
}

/// What the kernels over a query row's tail share: index arithmetic, rows
/// and entries, loops and branches, and the spreading of a batch of the
/// row's entries' products evenly over a CTA's threads (an inclusive scan
/// of the entries' list lengths, the bisection that finds a product's
/// entry).
class CsrKernelBuilder {
protected:
  explicit CsrKernelBuilder(SparseMatmulOp op)
      : b(op.getContext()), loc(op.getLoc()), qLayout(layoutOf(op.getLhs())),
        dLayout(layoutOf(op.getRhs())) {}

  /// The items of an entry's list a kernel takes, [begin, end).
  using ItemsOf = llvm::function_ref<std::pair<Value, Value>(sck::CsrRowOp)>;

  Value index(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  }
  Value dim(Value m, int64_t d) {
    return memref::DimOp::create(b, loc, m, d).getResult();
  }
  Value minOf(ValueRange xs) {
    Value m = xs.front();
    for (Value x : xs.drop_front())
      m = arith::MinUIOp::create(b, loc, m, x);
    return m;
  }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y)
        .getResult();
  }
  Value inRange(Value x, Value lo, Value hi) {
    return arith::AndIOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, x, lo),
        ult(x, hi));
  }
  sck::CsrRowOp csrRow(Value ptr, Value at, Value words) {
    return sck::CsrRowOp::create(b, loc, b.getIndexType(), b.getIndexType(),
                                 ptr, at, dim(words, 0));
  }
  sck::CsrEntryOp csrEntry(Value words, Value vals, Value at,
                           BlockCsrAttr layout) {
    return sck::CsrEntryOp::create(b, loc, b.getIndexType(), b.getF32Type(),
                                   words, vals, at, layout.getBlockSize(),
                                   layout.getOffsetBits());
  }
  /// A loop of the CTA's threads (or of one thread) from `first`.
  void stridedFor(Value first, Value stop, int64_t step,
                  llvm::function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, first, stop, index(step));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar());
  }
  void ifThen(Value cond, llvm::function_ref<void()> body) {
    auto branch = scf::IfOp::create(b, loc, cond);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    body();
  }
  /// A view of `size` `element`s of the dynamic shared memory at `offset`.
  Value sharedView(int64_t size, Type element, int64_t offset) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value smem = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                        workgroup));
    return memref::ViewOp::create(
        b, loc, MemRefType::get({size}, element, AffineMap(), workgroup), smem,
        index(offset), ValueRange{});
  }

  /// `ends` (a length a thread of `threads`, thread `tid`'s at [tid])
  /// becomes their inclusive scan (Hillis-Steele, a barrier on each side
  /// of every step).
  void scanInclusive(Value ends, Value tid, int64_t threads) {
    for (int64_t d = 1; d < threads; d *= 2) {
      auto before = scf::IfOp::create(
          b, loc, TypeRange{b.getIndexType()},
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid,
                                index(d)),
          /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(before.thenBlock());
        scf::YieldOp::create(
            b, loc,
            ValueRange{memref::LoadOp::create(
                           b, loc, ends,
                           ValueRange{arith::SubIOp::create(b, loc, tid,
                                                            index(d))})
                           .getResult()});
        b.setInsertionPointToStart(before.elseBlock());
        scf::YieldOp::create(b, loc, ValueRange{index(0)});
      }
      gpu::BarrierOp::create(b, loc);
      Value mine = memref::LoadOp::create(b, loc, ends, tid);
      memref::StoreOp::create(
          b, loc, arith::AddIOp::create(b, loc, mine, before.getResult(0)),
          ends, tid);
      gpu::BarrierOp::create(b, loc);
    }
  }

  /// The entry of product `p` of a scanned batch (`ends`, `threads` long,
  /// a power of two): the first whose end is past p.
  Value entryOfProduct(Value ends, Value p, int64_t threads) {
    Value j = index(0);
    for (int64_t step = threads / 2; step >= 1; step /= 2) {
      Value probe = arith::AddIOp::create(b, loc, j, index(step - 1));
      Value past = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule,
          memref::LoadOp::create(b, loc, ends, probe), p);
      j = arith::SelectOp::create(
          b, loc, past, arith::AddIOp::create(b, loc, j, index(step)), j);
    }
    return j;
  }

  /// Entry `e` of the query row's tail (none past its end): the first of
  /// the items `itemsOf` takes from its list, how many, and its value.
  std::tuple<Value, Value, Value> entrySpan(Value e, ItemsOf itemsOf) {
    Type indexType = b.getIndexType();
    auto span = scf::IfOp::create(
        b, loc, TypeRange{indexType, indexType, b.getF32Type()},
        ult(e, query.getEnd()), /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(span.thenBlock());
      auto q = csrEntry(qWords, qValues, e, qLayout);
      auto [first, last] = itemsOf(csrRow(dPtr, q.getColumn(), dWords));
      scf::YieldOp::create(b, loc, ValueRange{first, last, q.getValue()});
      b.setInsertionPointToStart(span.elseBlock());
      scf::YieldOp::create(
          b, loc,
          ValueRange{index(0), index(0),
                     arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0))
                         .getResult()});
    }
    Value first = span.getResult(0);
    Value length = arith::SubIOp::create(b, loc, span.getResult(1), first);
    return {first, length, span.getResult(2)};
  }

  /// The products of the query row's entries batch .. batch + threads - 1
  /// spread over the CTA's threads: each thread's entry finds its items
  /// (`itemsOf`), a scan of their counts numbers the batch's products, and
  /// thread t runs `product` (its entry's index in the batch, the item) on
  /// products t, t + threads, ...
  void spreadBatch(Value batch, int64_t threads, ItemsOf itemsOf,
                   llvm::function_ref<void(Value, sck::CsrEntryOp)> product) {
    Value e = arith::AddIOp::create(b, loc, batch, tid);
    auto [first, length, weight] = entrySpan(e, itemsOf);
    // The batch's arrays are reused: the last batch's products are done.
    gpu::BarrierOp::create(b, loc);
    memref::StoreOp::create(b, loc, length, ends, tid);
    memref::StoreOp::create(b, loc, weight, weights, tid);
    gpu::BarrierOp::create(b, loc);
    scanInclusive(ends, tid, threads);
    // An entry's product p is item first + p - (its end - its length).
    Value end = memref::LoadOp::create(b, loc, ends, tid);
    memref::StoreOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, arith::AddIOp::create(b, loc, first, length),
                              end),
        bases, tid);
    Value total = memref::LoadOp::create(b, loc, ends, index(threads - 1));
    gpu::BarrierOp::create(b, loc);
    stridedFor(tid, total, threads, [&](Value p) {
      Value j = entryOfProduct(ends, p, threads);
      Value at = arith::AddIOp::create(
          b, loc, memref::LoadOp::create(b, loc, bases, j), p);
      product(j, csrEntry(dWords, dValues, at, dLayout));
    });
  }

  /// The value of the batch's entry `j` times `item`'s.
  Value productOf(Value j, sck::CsrEntryOp item) {
    return arith::MulFOp::create(
        b, loc, memref::LoadOp::create(b, loc, weights, j), item.getValue());
  }

  OpBuilder b;
  Location loc;
  BlockCsrAttr qLayout, dLayout;
  /// The row sets' buffers (queries; items by dimension), the query row and
  /// its entries, this thread, and the batch's arrays in shared memory (the
  /// scan of its entries' item counts, each one's first item less its scan
  /// offset, its value).
  Value qPtr, qWords, qValues, dPtr, dWords, dValues;
  Value row, tid, ends, bases, weights;
  sck::CsrRowOp query;
};

// The balanced scatter kernel's threads (a CTA a query row) and its
// dynamic shared memory: a batch of tail entries, a thread each: the scan
// of their list lengths (index), each one's first item less its scan
// offset (index), its value (f32).
constexpr int64_t kScatterThreads = 256,
                  kScatterBasesOffset = kScatterThreads * 8,
                  kScatterWeightsOffset = kScatterBasesOffset + kScatterThreads * 8,
                  kScatterSharedBytes = kScatterWeightsOffset + kScatterThreads * 4;

/// scatter(lhs ptr, words, values, rhs ptr, words, values, scores), or with
/// `scale` (the epilogue function) scatter(..., result, ins...): a CTA a
/// query row; each batch of the row's tail entries (a thread each) finds
/// its items' lists, a scan of their lengths numbers the batch's products,
/// and thread t adds products t, t + threads, ... (a bisection of the scan
/// finds each one's entry), each v * w (scaled by scale(1, row, column,
/// ins...)) into row, column with an atomic add. The products spread
/// evenly over the CTA whatever the lists' lengths; the rows' differences
/// even out over the grid.
class ScatterKernelWriter : CsrKernelBuilder {
public:
  ScatterKernelWriter(SparseMatmulOp op, gpu::GPUModuleOp module,
                      StringRef name, StringRef scale)
      : CsrKernelBuilder(op), scale(scale) {
    SmallVector<Type> params = csrMemrefs(op);
    params.push_back(MemRefType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic}, b.getF32Type()));
    if (!scale.empty())
      llvm::append_range(params, epilogueMemrefs(op));
    func = createKernelFunction(b, loc, module, name, params, kScatterThreads);
  }

  void write() {
    auto arg = [&](unsigned i) { return func.getArgument(i); };
    qPtr = arg(0), qWords = arg(1), qValues = arg(2), dPtr = arg(3),
    dWords = arg(4), dValues = arg(5), scores = arg(6);
    ins.assign(func.getArguments().begin() + 7, func.getArguments().end());
    ends = sharedView(kScatterThreads, b.getIndexType(), 0);
    bases = sharedView(kScatterThreads, b.getIndexType(), kScatterBasesOffset);
    weights = sharedView(kScatterThreads, b.getF32Type(), kScatterWeightsOffset);
    tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    // (A row past the pointers is empty: csr_row.)
    query = csrRow(qPtr, row, qWords);
    auto wholeList = [](sck::CsrRowOp list) {
      return std::pair(list.getBegin(), list.getEnd());
    };
    stridedFor(query.getBegin(), query.getEnd(), kScatterThreads,
               [&](Value batch) {
      spreadBatch(batch, kScatterThreads, wholeList,
                  [&](Value j, sck::CsrEntryOp item) {
        sck::ScatterAddOp::create(
            b, loc, productOf(j, item), scores, row, item.getColumn(),
            scale.empty() ? FlatSymbolRefAttr()
                          : b.getAttr<FlatSymbolRefAttr>(scale),
            ins);
      });
    });
    gpu::ReturnOp::create(b, loc);
  }

private:
  StringRef scale;
  gpu::GPUFuncOp func;
  Value scores;
  SmallVector<Value> ins;
};

// The rescoring kernel's table of per-item tail sums (keys i32, sums f32:
// 64 KB of dynamic shared memory, three CTAs an SM), and the products a
// pass takes at most: the table stays at most three quarters full (fewer
// passes than at half, measured faster: docs/decisions.md; a pass's
// distinct items never fill it).
constexpr int64_t kTableSlots = 8192, kProductsAPass = kTableSlots * 3 / 4;
// The rescoring kernel's threads: 512, three CTAs an SM (48 warps: its
// phases wait on memory, each thread a chain of dependent reads).
constexpr int64_t kRescoreThreads = 512;
// Its dynamic shared memory: the table (keys i32, sums f32), then a batch
// of tail entries, a thread each: the scan of their products' counts
// (index), each one's first item less its scan offset (index), its value
// (f32).
constexpr int64_t kSumsOffset = kTableSlots * 4,
                  kEndsOffset = kSumsOffset + kTableSlots * 4,
                  kBasesOffset = kEndsOffset + kRescoreThreads * 8,
                  kWeightsOffset = kBasesOffset + kRescoreThreads * 8,
                  kRescoreSharedBytes = kWeightsOffset + kRescoreThreads * 4;

/// rescore(lhs ptr, words, values, rhs ptr, words, values, lhs head, rhs
/// head, thresholds, counts, values, cols, ins...): a CTA a query row, after
/// the selecting tile kernel (which scored every pair on the heads alone).
/// The row's tail products are summed per item in a shared-memory table (in
/// passes over ranges of the items when they are many); the tile's
/// candidates whose item the tail touched are emptied (their scores lack the
/// tail), and each touched item is scored exactly (row_dot of the heads plus
/// its tail sum, through the epilogue) and appended when above the row's
/// threshold. A row whose table fills up gets a count past the slots (the
/// caller's sign to run the items again in smaller chunks). Written a phase
/// a method.
class RescoreKernelWriter : CsrKernelBuilder {
public:
  RescoreKernelWriter(SparseMatmulOp op, SelectRowsAboveOp select,
                      gpu::GPUModuleOp module, StringRef name,
                      StringRef epilogueName)
      : CsrKernelBuilder(op), epilogueName(epilogueName) {
    SmallVector<Type> params = csrMemrefs(op);
    for (Value v : {op.getLhsHead(), op.getRhsHead(), select.getThresholds(),
                    select.getCounts(), select.getValues(), select.getCols()})
      params.push_back(memrefOfValue(v));
    llvm::append_range(params, epilogueMemrefs(op));
    func = createKernelFunction(b, loc, module, name, params, kRescoreThreads);
  }

  void write() {
    bindArguments();
    viewSharedMemory();
    tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    lane = arith::RemUIOp::create(b, loc, tid, index(32));
    row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value rowLimit = minOf({dim(qHead, 0), dim(thresholds, 0), dim(counts, 0),
                            dim(values, 0), dim(cols, 0)});
    items = dim(iHead, 0);
    capacity = minOf({dim(values, 1), dim(cols, 1)});
    // A row outside the buffers is skipped by the whole CTA (barriers
    // inside).
    ifThen(ult(row, rowLimit), [&] {
      query = csrRow(qPtr, row, qWords);
      passes = passesOfRow();
      // The tile kernel's candidates of the row, read before any append.
      Value tileCount = arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(),
          memref::LoadOp::create(b, loc, counts, row));
      Value found = arith::MinUIOp::create(b, loc, tileCount, capacity);
      gpu::BarrierOp::create(b, loc);
      stridedFor(index(0), passes, 1, [&](Value pass) {
        Value lo = arith::DivUIOp::create(
            b, loc, arith::MulIOp::create(b, loc, items, pass), passes);
        Value hi = arith::DivUIOp::create(
            b, loc,
            arith::MulIOp::create(
                b, loc, items, arith::AddIOp::create(b, loc, pass, index(1))),
            passes);
        clearTable();
        gpu::BarrierOp::create(b, loc);
        fillTable(lo, hi);
        gpu::BarrierOp::create(b, loc);
        emptyTouchedCandidates(found, lo, hi);
        scoreTouchedItems();
        gpu::BarrierOp::create(b, loc);
      });
    });
    gpu::ReturnOp::create(b, loc);
  }

private:
  void bindArguments() {
    auto arg = [&](unsigned i) { return func.getArgument(i); };
    qPtr = arg(0), qWords = arg(1), qValues = arg(2), dPtr = arg(3),
    dWords = arg(4), dValues = arg(5), qHead = arg(6), iHead = arg(7),
    thresholds = arg(8), counts = arg(9), values = arg(10), cols = arg(11);
    ins.assign(func.getArguments().begin() + 12, func.getArguments().end());
  }

  /// The views of the dynamic shared memory (kSumsOffset and after).
  void viewSharedMemory() {
    keys = sharedView(kTableSlots, b.getI32Type(), 0);
    sums = sharedView(kTableSlots, b.getF32Type(), kSumsOffset);
    ends = sharedView(kRescoreThreads, b.getIndexType(), kEndsOffset);
    bases = sharedView(kRescoreThreads, b.getIndexType(), kBasesOffset);
    weights = sharedView(kRescoreThreads, b.getF32Type(), kWeightsOffset);
  }

  /// The passes that keep each within kProductsAPass of the row's tail
  /// products: every warp counts them, a lane an entry (the list lengths
  /// are independent reads, not a chain), summed across the lanes in i32
  /// saturated at 2^30 (a count that large needs more passes than any
  /// table gets through anyway).
  Value passesOfRow() {
    auto count = scf::ForOp::create(
        b, loc, arith::AddIOp::create(b, loc, query.getBegin(), lane),
        query.getEnd(), index(32), ValueRange{index(0)});
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(count.getBody());
      auto q = csrEntry(qWords, qValues, count.getInductionVar(), qLayout);
      auto list = csrRow(dPtr, q.getColumn(), dWords);
      Value length =
          arith::SubIOp::create(b, loc, list.getEnd(), list.getBegin());
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::AddIOp::create(
              b, loc, count.getRegionIterArgs()[0], length)});
    }
    auto i32 = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v))
          .getResult();
    };
    Value most = index(int64_t(1) << 30);
    Value products = arith::IndexCastUIOp::create(
        b, loc, b.getI32Type(),
        arith::MinUIOp::create(b, loc, count.getResult(0), most));
    for (int64_t mask : {16, 8, 4, 2, 1}) {
      Value other = gpu::ShuffleOp::create(b, loc, products, i32(mask),
                                           i32(32), gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      products = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, products, other),
          i32(int64_t(1) << 30));
    }
    return arith::MaxUIOp::create(
        b, loc, index(1),
        arith::DivUIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc,
                arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                             products),
                index(kProductsAPass - 1)),
            index(kProductsAPass)));
  }

  void clearTable() {
    stridedFor(tid, index(kTableSlots), kRescoreThreads, [&](Value s) {
      memref::StoreOp::create(
          b, loc, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(-1)),
          keys, s);
      memref::StoreOp::create(
          b, loc, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)),
          sums, s);
    });
  }

  /// The row's tail products in [lo, hi) added into the table, spread
  /// evenly over the threads: a batch of entries (a thread each) finds its
  /// items' range and their count, a scan of the counts numbers the
  /// batch's products, and thread t takes products t, t + threads, ... (a
  /// bisection of the scan finds each one's entry). A warp an entry left
  /// most warps waiting at the barrier for the few with long lists.
  void fillTable(Value lo, Value hi) {
    stridedFor(query.getBegin(), query.getEnd(), kRescoreThreads,
               [&](Value batch) {
      spreadBatch(
          batch, kRescoreThreads,
          [&](sck::CsrRowOp list) { return itemsIn(list, lo, hi); },
          [&](Value j, sck::CsrEntryOp item) { addProduct(j, item, lo, hi); });
    });
  }

  /// The items of `list` in [lo, hi) (the whole list in one pass: no
  /// bisection, whose loads are a chain of dependent reads).
  std::pair<Value, Value> itemsIn(sck::CsrRowOp list, Value lo, Value hi) {
    Type indexType = b.getIndexType();
    auto bound = [&](Value from, Value column) {
      return sck::CsrLowerBoundOp::create(
          b, loc, indexType, dWords, from, list.getEnd(), column,
          dLayout.getBlockSize(), dLayout.getOffsetBits());
    };
    auto range = scf::IfOp::create(
        b, loc, TypeRange{indexType, indexType},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, passes,
                              index(1)),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(range.thenBlock());
    scf::YieldOp::create(b, loc, ValueRange{list.getBegin(), list.getEnd()});
    b.setInsertionPointToStart(range.elseBlock());
    Value from = bound(list.getBegin(), lo);
    scf::YieldOp::create(b, loc, ValueRange{from, bound(from, hi)});
    return {range.getResult(0), range.getResult(1)};
  }

  /// The batch's product of entry `j` and `item` added into the table when
  /// the item is in [lo, hi); a full table gives the row a count past its
  /// slots.
  void addProduct(Value j, sck::CsrEntryOp item, Value lo, Value hi) {
    Value n = item.getColumn();
    ifThen(inRange(n, lo, hi), [&] {
      Value product = productOf(j, item);
      Value added = sck::TableAddOp::create(b, loc, b.getI1Type(), product,
                                            keys, sums, n);
      Value full = arith::XOrIOp::create(
          b, loc, added, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
      ifThen(full, [&] {
        Value past = arith::IndexCastUIOp::create(
            b, loc, b.getI32Type(),
            arith::AddIOp::create(b, loc, capacity, index(1)));
        memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxs, past,
                                    counts, ValueRange{row});
      });
    });
  }

  /// The tile's candidates (the first `found` slots) whose item the tail
  /// touched in [lo, hi): emptied.
  void emptyTouchedCandidates(Value found, Value lo, Value hi) {
    stridedFor(tid, found, kRescoreThreads, [&](Value s) {
      Value c = arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(),
          memref::LoadOp::create(b, loc, cols, ValueRange{row, s}));
      ifThen(inRange(c, lo, hi), [&] {
        Value touched =
            sck::TableFindOp::create(b, loc, b.getI1Type(), keys, c);
        ifThen(touched, [&] { storeEmptySlot(b, loc, values, cols, row, s); });
      });
    });
  }

  /// Each item in the table scored exactly (the heads' row_dot plus its
  /// tail sum, through the epilogue) and appended above the threshold.
  void scoreTouchedItems() {
    stridedFor(tid, index(kTableSlots), kRescoreThreads, [&](Value s) {
      Value key = memref::LoadOp::create(b, loc, keys, s);
      Value used = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, key,
          arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(-1)));
      ifThen(used, [&] {
        Value n = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), key);
        Value head = sck::RowDotOp::create(b, loc, b.getF32Type(), qHead, row,
                                           iHead, n);
        Value dot = arith::AddFOp::create(
            b, loc, head, memref::LoadOp::create(b, loc, sums, s));
        SmallVector<Value> args = {dot, row, n};
        llvm::append_range(args, ins);
        Value score =
            func::CallOp::create(b, loc, epilogueName, b.getF32Type(), args)
                .getResult(0);
        sck::AppendAboveOp::create(b, loc, score, row, n, thresholds, counts,
                                   values, cols);
      });
    });
  }

  StringRef epilogueName;
  gpu::GPUFuncOp func;
  Value qHead, iHead, thresholds, counts, values, cols;
  SmallVector<Value> ins;
  Value keys, sums;
  Value lane, items, capacity, passes;
};

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

bool mlir::sc::needsScoresWorkspace(SparseMatmulOp op,
                                    SelectRowsAboveOp select) {
  return !select && !(op.getType().getElementType().isF32() &&
                      op.isEpilogueLinearInProduct());
}

namespace {
/// Memref parameters of the entry tensors `names`, appended to `launch`.
void addMemrefParams(KernelLaunch &launch, ArrayRef<std::string> names) {
  for (const std::string &t : names)
    launch.params.push_back(LaunchParam::memref(t));
}

/// Both row sets' buffers, as csrMemrefs orders them.
void addCsrParams(KernelLaunch &launch, const SparseMatmulBinding &binding) {
  for (const CsrBinding *c : {&binding.lhs, &binding.rhs})
    addMemrefParams(launch, {c->rowPtr, c->words, c->values});
}

/// The launch of the scatter kernel: a CTA a query row; into the
/// workspace, or (without one) into the result scaled by the epilogue.
KernelLaunch scatterLaunch(StringRef name, const SparseMatmulBinding &binding) {
  KernelLaunch scatter;
  scatter.kernel = name.str();
  scatter.block[0] = kScatterThreads;
  scatter.grid[0] = binding.rows;
  scatter.grid[1] = scatter.grid[2] = LaunchDim::of(1);
  scatter.sharedBytes = kScatterSharedBytes;
  addCsrParams(scatter, binding);
  if (binding.scores.empty()) {
    addMemrefParams(scatter, {binding.result});
    addMemrefParams(scatter, binding.epilogueIns);
    scatter.summary =
        llvm::formatv("{0}: the sparse parts' products of {1} x {2}, each "
                      "scaled by the epilogue at 1, added into {3} (a CTA "
                      "a row, its products spread evenly over the threads, "
                      "atomics)",
                      name, binding.lhs.values, binding.rhs.values,
                      binding.result)
            .str();
  } else {
    addMemrefParams(scatter, {binding.scores});
    scatter.summary = llvm::formatv("{0}: the sparse parts' products of {1} "
                                    "x {2} into {3} (a CTA a row, its products "
                                    "spread evenly over the threads, atomics)",
                                    name, binding.lhs.values,
                                    binding.rhs.values, binding.scores)
                          .str();
  }
  return scatter;
}

/// The launch of the tile kernel: a CTA a 128 x 128 tile.
KernelLaunch tileLaunch(StringRef name, const SparseMatmulBinding &binding,
                        bool select) {
  KernelLaunch tile;
  tile.kernel = name.str();
  tile.block[0] = kThreads;
  tile.grid[0] = binding.items.dividedUp(kTile);
  tile.grid[1] = binding.rows.dividedUp(kTile);
  tile.grid[2] = LaunchDim::of(1);
  addMemrefParams(tile, {binding.lhsHead, binding.rhsHead});
  if (!binding.scores.empty())
    addMemrefParams(tile, {binding.scores});
  if (select)
    addMemrefParams(tile, {binding.thresholds, binding.counts, binding.values,
                           binding.cols});
  else
    addMemrefParams(tile, {binding.result});
  addMemrefParams(tile, binding.epilogueIns);
  std::string into =
      select ? llvm::formatv("the elements above {0} appended to their rows "
                             "({1}, {2}, {3}; the scores never written)",
                             binding.thresholds, binding.counts,
                             binding.values, binding.cols)
                   .str()
             : "into " + binding.result;
  std::string plus =
      binding.scores.empty() ? "" : ", plus " + binding.scores;
  std::string heads = select ? " (the heads alone)" : "";
  tile.summary =
      llvm::formatv("{0}: heads {1} x {2}^T in exact fp32 (128 x 128 tiles, "
                    "CUDA-core FMAs){3}{4}, through the epilogue, {5}",
                    name, binding.lhsHead, binding.rhsHead, heads, plus, into)
          .str();
  return tile;
}

/// The launch of the clear kernel: enough CTAs to fill the GPU, each
/// looping over the rest.
KernelLaunch clearLaunch(StringRef name, const SparseMatmulBinding &binding) {
  KernelLaunch clear;
  clear.kernel = name.str();
  clear.block[0] = kThreads;
  clear.grid[0] = LaunchDim::of(528);
  clear.grid[1] = clear.grid[2] = LaunchDim::of(1);
  addMemrefParams(clear, {binding.values, binding.cols});
  clear.summary = llvm::formatv("{0}: every slot of {1}, {2} empty (-inf, -1)",
                                name, binding.values, binding.cols)
                      .str();
  return clear;
}

/// The launch of the rescoring kernel: a CTA a query row, its table in
/// dynamic shared memory.
KernelLaunch rescoreLaunch(StringRef name, const SparseMatmulBinding &binding) {
  KernelLaunch rescore;
  rescore.kernel = name.str();
  rescore.block[0] = kRescoreThreads;
  rescore.grid[0] = binding.rows;
  rescore.grid[1] = rescore.grid[2] = LaunchDim::of(1);
  rescore.sharedBytes = kRescoreSharedBytes;
  addCsrParams(rescore, binding);
  addMemrefParams(rescore, {binding.lhsHead, binding.rhsHead,
                            binding.thresholds, binding.counts, binding.values,
                            binding.cols});
  addMemrefParams(rescore, binding.epilogueIns);
  rescore.summary =
      llvm::formatv("{0}: a CTA a row of {1}; the items its sparse part "
                    "touches (per-item sums of {1} x {2} in a shared-memory "
                    "table) scored exactly, their head-only candidates "
                    "emptied, appended above {3}",
                    name, binding.lhs.values, binding.rhs.values,
                    binding.thresholds)
          .str();
  return rescore;
}
} // namespace

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
  std::string rescoreName = (name + "_rescore").str();
  std::string epilogueName = (name + "_epilogue").str();
  if (select && !op.getType().getElementType().isF32())
    return op.emitError("sparcast-aot: a selection reads f32 scores, got ")
           << op.getType().getElementType();
  bool workspace = !binding.scores.empty();
  if (workspace != needsScoresWorkspace(op, select))
    return op.emitError("sparcast-aot: this sc.sparse_matmul ")
           << (workspace ? "takes no" : "needs a")
           << " workspace for its sparse part";
  if (failed(writeEpilogueFunction(op, gpuModule, epilogueName,
                                   epilogueMemrefs(op))))
    return failure();
  std::vector<KernelLaunch> launches;
  if (select) {
    // The tile selects on the heads alone; the rescoring kernel corrects
    // the pairs the sparse part touches.
    writeClearKernel(select, gpuModule, clearName);
    writeTileKernel(op, gpuModule, tileName, epilogueName, select,
                    /*withScores=*/false);
    RescoreKernelWriter(op, select, gpuModule, rescoreName, epilogueName)
        .write();
    launches.push_back(clearLaunch(clearName, binding));
    launches.push_back(tileLaunch(tileName, binding, /*select=*/true));
    launches.push_back(rescoreLaunch(rescoreName, binding));
    return launches;
  }
  ScatterKernelWriter(op, gpuModule, scatterName,
                      workspace ? StringRef() : StringRef(epilogueName))
      .write();
  writeTileKernel(op, gpuModule, tileName, epilogueName, {},
                  /*withScores=*/workspace);
  if (workspace) {
    launches.push_back(scatterLaunch(scatterName, binding));
    launches.push_back(tileLaunch(tileName, binding, /*select=*/false));
  } else {
    launches.push_back(tileLaunch(tileName, binding, /*select=*/false));
    launches.push_back(scatterLaunch(scatterName, binding));
  }
  return launches;
}
