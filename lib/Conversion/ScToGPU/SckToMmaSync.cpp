//===- SckToMmaSync.cpp - sm_80's kernel ops lowered one pattern per op ---===//
//
// sc-convert-sck-to-mma-sync: the kernel-level ops of a multistage kernel
// (sm_80 / sm_86 / sm_89: every thread loads and computes, no TMA or
// wgmma) inside a gpu.func, each lowered by a pattern of its own:
//
//   sck.tile_loop (grid)  the CTA's tile: block x the N tile, y the M
//                         tile, z the batch element
//   sck.ring              dynamic shared memory; the kernel waits for all
//                         its copies before it returns
//   sck.put [p]           the boxes' 16-byte chunks by cp.async into slot
//                         p mod stages (chunks past the operand
//                         zero-filled: source size 0), one commit group
//   sck.get [p]           wait until at most stages - 2 groups are in
//                         flight, then a CTA barrier; the slot's boxes are
//                         their shared-memory addresses
//   sck.zero              the accumulator's registers, zero
//   sck.mma               per 16-deep step ldmatrix of A's and B's
//                         fragments (.trans for an N-major B) and
//                         mma.sync m16n8k16 with fp32 accumulation, each
//                         warp a 64 x 64 part of the 128 x 128 tile (4
//                         warps) or the 128 x 256 tile (8 warps)
//   sck.epilogue          the region as a device function on each
//                         accumulator element, two columns a store, rows
//                         and columns past the result skipped
//
// The kernel's memref arguments say which operand each is (`sck.operand`
// = "A", "B", "C" or the epilogue's operands in order after C); the
// shapes come from their types and the ops' box and accumulator types.
// A slot stores each box as its put's load reads the operand (rows along
// the operand's last dim, padded by 16 bytes so that ldmatrix's eight rows
// hit eight bank groups); every slot's first box, then every slot's
// second.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Conversion/Passes.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCCONVERTSCKTOMMASYNCPASS
#include "sparcast/Conversion/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {

/// A warp's 64 x 64 part of the tile: 4 m16 by 8 n8 mma tiles. The tile
/// is 128 rows by 128 or 256 columns (its accumulator type says which),
/// 4 or 8 warps.
constexpr int64_t kTileRows = 128, kWarpM = 64, kWarpN = 64, kMmaTilesM = 4,
                  kMmaTilesN = 8, kAccRegisters = 4;
/// Shared-memory rows padded by 16 bytes; cp.async copies 16-byte chunks.
constexpr int64_t kRowPad = 16, kChunkBytes = 16;

/// The arguments of the kernel holding `op` whose `sck.operand` name
/// `matches`, in order.
SmallVector<Value> namedArguments(Operation *op,
                                  function_ref<bool(StringRef)> matches) {
  SmallVector<Value> args;
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!func)
    return args;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto attr = func.getArgAttrOfType<StringAttr>(i, kOperandAttrName);
        attr && matches(attr.getValue()))
      args.push_back(func.getArgument(i));
  return args;
}

/// The kernel argument that is operand `name`.
Value operandArgument(Operation *op, StringRef name) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  return func ? namedKernelArgument(func, name) : Value();
}

/// The epilogue's operands: the kernel's arguments named in0, in1, ...
SmallVector<Value> epilogueArguments(Operation *op) {
  return namedArguments(op, [](StringRef n) { return n.starts_with("in"); });
}

/// Arithmetic on index values at one place (KernelArith's helpers).
struct Arith : KernelArith {
  Arith(OpBuilder &b, Location loc) : KernelArith(b, loc) {}
  using KernelArith::add, KernelArith::b, KernelArith::div, KernelArith::i32,
      KernelArith::index, KernelArith::loc, KernelArith::mul, KernelArith::rem,
      KernelArith::sumOverLanes, KernelArith::ult;
  Value toI64(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  }
  Value pointer(Value address, unsigned space) {
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), space), toI64(address));
  }
  Value threadId() { return gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x); }
  /// This thread's lane and its warp's 64 x 64 part of a tile of
  /// `tileCols` columns (warp w: rows 64 (w / W), columns 64 (w % W), W =
  /// tileCols / 64).
  struct WarpPart {
    Value lane, rows, cols;
  };
  WarpPart warpPart(int64_t tileCols) {
    Value tid = threadId();
    Value warp = div(tid, index(32));
    int64_t warpsN = tileCols / kWarpN;
    return {rem(tid, index(32)), mul(div(warp, index(warpsN)), index(kWarpM)),
            mul(rem(warp, index(warpsN)), index(kWarpN))};
  }
};

