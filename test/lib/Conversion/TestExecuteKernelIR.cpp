//===- TestExecuteKernelIR.cpp - the CPU meaning of a GEMM's sck kernel -------===//
//
// Test pass. Each sc.batch_matmul or sc.attention that points at a
// kernel-level function (sc.kernel_ir) is replaced by that function run on
// the host, op by op:
// tile loops become loops, a TMA box load copies the box out of the operand
// (zeros past its end, as TMA does), an MMA multiplies boxes into a fresh
// accumulator, the epilogue runs its region on every element of the tile
// that lies inside the result. Roles run one after the other, the producer
// first: the ring is then a queue as long as every box the producer puts
// (the consumers take them in the same order). An attention
// kernel's online-softmax ops compute exactly what sck.softmax defines; a
// block mask's tables, when the kernel takes them (lengths known only at
// launch), are built for the call's lengths from the mask's definition.
//
// So the CPU-executed proofs (sparcast-equiv) can show that sc-lower-to-sck
// and the passes on sck (sc-persistent, sc-warp-specialize) keep a GEMM's
// meaning: the function before and after runs on random inputs.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToLinalg/LogLinearKeep.h"
#include "TestPasses.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCTESTEXECUTEKERNELIRPASS
#include "TestPasses.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;

namespace {

/// Runs one kernel-level function for one op at the builder's point.
class KernelRunner {
public:
  KernelRunner(OpBuilder &b, Operation *target)
      : b(b), op(dyn_cast<BatchMatmulOp>(target)),
        attention(dyn_cast<AttentionOp>(target)), loc(target->getLoc()) {}