/// The threads of the CTA running `op` (its kernel's nvvm.maxntid), or 0.
int64_t blockThreads(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  auto maxntid = func ? func->getAttrOfType<DenseI32ArrayAttr>("nvvm.maxntid")
                      : DenseI32ArrayAttr();
  return maxntid && maxntid.size() == 3 ? maxntid[0] : 0;
}

} // namespace

Value mlir::sc::detail::mmaSyncM16N8K16(OpBuilder &b, Location loc,
                                        Type element, ArrayRef<Value> a,
                                        ArrayRef<Value> bFrag, Value acc) {
  std::string type = element.isBF16() ? "bf16" : "f16";
  std::string text = llvm::formatv(
      "mma.sync.aligned.m16n8k16.row.col.f32.{0}.{0}.f32 {{$0, $1, $2, $3}, "
      "{{$4, $5, $6, $7}, {{$8, $9}, {{$10, $11, $12, $13};",
      type);
  SmallVector<Value> operands(a);
  llvm::append_range(operands, bFrag);
  for (int64_t r = 0; r < 4; ++r)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, r));
  return LLVM::InlineAsmOp::create(
             b, loc, acc.getType(), operands, text,
             "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", /*has_side_effects=*/false,
             /*is_align_stack=*/false, LLVM::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getResult(0);
}

FailureOr<MmaSyncRingLayout>
mlir::sc::detail::mmaSyncRingLayout(sck::RingOp ring) {
  MmaSyncRingLayout layout;
  layout.stages = ring.getStages();
  if (layout.stages < 2)
    return ring.emitError("sc-convert-sck-to-mma-sync: a ring of its stages "
                          "(2 or more), not as many as fit");
  sck::PutOp put;
  for (Operation *user : ring->getUsers())
    if (auto p = dyn_cast<sck::PutOp>(user); p && p.getPosition())
      put = p;
  if (!put)
    return ring.emitError("sc-convert-sck-to-mma-sync: a ring without a put "
                          "at a named position");
  int64_t offset = 0;
  for (Value box : put.getBoxes()) {
    auto load = box.getDefiningOp<sck::LoadOp>();
    if (!load)
      return put.emitError("sc-convert-sck-to-mma-sync: a put of loaded boxes");
    sck::BoxType type = load.getType();
    if (type.getElementType().getIntOrFloatBitWidth() != 16)
      return load.emitError("sc-convert-sck-to-mma-sync: boxes of 16-bit "
                            "elements");
    MmaSyncRingLayout::Part part;
    part.transposed = load.getTransposed();
    part.rows = type.getShape()[part.transposed ? 1 : 0];
    int64_t cols = type.getShape()[part.transposed ? 0 : 1];
    if (cols * 2 % kChunkBytes != 0)
      return load.emitError("sc-convert-sck-to-mma-sync: box rows of whole "
                            "16-byte chunks");
    part.rowBytes = cols * 2 + kRowPad;
    part.offset = offset;
    offset += layout.stages * part.rows * part.rowBytes;
    layout.parts.push_back(part);
  }
  layout.bytes = offset;
  return layout;
}

namespace {

/// The layout of the ring a put or get uses.
FailureOr<MmaSyncRingLayout> layoutOf(Value ring) {
  auto op = ring.getDefiningOp<sck::RingOp>();
  if (!op)
    return failure();
  return mmaSyncRingLayout(op);
}

/// Where box `part` of ring position `position`'s slot lies.
Value slotPart(Arith &a, Value ringBase, const MmaSyncRingLayout &layout,
               unsigned part, Value position) {
  const MmaSyncRingLayout::Part &p = layout.parts[part];
  Value slot = a.rem(position, a.index(layout.stages));
  return a.add(ringBase, a.add(a.index(p.offset),
                               a.mul(slot, a.index(p.rows * p.rowBytes))));
}

//===----------------------------------------------------------------------===//
// sck.tile_loop
//===----------------------------------------------------------------------===//

struct TileLoopToGrid : OpConversionPattern<sck::TileLoopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::TileLoopOp loop, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (loop.getSchedule() != sck::TileSchedule::grid || loop.getCluster() != 1)
      return loop.emitError("sc-convert-sck-to-mma-sync: a grid tile loop "
                            "(one CTA a tile), not ")
             << sck::stringifyTileSchedule(loop.getSchedule());
    Location loc = loop.getLoc();
    SmallVector<Value> tile = {
        gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::z),
        gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::y),
        gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x)};
    rewriter.inlineBlockBefore(&loop.getBody().front(), loop, tile);
    rewriter.eraseOp(loop);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sck.ring
//===----------------------------------------------------------------------===//

struct RingToSharedMemory : OpConversionPattern<sck::RingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::RingOp ring, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (failed(mmaSyncRingLayout(ring)))
      return failure();
    Location loc = ring.getLoc();
    auto smemType = MemRefType::get(
        {ShapedType::kDynamic}, rewriter.getI8Type(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(getContext(), gpu::AddressSpace::Workgroup));
    Value smem = gpu::DynamicSharedMemoryOp::create(rewriter, loc, smemType);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, smem);
    // Copies still in flight (puts past the last get) land before the CTA
    // ends.
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ring->getBlock()->getTerminator());
      NVVM::CpAsyncWaitGroupOp::create(rewriter, loc, 0);
    }
    rewriter.replaceOp(ring, base);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sck.put
//===----------------------------------------------------------------------===//

struct PutToCpAsync : OpConversionPattern<sck::PutOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The thread's chunks of `load`'s box into `slot`.
  LogicalResult copyBox(Arith &a, sck::LoadOp load, ArrayRef<Value> at,
                        Value slot, const MmaSyncRingLayout::Part &part) const {
    Value source = operandArgument(load, load.getOperand());
    auto type = source ? dyn_cast<MemRefType>(source.getType()) : MemRefType();
    size_t coords = load.getCoords().size();
    if (!type || type.getRank() < 2 || type.getRank() > 3 ||
        (coords != static_cast<size_t>(type.getRank()) &&
         !(type.getRank() == 3 && coords == 2)))
      return load.emitError("sc-convert-sck-to-mma-sync: a box of a 2-D or "
                            "3-D memref argument named '")
             << load.getOperand() << "', at as many coordinates (or one fewer: "
             << "the rows of all batch elements)";
    if (ShapedType::isDynamic(type.getShape().back()) ||
        ShapedType::isDynamic(type.getShape()[type.getRank() - 2]))
      return load.emitError("sc-convert-sck-to-mma-sync: an operand of "
                            "static rows and columns");
    int64_t rows = type.getShape()[type.getRank() - 2];
    int64_t cols = type.getShape().back();
    // Pieces of 16 bytes; of 8 or 4 where the operand's rows are no
    // 16-byte multiple (`by_threads`: as much as their alignment allows).
    int64_t piece = kChunkBytes;
    if (load.getByThreads()) {
      if (load.getTransposed() || cols % 2 != 0)
        return load.emitError("sc-convert-sck-to-mma-sync: a box loaded by "
                              "threads in pieces from rows of an even number "
                              "of elements, as stored");
      piece = cols % 4 == 0 ? 8 : 4;
    } else if (cols * 2 % kChunkBytes != 0) {
      return load.emitError("sc-convert-sck-to-mma-sync: an operand of rows "
                            "of 16-byte multiples (else loaded by threads)");
    }
    // Rows: the operand's, or with one coordinate fewer those of all its
    // batch elements.
    bool flat = coords == 2 && type.getRank() == 3;
    Value rowLimit =
        flat ? a.mul(memref::DimOp::create(a.b, a.loc, source, 0), a.index(rows))
             : a.index(rows);
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(a.b, a.loc, source);
    // The box's first element in the stored orientation (the operand's last
    // two dims), and the batch element's offset.
    Value row0 = at[1], col0 = at[0];
    Value batchOffset =
        coords == 3 ? a.mul(at[2], a.index(rows * cols)) : a.index(0);
    int64_t chunksARow = (part.rowBytes - kRowPad) / piece;
    int64_t chunks = part.rows * chunksARow;
    int64_t threads = blockThreads(load);
    if (threads <= 0 || chunks % threads != 0)
      return load.emitError("sc-convert-sck-to-mma-sync: a box of a multiple "
                            "of the CTA's threads (")
             << threads << ") in chunks of 16 bytes";
    Value tid = a.threadId();
    for (int64_t i = 0; i < chunks / threads; ++i) {
      Value chunk = a.add(tid, a.index(i * threads));
      Value row = a.div(chunk, a.index(chunksARow));
      Value col = a.mul(a.rem(chunk, a.index(chunksARow)), a.index(piece / 2));
      Value r = a.add(row0, row), c = a.add(col0, col);
      Value valid = arith::AndIOp::create(a.b, a.loc, a.ult(r, rowLimit),
                                          a.ult(c, a.index(cols)));
      Value element = a.add(batchOffset, a.add(a.mul(r, a.index(cols)), c));
      Value src = a.add(base, a.mul(element, a.index(2)));
      Value dst = a.add(slot, a.add(a.mul(row, a.index(part.rowBytes)),
                                    a.mul(col, a.index(2))));
      // An invalid chunk reads nothing (source size 0) from a valid address.
      Value from = arith::SelectOp::create(a.b, a.loc, valid, src, base);
      Value size = arith::SelectOp::create(a.b, a.loc, valid, a.i32(piece), a.i32(0));
      // (cp.async.cg copies 16 bytes only.)
      NVVM::CpAsyncOp::create(a.b, a.loc, a.pointer(dst, 3), a.pointer(from, 1),
                              piece,
                              piece == kChunkBytes ? NVVM::LoadCacheModifierKind::CG
                                                   : NVVM::LoadCacheModifierKind::CA,
                              size);
    }
    return success();
  }

  LogicalResult
  matchAndRewrite(sck::PutOp put, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!put.getPosition())
      return put.emitError("sc-convert-sck-to-mma-sync: a put at a named "
                           "position (sc-pipeline-multistage)");
    FailureOr<MmaSyncRingLayout> layout = layoutOf(put.getRing());
    if (failed(layout))
      return failure();
    Arith a(rewriter, put.getLoc());
    for (auto [i, box] : llvm::enumerate(put.getBoxes())) {
      auto load = box.getDefiningOp<sck::LoadOp>();
      // The load's coordinates, as this conversion has them (a tile loop's
      // block arguments are the CTA's tile now).
      SmallVector<Value> at = llvm::map_to_vector(
          load.getCoords(), [&](Value v) { return rewriter.getRemappedValue(v); });
      Value slot = slotPart(a, adaptor.getRing(), *layout, i, adaptor.getPosition());
      if (failed(copyBox(a, load, at, slot, layout->parts[i])))
        return failure();
    }
    NVVM::CpAsyncCommitGroupOp::create(rewriter, put.getLoc());
    erasePutAndItsLoads(rewriter, put);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sck.get