  /// The op's result computed by `kernel`, or failure (an op the runner
  /// does not know, with a located error).
  FailureOr<Value> run(func::FuncOp kernel) {
    if (attention)
      return runAttention(kernel);
    lhs = toBuffer(op.getLhs());
    result = allocResult(op);
    // Summed rows add into zeros (the kernel's launch clears them).
    if (op.getSumRows())
      forEach({batchOf(op), cst(op.getType().getDimSize(2))}, [&](ValueRange bn) {
        Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
        memref::StoreOp::create(b, loc, zero, result,
                                ValueRange{bn[0], cst(0), bn[1]});
      });
    sources["A"] = lhs;
    // A hybrid-tiled rhs is read through its packed buffers.
    if (auto packed = op.getRhs().getDefiningOp<AssembleHybridOp>()) {
      hybridKinds = toBuffer(packed.getKinds());
      hybridSlots = toBuffer(packed.getSlots());
      sources["B.dense"] = toBuffer(packed.getDense());
      sources["B.sparse"] = toBuffer(packed.getSparse());
      sources["B.meta"] = toBuffer(packed.getMeta());
    } else {
      rhs = toBuffer(op.getRhs());
      sources["B"] = rhs;
    }
    targets["C"] = {result, op.getType().getElementType()};
    // Kernel arguments: (batch elements, the epilogue's tensors...).
    Block &entry = kernel.front();
    if (entry.getNumArguments() != 1 + op.getEpilogueIns().size())
      return kernel.emitError("the CPU runner takes (batch, epilogue "
                              "tensors...)");
    map.map(entry.getArgument(0), batchOf(op));
    for (auto [arg, in] :
         llvm::zip(entry.getArguments().drop_front(), op.getEpilogueIns()))
      map.map(arg, in);
    if (failed(runBlock(entry)))
      return failure();
    return bufferization::ToTensorOp::create(b, loc, op.getType(), result,
                                             /*restrict=*/true,
                                             /*writable=*/true)
        .getResult();
  }

private:
  OpBuilder &b;
  BatchMatmulOp op;
  AttentionOp attention;
  Location loc;
  /// Box sources and epilogue targets by the names the kernel uses.
  llvm::StringMap<Value> sources;
  struct Target {
    Value buffer;
    Type element;
  };
  llvm::StringMap<Target> targets;
  Value lhs, rhs, result;
  /// A hybrid-tiled rhs's kind and slot tables (sc.assemble_hybrid).
  Value hybridKinds, hybridSlots;
  IRMapping map;
  /// Per ring: a queue of boxes per box type and the put / get counts.
  struct Queue {
    SmallVector<Value> boxes;
    Value counts, capacity;
  };
  DenseMap<Value, Queue> queues;
  /// The index of the tile the innermost tile loop runs (sck.tile_index).
  Value tileIndex;
  /// The consumer running a role body that asks (sck.consumer_index).
  Value consumerIndex;
  /// Per sck.reduce_splits: the parts kept so far (part s of tile t at
  /// t x splits + s) and each tile's arrivals.
  struct Splits {
    Value partials, arrivals;
  };
  DenseMap<Operation *, Splits> splits;

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  Value toBuffer(Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    return bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()),
        tensor, /*read_only=*/true);
  }

  Value batchOf(BatchMatmulOp gemm) {
    Value batched =
        gemm.getLhs().getType().getRank() == 3 ? gemm.getLhs() : gemm.getRhs();
    return tensor::DimOp::create(b, loc, batched, 0);
  }

  Value allocResult(BatchMatmulOp gemm) {
    return allocResult(gemm.getType(), batchOf(gemm));
  }

  /// The result buffer, NaN everywhere: an element the kernel does not
  /// write shows as a mismatch. `sizeOf(d)` gives dynamic dim d's size.
  Value allocResult(RankedTensorType type, Value batch) {
    return allocResult(type, [&](int64_t) { return batch; });
  }
  Value allocResult(RankedTensorType type,
                    function_ref<Value(int64_t)> sizeOf) {
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamic.push_back(sizeOf(d));
    Value buffer = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()), dynamic);
    auto element = dyn_cast<FloatType>(type.getElementType());
    if (!element)
      return buffer;
    Value nan = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(element, APFloat::getNaN(element.getFloatSemantics())));
    SmallVector<Value> extents;
    for (int64_t d = 0; d < type.getRank(); ++d)
      extents.push_back(memref::DimOp::create(b, loc, buffer, d));
    forEach(extents, [&](ValueRange at) {
      memref::StoreOp::create(b, loc, nan, buffer, at);
    });
    return buffer;
  }

  /// A loop nest over `extents` whose body `body` gets the indices.
  void forEach(ArrayRef<Value> extents,
               function_ref<void(ValueRange)> body,
               SmallVector<Value> indices = {}) {
    if (indices.size() == extents.size())
      return body(indices);
    auto loop = scf::ForOp::create(b, loc, cst(0), extents[indices.size()], cst(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    indices.push_back(loop.getInductionVar());
    forEach(extents, body, indices);
  }

  Value alloc(ArrayRef<int64_t> shape, Type element) {
    return memref::AllocOp::create(b, loc, MemRefType::get(shape, element));
  }

  void fillZero(Value buffer, ArrayRef<int64_t> shape, Type element) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    forEach({cst(shape[0]), cst(shape[1])}, [&](ValueRange ij) {
      memref::StoreOp::create(b, loc, zero, buffer, ij);
    });
  }

  /// A box as sck.load defines it: element (i, j) is the operand's element
  /// at the reversed coordinates plus (i, j), or (j, i) when `transposed`;
  /// zero past the end.
  LogicalResult load(sck::LoadOp loadOp) {
    StringRef name = loadOp.getOperand();
    Value source = sources.lookup(name);
    if (!source)
      return loadOp.emitError("the CPU runner knows operands A and B (Q, K "
                              "and V of an attention), "
                              "got '")
             << name << "'";
    int64_t rank = cast<MemRefType>(source.getType()).getRank();
    int64_t coords = loadOp.getCoords().size();
    // One coordinate fewer: the two leading dims read as one (flat rows).
    if (coords == rank - 1 && rank == 3)
      source = memref::CollapseShapeOp::create(
          b, loc, source, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    else if (coords != rank)
      return loadOp.emitError("box coordinates do not match the operand's rank");
    map.map(loadOp.getResult(),
            loadBox(source, loadOp.getCoords(), loadOp.getType(),
                    loadOp.getTransposed()));
    return success();
  }

  /// sck.prefetch: the box of an epilogue operand, read as sck.load reads.
  void prefetch(sck::PrefetchOp prefetchOp) {
    Value source = toBuffer(map.lookup(prefetchOp.getSource()));
    map.map(prefetchOp.getResult(),
            loadBox(source, prefetchOp.getCoords(), prefetchOp.getType(),
                    /*transposed=*/false));
  }

  /// A fresh box of `type` read from `source` at `coordsIR` (innermost
  /// first), zeros past its end.
  Value loadBox(Value source, ValueRange coordsIR, sck::BoxType type,
                bool transposed) {
    auto sourceType = cast<MemRefType>(source.getType());
    SmallVector<Value> coords =
        llvm::map_to_vector(coordsIR, [&](Value v) { return map.lookup(v); });
    Value box = alloc(type.getShape(), type.getElementType());
    forEach({cst(type.getShape()[0]), cst(type.getShape()[1])}, [&](ValueRange ij) {
      SmallVector<Value> at(coords.rbegin(), coords.rend());
      int64_t rank = sourceType.getRank();
      Value row = transposed ? ij[1] : ij[0], col = transposed ? ij[0] : ij[1];
      at[rank - 2] = arith::AddIOp::create(b, loc, at[rank - 2], row);
      at[rank - 1] = arith::AddIOp::create(b, loc, at[rank - 1], col);
      Value inside = arith::ConstantIntOp::create(b, loc, 1, 1);
      for (int64_t d = 0; d < rank; ++d) {
        Value extent = memref::DimOp::create(b, loc, source, d);
        Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at[d], extent);
        inside = arith::AndIOp::create(b, loc, inside, ok);
      }
      auto ifOp = scf::IfOp::create(b, loc, type.getElementType(), inside, true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value v = memref::LoadOp::create(b, loc, source, at);
        scf::YieldOp::create(b, loc, v);
        b.setInsertionPointToStart(ifOp.elseBlock());
        Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
        scf::YieldOp::create(b, loc, zero);
      }
      memref::StoreOp::create(b, loc, ifOp.getResult(0), box, ij);
    });
    return box;
  }

  /// acc + a b in a fresh accumulator (fp32 products of the elements).
  void mma(sck::MmaOp mmaOp) {
    map.map(mmaOp.getResult(),
            multiply(map.lookup(mmaOp.getA()), map.lookup(mmaOp.getB()),
                     map.lookup(mmaOp.getAcc()), mmaOp.getAcc().getType(),
                     mmaOp.getAShape()[1]));
  }

  /// sck.mma_sp: the 2:4 operand expanded as its metadata says (element
  /// c of a row: the stored value whose position in its group of four is
  /// c % 4, else zero), then multiplied as sck.mma does.
  void mmaSparse(sck::MmaSparseOp mmaOp) {
    sck::BoxType valuesType = mmaOp.getA().getType();
    int64_t rows = valuesType.getShape()[0];
    int64_t k = mmaOp.getB().getType().getShape()[0];
    Type element = valuesType.getElementType();
    Value values = map.lookup(mmaOp.getA()), meta = map.lookup(mmaOp.getMeta());
    Value dense = alloc({rows, k}, element);
    auto i32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v).getResult();
    };
    forEach({cst(rows), cst(k)}, [&](ValueRange ic) {
      Value group = arith::DivUIOp::create(b, loc, ic[1], cst(4));
      Value word = memref::LoadOp::create(
          b, loc, meta,
          ValueRange{ic[0], arith::DivUIOp::create(b, loc, ic[1], cst(32))});
      Value shift = arith::IndexCastOp::create(
          b, loc, b.getI32Type(),
          arith::MulIOp::create(b, loc,
                                arith::RemUIOp::create(b, loc, group, cst(8)),
                                cst(4)));
      Value nibble = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, word, shift), i32(15));
      Value first = arith::AndIOp::create(b, loc, nibble, i32(3));
      Value second = arith::ShRUIOp::create(b, loc, nibble, i32(2));
      Value pos = arith::IndexCastOp::create(
          b, loc, b.getI32Type(), arith::RemUIOp::create(b, loc, ic[1], cst(4)));
      Value kept0 = arith::MulIOp::create(b, loc, group, cst(2));
      Value kept1 = arith::AddIOp::create(b, loc, kept0, cst(1));
      Value v0 = memref::LoadOp::create(b, loc, values, ValueRange{ic[0], kept0});
      Value v1 = memref::LoadOp::create(b, loc, values, ValueRange{ic[0], kept1});
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
      auto eq = [&](Value x, Value y) {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y)
            .getResult();
      };
      Value v = arith::SelectOp::create(
          b, loc, eq(pos, first), v0,
          arith::SelectOp::create(b, loc, eq(pos, second), v1, zero));
      memref::StoreOp::create(b, loc, v, dense, ic);
    });
    map.map(mmaOp.getResult(),
            multiply(dense, map.lookup(mmaOp.getB()), map.lookup(mmaOp.getAcc()),
                     mmaOp.getAcc().getType(), k));
  }

  /// sck.hybrid_tile: the tile's kind and slot from the packed tables.
  LogicalResult hybridTile(sck::HybridTileOp tile) {
    if (!hybridKinds || tile.getOperand() != "B")
      return tile.emitError("the CPU runner reads hybrid tiles of operand B, "
                            "an sc.assemble_hybrid");
    SmallVector<Value, 2> at = {map.lookup(tile.getRow()), map.lookup(tile.getCol())};
    Value kind = arith::ExtUIOp::create(
        b, loc, b.getI32Type(), memref::LoadOp::create(b, loc, hybridKinds, at));
    Value slot = memref::LoadOp::create(b, loc, hybridSlots, at);
    map.map(tile.getKind(),
            arith::IndexCastOp::create(b, loc, b.getIndexType(), kind));
    map.map(tile.getSlot(),
            arith::IndexCastOp::create(b, loc, b.getIndexType(), slot));
    return success();
  }

  /// acc + a b (a: rows x k, b: k x cols) in a fresh accumulator.
  Value multiply(Value a, Value bb, Value acc, sck::AccType type, int64_t k) {
    Value out = alloc(type.getShape(), b.getF32Type());
    forEach({cst(type.getShape()[0]), cst(type.getShape()[1])}, [&](ValueRange ij) {
      Value init = memref::LoadOp::create(b, loc, acc, ij);
      auto sum = scf::ForOp::create(b, loc, cst(0), cst(k), cst(1), ValueRange{init});
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(sum.getBody());
        Value kk = sum.getInductionVar();
        Value x = memref::LoadOp::create(b, loc, a, ValueRange{ij[0], kk});
        Value y = memref::LoadOp::create(b, loc, bb, ValueRange{kk, ij[1]});
        Value xf = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
        Value yf = arith::ExtFOp::create(b, loc, b.getF32Type(), y);
        Value p = arith::MulFOp::create(b, loc, xf, yf);
        Value s = arith::AddFOp::create(b, loc, sum.getRegionIterArgs()[0], p);
        scf::YieldOp::create(b, loc, s);
      }
      memref::StoreOp::create(b, loc, sum.getResult(0), out, ij);
    });
    return out;
  }

  /// The parts of each sck.reduce_splits in `loop`: room for every tile
  /// the loop runs (each a part of one of its tiles), no arrivals yet.
  void allocateSplits(sck::TileLoopOp loop) {
    SmallVector<sck::ReduceSplitsOp> reduces;
    loop.walk([&](sck::ReduceSplitsOp op) { reduces.push_back(op); });
    if (reduces.empty())
      return;
    Value bm = arith::MulIOp::create(b, loc, map.lookup(loop.getBatches()),
                                     map.lookup(loop.getMTiles()));
    Value tiles =
        arith::MulIOp::create(b, loc, bm, map.lookup(loop.getNTiles()));
    for (sck::ReduceSplitsOp op : reduces) {
      ArrayRef<int64_t> shape = op.getAcc().getType().getShape();
      Value partials = memref::AllocOp::create(
          b, loc,
          MemRefType::get({ShapedType::kDynamic, shape[0], shape[1]},
                          b.getF32Type()),
          ValueRange{tiles});
      Value arrivals = memref::AllocOp::create(
          b, loc, MemRefType::get({ShapedType::kDynamic}, b.getIndexType()),
          ValueRange{tiles});
      forEach({tiles}, [&](ValueRange t) {
        memref::StoreOp::create(b, loc, cst(0), arrivals, t);
      });
      splits[op] = {partials, arrivals};
    }
  }

  /// sck.reduce_splits: the part kept, the tile's arrivals counted; in the
  /// last to arrive, the sum of every part (elsewhere zero).
  LogicalResult reduceSplits(sck::ReduceSplitsOp op) {
    auto found = splits.find(op);
    if (found == splits.end())
      return op.emitError("the CPU runner takes sck.reduce_splits in a tile "
                          "loop");
    auto [partials, arrivals] = found->second;
    ArrayRef<int64_t> shape = op.getAcc().getType().getShape();
    Value parts = map.lookup(op.getSplits());
    Value tile = map.lookup(op.getTile());
    Value first = arith::MulIOp::create(b, loc, tile, parts);
    Value at = arith::AddIOp::create(b, loc, first, map.lookup(op.getSplit()));
    Value acc = map.lookup(op.getAcc());
    forEach({cst(shape[0]), cst(shape[1])}, [&](ValueRange ij) {
      Value v = memref::LoadOp::create(b, loc, acc, ij);
      memref::StoreOp::create(b, loc, v, partials,
                              ValueRange{at, ij[0], ij[1]});
    });
    Value count = arith::AddIOp::create(
        b, loc, memref::LoadOp::create(b, loc, arrivals, ValueRange{tile}),
        cst(1));
    memref::StoreOp::create(b, loc, count, arrivals, ValueRange{tile});
    Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                                       parts);
    Value sum = alloc(shape, b.getF32Type());
    fillZero(sum, shape, b.getF32Type());
    auto ifLast = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifLast.thenBlock());
      forEach({parts, cst(shape[0]), cst(shape[1])}, [&](ValueRange sij) {
        Value part = arith::AddIOp::create(b, loc, first, sij[0]);
        Value v = memref::LoadOp::create(b, loc, partials,
                                         ValueRange{part, sij[1], sij[2]});
        Value prior = memref::LoadOp::create(b, loc, sum, sij.drop_front());
        memref::StoreOp::create(b, loc, arith::AddFOp::create(b, loc, prior, v),
                                sum, sij.drop_front());
      });
    }
    map.map(op.getSum(), sum);
    map.map(op.getLast(), last);
    return success();
  }

  /// Every element of the tile inside the result, through the region.
  LogicalResult epilogue(sck::EpilogueOp epi) {
    auto found = targets.find(epi.getResult());
    if (found == targets.end())
      return epi.emitError("the CPU runner knows result C (O of an "
                           "attention), got '")
             << epi.getResult() << "'";
    Value target = found->second.buffer;
    Type element = found->second.element;
    sck::AccType type = epi.getAcc().getType();
    int64_t rank = cast<MemRefType>(target.getType()).getRank();
    // [n0, r0] on a 3-D result: rows of all batch elements (flat rows).
    bool flatRows = rank == 3 && epi.getCoords().size() == 2;
    if (static_cast<int64_t>(epi.getCoords().size()) != rank && !flatRows)
      return epi.emitError("the CPU runner takes epilogues at [n, m, b] "
                           "([n, r] of flat rows, [n, m, h, b] for 4-D "
                           "results)");
    // A 4-D result is [b, h, m, n]: the head in front of the tile's rows.
    Value n0 = map.lookup(epi.getCoords()[0]), m0 = map.lookup(epi.getCoords()[1]),
          bIdxTile = flatRows ? Value() : map.lookup(epi.getCoords().back());
    Value head = rank == 4 ? map.lookup(epi.getCoords()[2]) : Value();
    Value acc = map.lookup(epi.getAcc());
    // Summed rows: the GEMM's M rows into the result's one.
    std::optional<int64_t> sumRows = epi.getSumRows();
    Value rows = sumRows ? cst(*sumRows)
                         : memref::DimOp::create(b, loc, target, rank - 2).getResult();
    Value cols = memref::DimOp::create(b, loc, target, rank - 1);
    Value rowsPerItem = rows;
    if (flatRows)
      rows = arith::MulIOp::create(b, loc, rows,
                                   memref::DimOp::create(b, loc, target, 0));
    LogicalResult status = success();
    // A transposed accumulator's element (i, j) is the result's (j, i).
    bool transposed = epi.getTransposed();
    forEach({cst(type.getShape()[0]), cst(type.getShape()[1])}, [&](ValueRange ij) {
      // The element's place in the tile (rows m, columns n).
      Value tileAt[2] = {ij[transposed ? 1 : 0], ij[transposed ? 0 : 1]};
      Value m = arith::AddIOp::create(b, loc, m0, tileAt[0]);
      Value n = arith::AddIOp::create(b, loc, n0, tileAt[1]);
      Value inM = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, m, rows);
      Value inN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n, cols);
      Value inside = arith::AndIOp::create(b, loc, inM, inN);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, inside, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      // Flat rows: row m is row m mod M of batch element m / M.
      Value bIdx = bIdxTile;
      if (flatRows) {
        bIdx = arith::DivUIOp::create(b, loc, m, rowsPerItem);
        m = arith::RemUIOp::create(b, loc, m, rowsPerItem);
      }
      Value v = memref::LoadOp::create(b, loc, acc, ij);
      Value out;
      if (epi.getBody().empty()) {
        out = element == v.getType() ? v : arith::TruncFOp::create(b, loc, element, v).getResult();
      } else {
        Block &body = epi.getBody().front();
        IRMapping inner;
        inner.map(body.getArgument(0), v);
        inner.map(body.getArgument(1), bIdx);
        inner.map(body.getArgument(2), m);
        inner.map(body.getArgument(3), n);
        for (auto [arg, in] : llvm::zip(body.getArguments().drop_front(4), epi.getIns())) {
          // A box (sck.prefetch) gives its element at the result element's
          // place in the tile.
          if (isa<sck::BoxType>(in.getType())) {
            inner.map(arg, memref::LoadOp::create(b, loc, map.lookup(in), tileAt));
            continue;
          }
          inner.map(arg, map.lookup(in));
        }
        for (Operation &o : body) {
          if (auto yield = dyn_cast<sck::YieldOp>(o)) {
            out = inner.lookup(yield.getValue());
            break;
          }
          b.clone(o, inner);
        }
      }
      if (!out) {
        status = epi.emitError("the epilogue region yields nothing");
        return;
      }
      SmallVector<Value> at = {bIdx, m, n};
      if (head)
        at.insert(at.begin() + 1, head);
      if (sumRows) {
        at[1] = cst(0);
        Value wide = out.getType().isF32()
                         ? out
                         : arith::ExtFOp::create(b, loc, b.getF32Type(), out).getResult();
        Value prior = memref::LoadOp::create(b, loc, target, at);
        out = arith::AddFOp::create(b, loc, prior, wide);
      }
      memref::StoreOp::create(b, loc, out, target, at);
    });
    return status;
  }

  /// An attention op's kernel: (batch elements (, the index)).
  FailureOr<Value> runAttention(func::FuncOp kernel) {
    sources["Q"] = toBuffer(attention.getQuery());
    sources["K"] = toBuffer(attention.getKey());
    sources["V"] = toBuffer(attention.getValue());
    RankedTensorType type = attention.getType();
    Value batch = tensor::DimOp::create(b, loc, attention.getQuery(), 0);
    // [B, H, L, D]: the batch and the query length may be dynamic.
    result = allocResult(type, [&](int64_t d) -> Value {
      return tensor::DimOp::create(b, loc, attention.getQuery(), d);
    });
    targets["O"] = {result, type.getElementType()};
    Block &entry = kernel.front();
    Value index = attention.getIndex();
    // (batch(, index)(, query length)(, key length)), the lengths when
    // dynamic.
    SmallVector<Value> args = {batch};
    if (index)
      args.push_back(index);
    // Two candidates of one request a tile: the pairs table, made here from
    // the index's values as the pairing kernel makes it on the device (which
    // candidates pair does not change any result). Candidates in request
    // order: the order, sorted by request as the grouping kernel sorts it,
    // and the pairs table by position.
    auto marked = [&](unsigned at, StringRef name) {
      return index && at < entry.getNumArguments() &&
             kernel.getArgAttr(at, name);
    };
    bool pairs = marked(args.size(), "sck.candidate_pairs");
    Value order;
    if (marked(args.size() + (pairs ? 1 : 0), "sck.candidate_order"))
      order = candidateOrder(index);
    if (pairs)
      args.push_back(candidatePairs(index, order));
    if (order)
      args.push_back(order);
    if (type.isDynamicDim(2))
      args.push_back(tensor::DimOp::create(b, loc, attention.getQuery(), 2));
    if (attention.getKey().getType().isDynamicDim(2))
      args.push_back(tensor::DimOp::create(b, loc, attention.getKey(), 2));
    // A block mask over lengths known only now: its tables, built here for
    // these lengths as the runtime builds them at launch.
    if (entry.getNumArguments() == args.size() + 1)
      if (auto mask = kernel.getArgAttrOfType<LogLinearMaskAttr>(
              args.size(), "sck.mask_tables"))
        args.push_back(logLinearTables(mask));
    if (entry.getNumArguments() != args.size())
      return kernel.emitError("the CPU runner takes an attention kernel's "
                              "(batch(, index(, pairs)(, order))(, dynamic "
                              "lengths)(, mask tables))");
    for (auto [arg, value] : llvm::zip(entry.getArguments(), args))
      map.map(arg, value);
    if (failed(runBlock(entry)))
      return failure();
    return bufferization::ToTensorOp::create(b, loc, type, result,
                                             /*restrict=*/true,
                                             /*writable=*/true)
        .getResult();
  }

  /// The BSR tables of `mask` for the attention's lengths: offsets per
  /// query block (ceil(L / block) + 1 of them), then each query block's
  /// kept key blocks in order, from the mask's definition
  /// (detail::buildLogLinearKeep), one key block at a time.
  Value logLinearTables(LogLinearMaskAttr mask) {
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    int64_t block = mask.getMaskBlockSize();
    auto blocksOf = [&](Value tensor) -> Value {
      Value len = tensor::DimOp::create(b, loc, tensor, 2);
      Value up = arith::AddIOp::create(b, loc, len, idx(block - 1));
      return arith::DivUIOp::create(b, loc, up, idx(block));
    };
    Value queryBlocks = blocksOf(attention.getQuery());
    Value keyBlocks = blocksOf(attention.getKey());
    Value base = arith::AddIOp::create(b, loc, queryBlocks, idx(1));
    Value pairs = arith::MulIOp::create(b, loc, queryBlocks, keyBlocks);
    Value size = arith::AddIOp::create(b, loc, base, pairs);
    auto type = MemRefType::get({ShapedType::kDynamic}, b.getI32Type());
    Value tables = memref::AllocOp::create(b, loc, type, ValueRange{size});
    auto i32 = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
    };
    memref::StoreOp::create(b, loc, i32(idx(0)), tables, ValueRange{idx(0)});
    auto rows = scf::ForOp::create(b, loc, idx(0), queryBlocks, idx(1),
                                   ValueRange{idx(0)});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(rows.getBody());
      Value qb = rows.getInductionVar();
      auto cols = scf::ForOp::create(b, loc, idx(0), keyBlocks, idx(1),
                                     rows.getRegionIterArgs());
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(cols.getBody());
        Value kb = cols.getInductionVar();
        Value count = cols.getRegionIterArgs()[0];
        Value keep =
            sc::detail::buildLogLinearKeep(b, loc, mask, qb, kb, keyBlocks);
        auto store = scf::IfOp::create(b, loc, keep, /*withElse=*/false);
        b.setInsertionPointToStart(store.thenBlock());
        Value at = arith::AddIOp::create(b, loc, base, count);
        memref::StoreOp::create(b, loc, i32(kb), tables, ValueRange{at});
        b.setInsertionPointAfter(store);
        Value one = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            arith::ExtUIOp::create(b, loc, b.getI32Type(), keep));
        scf::YieldOp::create(b, loc,
                             ValueRange{arith::AddIOp::create(b, loc, count, one)});
      }
      Value next = arith::AddIOp::create(b, loc, qb, idx(1));
      memref::StoreOp::create(b, loc, i32(cols.getResult(0)), tables,
                              ValueRange{next});
      scf::YieldOp::create(b, loc, cols.getResult(0));
    }
    auto tensorType = RankedTensorType::get({ShapedType::kDynamic}, b.getI32Type());
    return bufferization::ToTensorOp::create(b, loc, tensorType, tables,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  }

  /// The candidates in request order (int32 [B], position -> candidate):
  /// a counting sort by the index's values, stable, as the grouping kernel
  /// sorts them (its order within a request may differ; no result depends
  /// on it).
  Value candidateOrder(Value index) {
    auto type = MemRefType::get({ShapedType::kDynamic}, b.getI32Type());
    auto indexType = MemRefType::get({ShapedType::kDynamic}, b.getIndexType());
    Value candidates = tensor::DimOp::create(b, loc, index, 0);
    Value requests = tensor::DimOp::create(b, loc, attention.getKey(), 0);
    Value order = memref::AllocOp::create(b, loc, type, ValueRange{candidates});
    Value cursor = memref::AllocOp::create(b, loc, indexType, ValueRange{requests});
    auto requestOf = [&](ValueRange c) -> Value {
      return arith::IndexCastOp::create(
          b, loc, b.getIndexType(), tensor::ExtractOp::create(b, loc, index, c));
    };
    forEach({requests}, [&](ValueRange r) {
      memref::StoreOp::create(b, loc, cst(0), cursor, r);
    });
    forEach({candidates}, [&](ValueRange c) {
      Value r = requestOf(c);
      Value n = memref::LoadOp::create(b, loc, cursor, ValueRange{r});
      memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, n, cst(1)),
                              cursor, ValueRange{r});
    });
    // Counts -> each request's first position.
    auto scan = scf::ForOp::create(b, loc, cst(0), requests, cst(1),
                                   ValueRange{cst(0)});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(scan.getBody());
      Value r = scan.getInductionVar();
      Value n = memref::LoadOp::create(b, loc, cursor, ValueRange{r});
      Value start = scan.getRegionIterArgs()[0];
      memref::StoreOp::create(b, loc, start, cursor, ValueRange{r});
      scf::YieldOp::create(b, loc,
                           ValueRange{arith::AddIOp::create(b, loc, start, n)});
    }
    forEach({candidates}, [&](ValueRange c) {
      Value r = requestOf(c);
      Value at = memref::LoadOp::create(b, loc, cursor, ValueRange{r});
      memref::StoreOp::create(
          b, loc, arith::IndexCastOp::create(b, loc, b.getI32Type(), c[0]),
          order, ValueRange{at});
      memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, at, cst(1)),
                              cursor, ValueRange{r});
    });
    auto tensorType = RankedTensorType::get({ShapedType::kDynamic}, b.getI32Type());
    return bufferization::ToTensorOp::create(b, loc, tensorType, order,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  }

  /// The pairs table of `index` (int32 [B]): candidates of one request
  /// paired in order of the index, the first of a pair holding its
  /// partner + 1, the partner -1, a candidate left alone 0. A waiting
  /// position per request (-1: none) makes the pairs in one pass. With an
  /// `order`, the table is by position (position p runs candidate
  /// order[p]) and pairs positions, its partners still candidates.
  Value candidatePairs(Value index, Value order) {
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 32);
    };
    auto type = MemRefType::get({ShapedType::kDynamic}, b.getI32Type());
    Value candidates = tensor::DimOp::create(b, loc, index, 0);
    Value requests = tensor::DimOp::create(b, loc, attention.getKey(), 0);
    Value table = memref::AllocOp::create(b, loc, type, ValueRange{candidates});
    Value waiting = memref::AllocOp::create(b, loc, type, ValueRange{requests});
    forEach({requests}, [&](ValueRange r) {
      memref::StoreOp::create(b, loc, i32(-1), waiting, r);
    });
    forEach({candidates}, [&](ValueRange c) {
      // Position c's candidate.
      Value self = arith::IndexCastOp::create(b, loc, b.getI32Type(), c[0]);
      Value candidate = c[0];
      if (order) {
        self = tensor::ExtractOp::create(b, loc, order, c);
        candidate = arith::IndexCastOp::create(b, loc, b.getIndexType(), self);
      }
      Value request = arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          tensor::ExtractOp::create(b, loc, index, ValueRange{candidate}));
      Value other = memref::LoadOp::create(b, loc, waiting, ValueRange{request});
      Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         other, i32(0));
      Value position = arith::IndexCastOp::create(b, loc, b.getI32Type(), c[0]);
      auto ifNone = scf::IfOp::create(b, loc, TypeRange{}, none, true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifNone.getThenRegion().front());
        memref::StoreOp::create(b, loc, position, waiting, ValueRange{request});
        memref::StoreOp::create(b, loc, i32(0), table, c);
        b.setInsertionPointToStart(&ifNone.getElseRegion().front());
        Value otherIdx =
            arith::IndexCastOp::create(b, loc, b.getIndexType(), other);
        memref::StoreOp::create(b, loc,
                                arith::AddIOp::create(b, loc, self, i32(1)),
                                table, ValueRange{otherIdx});
        memref::StoreOp::create(b, loc, i32(-1), table, c);
        memref::StoreOp::create(b, loc, i32(-1), waiting, ValueRange{request});
      }
    });
    auto tensorType = RankedTensorType::get({ShapedType::kDynamic}, b.getI32Type());
    return bufferization::ToTensorOp::create(b, loc, tensorType, table,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  }

  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }

  /// m = -1e30 (finite: exp2 of differences never sees inf - inf), l = 0.
  void softmaxInit(sck::SoftmaxInitOp init) {
    int64_t rows = init.getState().getType().getShape()[0];
    Value state = alloc({rows, 2}, b.getF32Type());
    forEach({cst(rows)}, [&](ValueRange r) {
      memref::StoreOp::create(b, loc, f32(-1e30), state, ValueRange{r[0], cst(0)});
      memref::StoreOp::create(b, loc, f32(0.0), state, ValueRange{r[0], cst(1)});
    });
    map.map(init.getResult(), state);
  }

  /// One key block of the online softmax, as sck.softmax defines it.
  void softmax(sck::SoftmaxOp step) {
    ArrayRef<int64_t> sShape = step.getS().getType().getShape();
    int64_t rows = sShape[0], cols = sShape[1];
    Type element = step.getP().getType().getElementType();
    Value s = map.lookup(step.getS());
    Value state = map.lookup(step.getState());
    Value keyStart = map.lookup(step.getKeyStart());
    Value p = alloc({rows, cols}, element);
    Value newState = alloc({rows, 2}, b.getF32Type());
    double log2e = 1.4426950408889634;
    Value scale2 = f32(step.getScale().convertToFloat() * log2e);
    Value keys = map.lookup(step.getKeys());
    Value negInf = f32(-std::numeric_limits<float>::infinity());
    forEach({cst(rows)}, [&](ValueRange r) {
      // z_j: the scaled score in log2 units, -inf past the keys.
      auto z = [&](Value j) {
        Value x = memref::LoadOp::create(b, loc, s, ValueRange{r[0], j});
        Value scaled = arith::MulFOp::create(b, loc, x, scale2);
        Value key = arith::AddIOp::create(b, loc, keyStart, j);
        Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key, keys);
        return arith::SelectOp::create(b, loc, valid, scaled, negInf).getResult();
      };
      Value m = memref::LoadOp::create(b, loc, state, ValueRange{r[0], cst(0)});
      Value l = memref::LoadOp::create(b, loc, state, ValueRange{r[0], cst(1)});
      auto maxLoop = scf::ForOp::create(b, loc, cst(0), cst(cols), cst(1), ValueRange{m});
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(maxLoop.getBody());
        Value mx = arith::MaximumFOp::create(b, loc, maxLoop.getRegionIterArgs()[0],
                                             z(maxLoop.getInductionVar()));
        scf::YieldOp::create(b, loc, mx);
      }
      Value mNew = maxLoop.getResult(0);
      Value alpha = math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, m, mNew));
      auto sumLoop = scf::ForOp::create(b, loc, cst(0), cst(cols), cst(1), ValueRange{f32(0.0)});
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(sumLoop.getBody());
        Value j = sumLoop.getInductionVar();
        Value e = math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, z(j), mNew));
        Value pe = arith::TruncFOp::create(b, loc, element, e);
        memref::StoreOp::create(b, loc, pe, p, ValueRange{r[0], j});
        Value sum = arith::AddFOp::create(b, loc, sumLoop.getRegionIterArgs()[0], e);
        scf::YieldOp::create(b, loc, sum);
      }
      Value lNew = arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, l, alpha),
                                         sumLoop.getResult(0));
      memref::StoreOp::create(b, loc, mNew, newState, ValueRange{r[0], cst(0)});
      memref::StoreOp::create(b, loc, lNew, newState, ValueRange{r[0], cst(1)});
    });
    map.map(step.getP(), p);
    map.map(step.getNewState(), newState);
  }

  /// O times exp2(m - m') per row, as sck.rescale defines it.
  void rescale(sck::RescaleOp op) {
    ArrayRef<int64_t> shape = op.getO().getType().getShape();
    Value o = map.lookup(op.getO());
    Value from = map.lookup(op.getFrom()), to = map.lookup(op.getTo());
    Value out = alloc(shape, b.getF32Type());
    forEach({cst(shape[0])}, [&](ValueRange r) {
      Value m = memref::LoadOp::create(b, loc, from, ValueRange{r[0], cst(0)});
      Value mNew = memref::LoadOp::create(b, loc, to, ValueRange{r[0], cst(0)});
      Value alpha = math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, m, mNew));
      forEach({cst(shape[1])}, [&](ValueRange d) {
        Value v = memref::LoadOp::create(b, loc, o, ValueRange{r[0], d[0]});
        memref::StoreOp::create(b, loc, arith::MulFOp::create(b, loc, v, alpha), out,
                                ValueRange{r[0], d[0]});
      });
    });
    map.map(op.getResult(), out);
  }

  /// O divided by the row sums.
  void normalize(sck::NormalizeOp norm) {
    ArrayRef<int64_t> shape = norm.getO().getType().getShape();
    Value o = map.lookup(norm.getO()), state = map.lookup(norm.getState());
    Value out = alloc(shape, b.getF32Type());
    forEach({cst(shape[0]), cst(shape[1])}, [&](ValueRange ij) {
      Value l = memref::LoadOp::create(b, loc, state, ValueRange{ij[0], cst(1)});
      Value v = memref::LoadOp::create(b, loc, o, ij);
      memref::StoreOp::create(b, loc, arith::DivFOp::create(b, loc, v, l), out, ij);
    });
    map.map(norm.getResult(), out);
  }

  /// The ring as queues as long as the producer's puts: at most one slot
  /// per k-tile of every 64 x 256 tile of the result.
  LogicalResult ring(sck::RingOp ringOp) {
    // A ring whose puts and gets name their positions holds its `stages`
    // slots only, position p in slot p mod stages, as the kernel's shared
    // memory does: a put over a slot not yet read shows as a mismatch.
    // (Roles run one after another here: a ring between roles holds every
    // put, at its named position if it has one.)
    if (llvm::any_of(ringOp->getUsers(), [](Operation *user) {
          auto put = dyn_cast<sck::PutOp>(user);
          return put && put.getPosition() && !put->getParentOfType<sck::RoleOp>();
        })) {
      if (ringOp.getStages() == 0)
        return ringOp.emitError("a ring of named positions needs its stages");
      return makeQueue(ringOp, cst(ringOp.getStages()));
    }
    if (attention) {
      // At most one slot per 64-key block of every (batch, 64-row query
      // tile, head): the Q ring takes fewer.
      auto dim = [&](Value tensor, int64_t d) -> Value {
        return tensor::DimOp::create(b, loc, tensor, d);
      };
      auto tiles = [&](Value extent) -> Value {
        Value up = arith::AddIOp::create(b, loc, extent, cst(63));
        return arith::DivUIOp::create(b, loc, up, cst(64));
      };
      Value q = attention.getQuery();
      Value capacity = arith::MulIOp::create(b, loc, dim(q, 0), dim(q, 1));
      capacity = arith::MulIOp::create(b, loc, capacity, tiles(dim(q, 2)));
      capacity = arith::MulIOp::create(b, loc, capacity,
                                       tiles(dim(attention.getKey(), 2)));
      return makeQueue(ringOp, capacity);
    }
    // Slots of one GEMM: one per 64-wide k-tile of each tile, counted for
    // the smallest tiles the kernels use, 8 rows by 64 columns (the
    // transposed tile's rows m come in multiples of 8, narrow tiles are 64
    // columns; a hybrid-tiled one: per tile column of each 64 x 8 tile).
    auto slots = [&](BatchMatmulOp gemm) -> Value {
      if (auto layout = dyn_cast_or_null<HybridTilesAttr>(
              gemm.getRhs().getType().getEncoding()))
        return arith::MulIOp::create(
            b, loc, batchOf(gemm),
            cst(llvm::divideCeil(gemm.getType().getDimSize(1), 8) *
                (gemm.getType().getDimSize(2) / 64) * layout.getGrid()[1]));
      RankedTensorType type = gemm.getType();
      RankedTensorType lhsType = gemm.getLhs().getType();
      int64_t k = lhsType.getShape().back();
      // M from the lhs (a result whose rows are summed has one).
      int64_t m = lhsType.getShape()[lhsType.getRank() - 2];
      int64_t perBatch = llvm::divideCeil(m, 8) *
                         llvm::divideCeil(type.getDimSize(2), 64) *
                         llvm::divideCeil(k, 64);
      return arith::MulIOp::create(b, loc, batchOf(gemm), cst(perBatch));
    };
    return makeQueue(ringOp, slots(op));
  }

  /// Ring `ringOp` as queues of `capacity` boxes of each type.
  LogicalResult makeQueue(sck::RingOp ringOp, Value capacity) {
    Queue queue;
    for (Type t : ringOp.getType().getBoxes()) {
      auto box = cast<sck::BoxType>(t);
      SmallVector<int64_t> shape = {ShapedType::kDynamic};
      llvm::append_range(shape, box.getShape());
      queue.boxes.push_back(memref::AllocOp::create(
          b, loc, MemRefType::get(shape, box.getElementType()), ValueRange{capacity}));
    }
    queue.capacity = capacity;
    queue.counts = memref::AllocaOp::create(b, loc, MemRefType::get({2}, b.getIndexType()));
    memref::StoreOp::create(b, loc, cst(0), queue.counts, ValueRange{cst(0)});
    memref::StoreOp::create(b, loc, cst(0), queue.counts, ValueRange{cst(1)});
    queues[ringOp.getResult()] = queue;
    return success();
  }

  /// Copies box `box` to / from entry `slot` of a queue.
  void copyBox(Value queue, Value slot, Value box, sck::BoxType type, bool toQueue) {
    forEach({cst(type.getShape()[0]), cst(type.getShape()[1])}, [&](ValueRange ij) {
      SmallVector<Value> at = {slot, ij[0], ij[1]};
      if (toQueue)
        memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, box, ij), queue, at);
      else
        memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, queue, at), box, ij);
    });
  }

  /// The slot of named ring position `position`: position mod stages.
  Value slotAt(const Queue &queue, Value position) {
    return arith::RemUIOp::create(b, loc, map.lookup(position), queue.capacity);
  }

  /// Takes the next put (which = 0) or get (1) position of `queue`.
  Value take(const Queue &queue, int64_t which) {
    Value at = memref::LoadOp::create(b, loc, queue.counts, ValueRange{cst(which)});
    Value next = arith::AddIOp::create(b, loc, at, cst(1));
    memref::StoreOp::create(b, loc, next, queue.counts, ValueRange{cst(which)});
    // The queue holds one slot per 64-wide k-tile of every 64 x 256 tile; a
    // kernel that puts more reuses its last slot (never writing past it),
    // and its wrong results show as a mismatch.
    Value last = arith::SubIOp::create(b, loc, queue.capacity, cst(1));
    return arith::MinUIOp::create(b, loc, at, last);
  }

  /// The host type of a kernel value: an accumulator or box is a buffer.
  Type hostType(Type t) {
    if (auto acc = dyn_cast<sck::AccType>(t))
      return MemRefType::get(acc.getShape(), acc.getElementType());
    if (auto box = dyn_cast<sck::BoxType>(t))
      return MemRefType::get(box.getShape(), box.getElementType());
    if (auto frag = dyn_cast<sck::FragType>(t))
      return MemRefType::get(frag.getShape(), frag.getElementType());
    return t;
  }

  /// An scf.index_switch (a hybrid tile's kinds): its cases run as written.
  LogicalResult indexSwitch(scf::IndexSwitchOp cases) {
    SmallVector<Type> types = llvm::map_to_vector(
        cases.getResultTypes(), [&](Type t) { return hostType(t); });
    auto copy = scf::IndexSwitchOp::create(b, loc, types,
                                           map.lookup(cases.getArg()),
                                           cases.getCases(),
                                           cases.getNumCases());
    LogicalResult status = success();
    for (auto [from, to] : llvm::zip(cases->getRegions(), copy->getRegions())) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&to.emplaceBlock());
      Block &body = from.front();
      for (Operation &inner : body.without_terminator())
        if (failed(runOp(inner)))
          status = failure();
      SmallVector<Value> yielded =
          llvm::map_to_vector(body.getTerminator()->getOperands(),
                              [&](Value v) { return map.lookupOrDefault(v); });
      scf::YieldOp::create(b, loc, yielded);
    }
    for (auto [from, to] : llvm::zip(cases.getResults(), copy.getResults()))
      map.map(from, to);
    return status;
  }

  /// A role's body; one that asks which consumer runs it is run once for
  /// each of its consumers, in order.
  LogicalResult runRole(sck::RoleOp role) {
    Block &body = role.getBody().front();
    bool perConsumer = body.walk([](sck::ConsumerIndexOp) {
                             return WalkResult::interrupt();
                           }).wasInterrupted();
    if (!perConsumer)
      return runBlock(body);
    for (int64_t c = 0; c < static_cast<int64_t>(role.getCount()); ++c) {
      consumerIndex = cst(c);
      if (failed(runBlock(body)))
        return failure();
    }
    return success();
  }

  LogicalResult runBlock(Block &block) {
    for (Operation &o : block)
      if (failed(runOp(o)))
        return failure();
    return success();
  }

  LogicalResult runOp(Operation &o) {
    // What orders the kernel's threads has nothing to do on one thread.
    if (isa<func::ReturnOp, sck::ReleaseOp, sck::DiscardOp, sck::MmaWaitOp,
            sck::AwaitTurnOp, sck::PassTurnOp>(o))
      return success();
    if (auto index = dyn_cast<sck::TileIndexOp>(o)) {
      map.map(index.getIndex(), tileIndex);
      return success();
    }
    if (auto role = dyn_cast<sck::RoleOp>(o))
      return runRole(role);
    if (auto index = dyn_cast<sck::ConsumerIndexOp>(o)) {
      map.map(index.getIndex(), consumerIndex);
      return success();
    }
    if (auto op = dyn_cast<sck::RescaleOp>(o))
      return rescale(op), success();
    // One CTA runs every tile of a chained walk, heads fastest (the tile
    // loop's order).
    if (auto size = dyn_cast<sck::WalkSizeOp>(o)) {
      Value bm = arith::MulIOp::create(b, loc, map.lookup(size.getBatches()),
                                       map.lookup(size.getMTiles()));
      map.map(size.getSize(),
              arith::MulIOp::create(b, loc, bm, map.lookup(size.getNTiles())));
      return success();
    }
    if (auto tile = dyn_cast<sck::WalkTileOp>(o)) {
      Value i = map.lookup(tile.getIndex());
      Value n = map.lookup(tile.getNTiles()), m = map.lookup(tile.getMTiles());
      Value bm = arith::DivUIOp::create(b, loc, i, n);
      map.map(tile.getN(), arith::RemUIOp::create(b, loc, i, n));
      map.map(tile.getM(), arith::RemUIOp::create(b, loc, bm, m));
      map.map(tile.getB(), arith::DivUIOp::create(b, loc, bm, m));
      return success();
    }
    if (auto frag = dyn_cast<sck::LoadFragOp>(o)) {
      // Registers hold what the box held.
      map.map(frag.getFrag(), map.lookup(frag.getBox()));
      return success();
    }
    if (auto ringOp = dyn_cast<sck::RingOp>(o))
      return ring(ringOp);
    if (auto init = dyn_cast<sck::SoftmaxInitOp>(o))
      return softmaxInit(init), success();
    if (auto step = dyn_cast<sck::SoftmaxOp>(o))
      return softmax(step), success();
    if (auto norm = dyn_cast<sck::NormalizeOp>(o))
      return normalize(norm), success();
    if (auto loop = dyn_cast<sck::TileLoopOp>(o)) {
      Block &body = loop.getBody().front();
      LogicalResult status = success();
      allocateSplits(loop);
      forEach({map.lookup(loop.getBatches()), map.lookup(loop.getMTiles()),
               map.lookup(loop.getNTiles())},
              [&](ValueRange tile) {
                for (auto [arg, v] : llvm::zip(body.getArguments(), tile))
                  map.map(arg, v);
                // Every role walks all tiles in this order: the tile's
                // index is its place in it.
                Value mn = arith::AddIOp::create(
                    b, loc,
                    arith::MulIOp::create(b, loc, tile[0],
                                          map.lookup(loop.getMTiles())),
                    tile[1]);
                tileIndex = arith::AddIOp::create(
                    b, loc,
                    arith::MulIOp::create(b, loc, mn, map.lookup(loop.getNTiles())),
                    tile[2]);
                status = runBlock(body);
              });
      return status;
    }
    if (auto loadOp = dyn_cast<sck::LoadOp>(o))
      return load(loadOp);
    if (auto prefetchOp = dyn_cast<sck::PrefetchOp>(o))
      return prefetch(prefetchOp), success();
    if (auto zero = dyn_cast<sck::ZeroOp>(o)) {
      sck::AccType type = zero.getType();
      Value acc = alloc(type.getShape(), b.getF32Type());
      fillZero(acc, type.getShape(), b.getF32Type());
      map.map(zero.getResult(), acc);
      return success();
    }
    if (auto mmaOp = dyn_cast<sck::MmaOp>(o))
      return mma(mmaOp), success();
    if (auto mmaOp = dyn_cast<sck::MmaSparseOp>(o))
      return mmaSparse(mmaOp), success();
    if (auto tile = dyn_cast<sck::HybridTileOp>(o))
      return hybridTile(tile);
    if (auto cases = dyn_cast<scf::IndexSwitchOp>(o))
      return indexSwitch(cases);
    if (auto put = dyn_cast<sck::PutOp>(o)) {
      const Queue &queue = queues[put.getRing()];
      Value slot = put.getPosition() ? slotAt(queue, put.getPosition())
                                     : take(queue, 0);
      for (auto [q, box] : llvm::zip(queue.boxes, put.getBoxes()))
        copyBox(q, slot, map.lookup(box), cast<sck::BoxType>(box.getType()), true);
      return success();
    }
    if (auto get = dyn_cast<sck::GetOp>(o)) {
      const Queue &queue = queues[get.getRing()];
      Value slot = get.getPosition() ? slotAt(queue, get.getPosition())
                                     : take(queue, 1);
      for (auto [q, box] : llvm::zip(queue.boxes, get.getBoxes())) {
        auto type = cast<sck::BoxType>(box.getType());
        Value copy = alloc(type.getShape(), type.getElementType());
        copyBox(q, slot, copy, type, false);
        map.map(box, copy);
      }
      return success();
    }
    if (auto epi = dyn_cast<sck::EpilogueOp>(o))
      return epilogue(epi);
    if (auto reduce = dyn_cast<sck::ReduceSplitsOp>(o))
      return reduceSplits(reduce);
    if (auto loop = dyn_cast<scf::ForOp>(o)) {
      SmallVector<Value> inits =
          llvm::map_to_vector(loop.getInitArgs(), [&](Value v) { return map.lookup(v); });
      LogicalResult status = success();
      auto copy = scf::ForOp::create(
          b, loc, map.lookup(loop.getLowerBound()), map.lookup(loop.getUpperBound()),
          map.lookup(loop.getStep()), inits,
          [&](OpBuilder &inside, Location, Value iv, ValueRange iters) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(inside.getInsertionBlock(), inside.getInsertionPoint());
            map.map(loop.getInductionVar(), iv);
            for (auto [arg, v] : llvm::zip(loop.getRegionIterArgs(), iters))
              map.map(arg, v);
            Block &body = *loop.getBody();
            for (Operation &inner : body.without_terminator())
              if (failed(runOp(inner)))
                status = failure();
            SmallVector<Value> yielded = llvm::map_to_vector(
                body.getTerminator()->getOperands(),
                [&](Value v) { return map.lookupOrDefault(v); });
            scf::YieldOp::create(b, loc, yielded);
          });
      for (auto [from, to] : llvm::zip(loop.getResults(), copy.getResults()))
        map.map(from, to);
      return status;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(o)) {
      if (ifOp.getNumResults() != 0)
        return o.emitError("the CPU runner takes an scf.if without results");
      LogicalResult status = success();
      bool withElse = !ifOp.getElseRegion().empty();
      auto copy = scf::IfOp::create(b, loc, TypeRange{},
                                    map.lookup(ifOp.getCondition()), withElse);
      OpBuilder::InsertionGuard guard(b);
      for (auto [from, to] : llvm::zip(ifOp->getRegions(), copy->getRegions())) {
        if (from.empty())
          continue;
        b.setInsertionPointToStart(&to.front());
        for (Operation &inner : from.front().without_terminator())
          if (failed(runOp(inner)))
            status = failure();
      }
      return status;
    }
    if (o.getNumRegions() != 0 || o.getDialect()->getNamespace() == "sck")
      return o.emitError("the CPU runner does not know this op");
    b.clone(o, map);
    return success();
  }
};

struct ScTestExecuteKernelIRPass
    : sc::impl::ScTestExecuteKernelIRPassBase<ScTestExecuteKernelIRPass> {
  void runOnOperation() final {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<BatchMatmulOp, AttentionOp>(op) &&
          op->hasAttr(BatchMatmulOp::getKernelAttrName()))
        ops.push_back(op);
    });
    DenseSet<Operation *> kernels;
    for (Operation *op : ops) {
      auto ref = op->getAttrOfType<FlatSymbolRefAttr>(
          BatchMatmulOp::getKernelAttrName());
      auto kernel = dyn_cast_or_null<func::FuncOp>(
          SymbolTable::lookupNearestSymbolFrom(op, ref));
      if (!kernel) {
        op->emitError() << "no kernel-level function " << ref;
        return signalPassFailure();
      }
      OpBuilder b(op);
      KernelRunner runner(b, op);
      FailureOr<Value> value = runner.run(kernel);
      if (failed(value))
        return signalPassFailure();
      op->getResult(0).replaceAllUsesWith(*value);
      op->erase();
      kernels.insert(kernel);
    }
    // The kernel functions have run where they were used.
    for (Operation *kernel : kernels)
      kernel->erase();
  }
};

} // namespace