//===----------------------------------------------------------------------===//

struct GetToWait : OpConversionPattern<sck::GetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::GetOp get, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!get.getPosition())
      return get.emitError("sc-convert-sck-to-mma-sync: a get at a named "
                           "position (sc-pipeline-multistage)");
    FailureOr<MmaSyncRingLayout> layout = layoutOf(get.getRing());
    if (failed(layout))
      return failure();
    Location loc = get.getLoc();
    // The ring keeps stages - 1 puts ahead of each get: this position's
    // copies have landed once at most stages - 2 groups are in flight; the
    // barrier makes every thread's copies visible, and every thread is
    // done with the slot the next put overwrites.
    NVVM::CpAsyncWaitGroupOp::create(rewriter, loc, layout->stages - 2);
    gpu::BarrierOp::create(rewriter, loc);
    Arith a(rewriter, loc);
    SmallVector<Value> boxes;
    for (unsigned i = 0; i < get.getBoxes().size(); ++i)
      boxes.push_back(slotPart(a, adaptor.getRing(), *layout, i, adaptor.getPosition()));
    rewriter.replaceOp(get, boxes);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sck.zero, sck.mma
//===----------------------------------------------------------------------===//

/// The 4 x 8 mma tiles of a warp, 4 f32 each.
Type accRegisterType(MLIRContext *ctx) {
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(kAccRegisters, Float32Type::get(ctx)));
}

/// A 128 x 128 or 128 x 256 f32 accumulator, a warp each 64 x 64 of it.
LogicalResult checkAccumulator(Operation *op, sck::AccType type) {
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.size() != 2 || shape[0] != kTileRows ||
      (shape[1] != 128 && shape[1] != 256) || !type.getElementType().isF32())
    return op->emitError("sc-convert-sck-to-mma-sync: a 128x128 or 128x256 "
                         "f32 accumulator (warps of 64 x 64), got ")
           << type;
  int64_t warps = shape[0] / kWarpM * (shape[1] / kWarpN);
  if (blockThreads(op) != 32 * warps)
    return op->emitError("sc-convert-sck-to-mma-sync: a ")
           << type << " accumulator in a CTA of " << 32 * warps
           << " threads (nvvm.maxntid), not " << blockThreads(op);
  return success();
}

struct ZeroToRegisters : OpConversionPattern<sck::ZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sck::ZeroOp zero, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (failed(checkAccumulator(zero, zero.getType())))
      return failure();
    Value z = LLVM::ZeroOp::create(rewriter, zero.getLoc(),
                                   accRegisterType(getContext()));
    rewriter.replaceOpWithMultiple(
        zero, {SmallVector<Value>(kMmaTilesM * kMmaTilesN, z)});
    return success();
  }
};

struct MmaToMmaSync : OpConversionPattern<sck::MmaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(sck::MmaOp mma, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (failed(checkAccumulator(mma, mma.getAcc().getType())))
      return failure();
    auto got = mma.getA().getDefiningOp<sck::GetOp>();
    if (!got || !mma.getABox() || mma.getB().getDefiningOp<sck::GetOp>() != got)
      return mma.emitError("sc-convert-sck-to-mma-sync: an mma of the boxes "
                           "of one get");
    FailureOr<MmaSyncRingLayout> layout = layoutOf(got.getRing());
    if (failed(layout))
      return failure();
    unsigned aPart = cast<OpResult>(mma.getA()).getResultNumber();
    unsigned bPart = cast<OpResult>(mma.getB()).getResultNumber();
    const MmaSyncRingLayout::Part &pa = layout->parts[aPart];
    const MmaSyncRingLayout::Part &pb = layout->parts[bPart];
    sck::BoxType aType = mma.getABox().getType(), bType = mma.getB().getType();
    int64_t tileCols = mma.getAcc().getType().getShape()[1];
    if (aType.getShape() != ArrayRef<int64_t>{kTileRows, 32} || pa.transposed ||
        bType.getShape() != ArrayRef<int64_t>{32, tileCols} ||
        aType.getElementType() != bType.getElementType())
      return mma.emitError("sc-convert-sck-to-mma-sync: a 128x32 A box read "
                           "as stored times a 32x")
             << tileCols << " B box of one element type";
    Location loc = mma.getLoc();
    Arith a(rewriter, loc);
    Value aStage = adaptor.getA().front(), bStage = adaptor.getB().front();
    SmallVector<Value> acc(adaptor.getAcc());
    auto [lane, warpM, warpN] = a.warpPart(tileCols);
    // Lane L addresses row L % 16 of a 16-row block, at column 8 (L / 16):
    // ldmatrix .x4 then gives A's fragment registers in mma order.
    Value laneRow = a.rem(lane, a.index(16)), laneHalf = a.div(lane, a.index(16));
    // B: lanes 8q .. 8q + 7 address matrix q: k rows 8 (q % 2) .., n
    // columns 8 (q / 2) .. (N-major, read transposed) or n rows 8 (q / 2)
    // .., k columns 8 (q % 2) (K-major).
    Value q = a.div(lane, a.index(8)), r8 = a.rem(lane, a.index(8));
    Value kOfLane = a.mul(a.rem(q, a.index(2)), a.index(8));
    Value nOfLane = a.mul(a.div(q, a.index(2)), a.index(8));
    bool kMajorB = pb.transposed;
    auto shared = [&](Value address) { return a.pointer(address, 3); };
    for (int64_t step = 0; step < 32 / 16; ++step) {
      SmallVector<SmallVector<Value>> aFrags, bFrags;
      for (int64_t mi = 0; mi < kMmaTilesM; ++mi) {
        Value row = a.add(a.add(warpM, a.index(mi * 16)), laneRow);
        Value col = a.add(a.index(step * 16), a.mul(laneHalf, a.index(8)));
        aFrags.push_back(loadMatrixX4(
            rewriter, loc,
            shared(a.add(aStage, a.add(a.mul(row, a.index(pa.rowBytes)),
                                       a.mul(col, a.index(2))))),
            /*transposed=*/false));
      }
      for (int64_t pair = 0; pair < kMmaTilesN / 2; ++pair) {
        Value n = a.add(a.add(warpN, a.index(pair * 16)), nOfLane);
        Value k = a.add(a.index(step * 16), kOfLane);
        Value address =
            kMajorB ? a.add(bStage, a.add(a.mul(a.add(n, r8), a.index(pb.rowBytes)),
                                          a.mul(k, a.index(2))))
                    : a.add(bStage, a.add(a.mul(a.add(k, r8), a.index(pb.rowBytes)),
                                          a.mul(n, a.index(2))));
        SmallVector<Value> regs =
            loadMatrixX4(rewriter, loc, shared(address), /*transposed=*/!kMajorB);
        bFrags.push_back({regs[0], regs[1]});
        bFrags.push_back({regs[2], regs[3]});
      }
      for (int64_t mi = 0; mi < kMmaTilesM; ++mi)
        for (int64_t nj = 0; nj < kMmaTilesN; ++nj) {
          Value &tile = acc[mi * kMmaTilesN + nj];
          tile = mmaSyncM16N8K16(rewriter, loc, aType.getElementType(), aFrags[mi],
                         bFrags[nj], tile);
        }
    }
    rewriter.replaceOpWithMultiple(mma, {acc});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sck.epilogue
//===----------------------------------------------------------------------===//

struct EpilogueToStores : OpConversionPattern<sck::EpilogueOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The region as device function <kernel>_epilogue (acc, b, m, n,
  /// memrefs...) -> result element.
  FailureOr<func::FuncOp> buildFunction(sck::EpilogueOp epilogue, Type out,
                                        ArrayRef<Value> ins,
                                        ConversionPatternRewriter &rewriter) const {
    auto kernel = epilogue->getParentOfType<gpu::GPUFuncOp>();
    auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
    MLIRContext *ctx = getContext();
    SmallVector<Type> types = {Float32Type::get(ctx)};
    types.append(3, IndexType::get(ctx));
    for (Value in : ins)
      types.push_back(in.getType());
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    auto func = func::FuncOp::create(
        rewriter, epilogue.getLoc(), (kernel.getName() + "_epilogue").str(),
        rewriter.getFunctionType(types, {out}));
    func.setPrivate();
    SymbolTable(module).insert(func);
    Block *body =
        epilogue.getBody().empty() ? nullptr : &epilogue.getBody().front();
    if (failed(sc::detail::buildEpilogueFunction(
            epilogue.getLoc(), out, BatchMatmulOp::kNumEpilogueLeadingArgs,
            body, func, std::nullopt)))
      return failure();
    return func;
  }

  /// Summed rows: per column, the warp's elements in rows below M (those
  /// past it computed at the last row, then masked) summed in f32 over its
  /// registers and its eight lane quads, added by the first quad into
  /// C[b, 0, n] (zeroed before the launch).
  void addRowSums(sck::EpilogueOp epilogue, OneToNOpAdaptor adaptor,
                  func::FuncOp fn, ArrayRef<Value> ins, Value c,
                  ConversionPatternRewriter &rewriter) const {
    Location loc = epilogue.getLoc();
    Arith a(rewriter, loc);
    int64_t m = *epilogue.getSumRows();
    int64_t n = cast<MemRefType>(c.getType()).getShape().back();
    Value n0 = adaptor.getCoords()[0].front(), m0 = adaptor.getCoords()[1].front();
    Value batch = adaptor.getCoords()[2].front();
    SmallVector<Value> acc(adaptor.getAcc());
    auto [lane, warpM, warpN] = a.warpPart(epilogue.getAcc().getType().getShape()[1]);
    Value g = a.div(lane, a.index(4));
    Value pairCol = a.mul(a.rem(lane, a.index(4)), a.index(2));
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    for (int64_t nj = 0; nj < kMmaTilesN; ++nj) {
      Value col = a.add(a.add(n0, a.add(warpN, a.index(nj * 8))), pairCol);
      // Columns past N computed at the last pair (N is a multiple of 8).
      Value colAt = arith::MinUIOp::create(rewriter, loc, col, a.index(n - 2));
      SmallVector<Value> sums(2, zero);
      for (int64_t mi = 0; mi < kMmaTilesM; ++mi)
        for (int64_t half = 0; half < 2; ++half) {
          Value r = a.add(a.add(m0, a.add(warpM, a.index(mi * 16 + 8 * half))), g);
          Value in = a.ult(r, a.index(m));
          Value row = arith::MinUIOp::create(rewriter, loc, r, a.index(m - 1));
          for (int64_t e = 0; e < 2; ++e) {
            Value v = LLVM::ExtractValueOp::create(
                rewriter, loc, acc[mi * kMmaTilesN + nj], 2 * half + e);
            SmallVector<Value> args = {v, batch, row,
                                       e ? a.add(colAt, a.index(1)) : colAt};
            llvm::append_range(args, ins);
            Value y = func::CallOp::create(rewriter, loc, fn, args).getResult(0);
            if (!y.getType().isF32())
              y = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), y);
            y = arith::SelectOp::create(rewriter, loc, in, y, zero);
            sums[e] = arith::AddFOp::create(rewriter, loc, sums[e], y);
          }
        }
      // Lanes with one lane % 4 hold the same columns.
      for (Value &sum : sums)
        sum = a.sumOverLanes(sum, {4, 8, 16});
      Value adds = arith::AndIOp::create(
          rewriter, loc, a.ult(g, a.index(1)), a.ult(col, a.index(n)));
      auto ifAdds = scf::IfOp::create(rewriter, loc, adds, false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&ifAdds.getThenRegion().front());
      for (int64_t e = 0; e < 2; ++e)
        memref::AtomicRMWOp::create(rewriter, loc, arith::AtomicRMWKind::addf,
                                    sums[e], c,
                                    ValueRange{batch, a.index(0),
                                               e ? a.add(col, a.index(1)) : col});
    }
  }

  LogicalResult
  matchAndRewrite(sck::EpilogueOp epilogue, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (failed(checkAccumulator(epilogue, epilogue.getAcc().getType())))
      return failure();
    Value c = operandArgument(epilogue, epilogue.getResult());
    auto cType = c ? dyn_cast<MemRefType>(c.getType()) : MemRefType();
    size_t coords = epilogue.getCoords().size();
    if (!cType || epilogue.getTransposed() || cType.getRank() < 2 ||
        (coords != static_cast<size_t>(cType.getRank()) &&
         !(cType.getRank() == 3 && coords == 2)) ||
        ShapedType::isDynamic(cType.getShape().back()) ||
        ShapedType::isDynamic(cType.getShape()[cType.getRank() - 2]))
      return epilogue.emitError("sc-convert-sck-to-mma-sync: an untransposed "
                                "tile of a memref argument '")
             << epilogue.getResult()
             << "' of static rows and columns, at as many coordinates (or one "
                "fewer: the rows of all batch elements)";
    if (llvm::any_of(epilogue.getIns().getTypes(), llvm::IsaPred<sck::BoxType>))
      return epilogue.emitError("sc-convert-sck-to-mma-sync: no prefetched "
                                "boxes on this chip");
    SmallVector<Value> ins = epilogueArguments(epilogue);
    if (ins.size() != epilogue.getIns().size())
      return epilogue.emitError("sc-convert-sck-to-mma-sync: the epilogue's "
                                "operands are the kernel's arguments after C");
    bool flat = coords == 2 && cType.getRank() == 3;
    std::optional<uint64_t> sumRows = epilogue.getSumRows();
    if (sumRows && (flat || cType.getRank() != 3 || cType.getShape()[1] != 1))
      return epilogue.emitError("sc-convert-sck-to-mma-sync: summed rows into "
                                "a [B, 1, N] result at [n0, m0, b]");
    Type out = sumRows ? epilogue.getYieldedType() : cType.getElementType();
    FailureOr<func::FuncOp> fn = buildFunction(epilogue, out, ins, rewriter);
    if (failed(fn))
      return failure();
    if (sumRows) {
      addRowSums(epilogue, adaptor, *fn, ins, c, rewriter);
      rewriter.eraseOp(epilogue);
      return success();
    }
    Location loc = epilogue.getLoc();
    Arith a(rewriter, loc);
    int64_t m = cType.getShape()[cType.getRank() - 2], n = cType.getShape().back();
    Value rowLimit =
        flat ? a.mul(memref::DimOp::create(rewriter, loc, c, 0), a.index(m))
             : a.index(m);
    Value n0 = adaptor.getCoords()[0].front(), m0 = adaptor.getCoords()[1].front();
    Value batch = coords == 3 ? adaptor.getCoords()[2].front() : a.index(0);
    SmallVector<Value> acc(adaptor.getAcc());
    auto [lane, warpM, warpN] = a.warpPart(epilogue.getAcc().getType().getShape()[1]);
    // Accumulator register r of mma tile (mi, nj): row g + 8 (r / 2),
    // column 2 (lane % 4) + r % 2 of the tile (g = lane / 4).
    Value g = a.div(lane, a.index(4));
    Value pairCol = a.mul(a.rem(lane, a.index(4)), a.index(2));
    for (int64_t mi = 0; mi < kMmaTilesM; ++mi)
      for (int64_t half = 0; half < 2; ++half) {
        Value r = a.add(a.add(m0, a.add(warpM, a.index(mi * 16 + 8 * half))), g);
        // Flat rows: row r of batch element r / M.
        Value bIdx = flat ? a.div(r, a.index(m)) : batch;
        Value row = flat ? a.rem(r, a.index(m)) : r;
        auto rowIn = scf::IfOp::create(rewriter, loc, a.ult(r, rowLimit), false);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(&rowIn.getThenRegion().front());
        for (int64_t nj = 0; nj < kMmaTilesN; ++nj) {
          Value col = a.add(a.add(n0, a.add(warpN, a.index(nj * 8))), pairCol);
          // N is a multiple of 8: both columns of the pair are in or out.
          auto colIn = scf::IfOp::create(rewriter, loc, a.ult(col, a.index(n)), false);
          OpBuilder::InsertionGuard inner(rewriter);
          rewriter.setInsertionPointToStart(&colIn.getThenRegion().front());
          SmallVector<Value> values;
          for (int64_t e = 0; e < 2; ++e) {
            Value v = LLVM::ExtractValueOp::create(
                rewriter, loc, acc[mi * kMmaTilesN + nj], 2 * half + e);
            Value at = e ? a.add(col, a.index(1)) : col;
            SmallVector<Value> args = {v, bIdx, row, at};
            llvm::append_range(args, ins);
            values.push_back(
                func::CallOp::create(rewriter, loc, *fn, args).getResult(0));
          }
          Value pair = vector::FromElementsOp::create(
              rewriter, loc, VectorType::get({2}, out), values);
          SmallVector<Value> at = {row, col};
          if (cType.getRank() == 3)
            at.insert(at.begin(), bIdx);
          vector::StoreOp::create(rewriter, loc, pair, c, at, /*nontemporal=*/false,
                                  llvm::MaybeAlign(2 * out.getIntOrFloatBitWidth() / 8));
        }
      }
    rewriter.eraseOp(epilogue);
    return success();
  }
};

} // namespace

void mlir::sc::detail::populateSckToMmaSyncPatterns(TypeConverter &converter,
                                                    RewritePatternSet &patterns) {
  patterns.add<TileLoopToGrid, RingToSharedMemory, PutToCpAsync, GetToWait,
               ZeroToRegisters, MmaToMmaSync, EpilogueToStores>(
      converter, patterns.getContext());
}

LogicalResult mlir::sc::detail::convertSckToMmaSync(gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  TypeConverter converter;
  // A ring is its shared-memory address, a box its slot's.
  addSharedMemoryTypeConversions(converter);
  converter.addConversion([](sck::AccType t, SmallVectorImpl<Type> &out) {
    out.append(kMmaTilesM * kMmaTilesN, accRegisterType(t.getContext()));
    return success();
  });
  ConversionTarget target(*ctx);
  addKernelConversionLegality(target);
  RewritePatternSet patterns(ctx);
  populateSckToMmaSyncPatterns(converter, patterns);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  return applyKernelConversion(kernel, target, std::move(patterns),
                               /*cse=*/true);
}

namespace {
struct ScConvertSckToMmaSyncPass
    : sc::impl::ScConvertSckToMmaSyncPassBase<ScConvertSckToMmaSyncPass> {
  void runOnOperation() final {
    WalkResult result = getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      return failed(convertSckToMmaSync(kernel)) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
