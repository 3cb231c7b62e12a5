//===- SckAttentionToMmaSync.cpp - sm_80's attention, a pattern per op ----===//
//
// The attention of sm_80 / sm_86 / sm_89 (no TMA, no wgmma: every thread
// loads and computes) lowered from its kernel-level IR
// (sc-lower-to-sck{attention=1}, sc-pipeline-multistage), cloned into a
// gpu.func of four warps, each op by a pattern of its own:
//
//   sck.tile_loop   the CTA's (batch element, 64-row query tile, head)
//                   from its block ids (x, y, z)
//   sck.ring        its slots in dynamic shared memory, each box stored
//                   as TMA would: rows of 64 elements (128 bytes) in
//                   64-column parts, each row's 16-byte chunks swizzled
//                   (chunk c of row r at c xor r mod 8)
//   sck.put [p]     the boxes' chunks by cp.async into slot p mod stages
//                   (rows past a length or a batch element past the
//                   operand zero-filled), one commit group
//   sck.get [p]     wait until at most stages - 2 groups are in flight,
//                   then a CTA barrier; the boxes' shared-memory offsets
//   sck.load_frag   Q's A fragments, ldmatrix (each warp its 16 rows)
//   sck.zero        a zero accumulator (the m16n8 fragments of its
//                   columns, in the layout wgmma's accumulators have)
//   sck.mma         mma.sync m16n8k16: S = Q K^T with K's fragments by
//                   ldmatrix, O += P V with P from the softmax's registers
//                   and V's by ldmatrix .trans
//   sck.softmax_init, sck.softmax, sck.rescale, sck.normalize
//                   as on Hopper (AttentionSharedPatterns.h)
//   sck.epilogue    O's rows inside the query length stored, two columns
//                   a store
//   tensor.extract  of the index, of the runtime's tables, or of a static
//                   mask's tables (globals of the module)
//
// The kernel's memref arguments say which operand each is (`sck.operand`
// "Q", "K", "V", "O"), all [batch, heads, rows, head dim], contiguous.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernelWriter.h"
#include "AttentionSharedPatterns.h"
#include "KernelBuilder.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::sc::detail;

namespace {

constexpr int64_t kThreads = 128, kRowBytes = 128, kChunkBytes = 16;

/// A box in shared memory: `rows` rows (as stored) of `cols` elements, in
/// parts of 64 columns.
struct BoxLayout {
  int64_t offset = 0, rows = 0, cols = 0;
  /// Its MMA reads it transposed (K: its rows are the keys, B's n).
  bool transposed = false;
  int64_t partBytes() const { return rows * kRowBytes; }
  int64_t bytes() const { return cols / 64 * partBytes(); }
};

/// A ring: its slots from `base`, each of its boxes in turn. `slots` are
/// those laid out: its stages, or one where every put and get is at
/// position 0 (Q's: the others would never be touched).
struct RingLayout {
  int64_t base = 0, stages = 0, slots = 0, slotBytes = 0;
  SmallVector<BoxLayout> boxes;
};

/// Whether every put and get of `ring` is at the constant position 0.
bool onlyAtPositionZero(sck::RingOp ring) {
  return llvm::all_of(ring->getUsers(), [](Operation *user) {
    Value position;
    if (auto put = dyn_cast<sck::PutOp>(user))
      position = put.getPosition();
    else if (auto get = dyn_cast<sck::GetOp>(user))
      position = get.getPosition();
    std::optional<int64_t> at =
        position ? getConstantIntValue(position) : std::nullopt;
    return at && *at == 0;
  });
}

/// What the patterns read, laid out before the conversion.
struct Frame {
  AttentionShape s;
  AttentionStepValues v;
  Value tid, lane, warp, pad;
  llvm::StringMap<Value> operands;
  DenseMap<Value, RingLayout> rings;
  /// Each constant tensor the kernel reads: the module's global.
  DenseMap<Operation *, std::string> globals;
  /// Each softmax step's factors, for the rescale of the same step.
  mutable DenseMap<Value, SoftmaxStep> steps;
  int64_t sharedBytes = 0;
};

struct Emitter : AttentionSteps {
  Emitter(OpBuilder &b, Location loc, const Frame &f)
      : AttentionSteps(b, loc, f.s, f.v), f(f) {}
  using AttentionSteps::ifThen;
  using AttentionSteps::loadQFragments;
  using AttentionSteps::select;
  using KernelArith::add;
  using KernelArith::cmp;
  using KernelArith::div;
  using KernelArith::i32;
  using KernelArith::index;
  using KernelArith::mul;
  using KernelArith::rem;
  using KernelArith::ult;

  /// A shared-memory pointer `offset` bytes past the region's start.
  Value shared(Value offset) {
    Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                               add(f.v.base, offset));
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 3),
                                    address);
  }
  /// The byte offset of 16-byte chunk `chunk` (0 .. 7) of row `row` of a
  /// 64-column part at `part`.
  Value swizzled(Value part, Value row, Value chunk) {
    Value sw = arith::XOrIOp::create(b, loc, chunk, rem(row, index(8)));
    return add(part, add(mul(row, index(kRowBytes)), mul(sw, index(kChunkBytes))));
  }
  /// Registers 4 j .. 4 j + 3 of `acc` (the m16n8 tile j) as a struct.
  Value tileOf(Value acc, int64_t j) {
    Type four = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(4, b.getF32Type()));
    Value t = LLVM::PoisonOp::create(b, loc, four);
    for (int64_t r = 0; r < 4; ++r)
      t = LLVM::InsertValueOp::create(
          b, loc, t, LLVM::ExtractValueOp::create(b, loc, acc, 4 * j + r), r);
    return t;
  }
  Value withTile(Value acc, int64_t j, Value tile) {
    for (int64_t r = 0; r < 4; ++r)
      acc = LLVM::InsertValueOp::create(
          b, loc, acc, LLVM::ExtractValueOp::create(b, loc, tile, r), 4 * j + r);
    return acc;
  }
  const Frame &f;
};

template <typename Op> using MmaSyncPattern = FramePattern<Op, Frame>;

const RingLayout *layoutOf(const Frame &frame, Value ring) {
  auto it = frame.rings.find(ring);
  return it == frame.rings.end() ? nullptr : &it->second;
}

/// Where slot `position` mod stages of a ring lies.
Value slotAt(Emitter &e, const RingLayout &ring, Value position) {
  Value slot = e.rem(position, e.index(ring.stages));
  return e.add(e.f.pad,
               e.add(e.index(ring.base), e.mul(slot, e.index(ring.slotBytes))));
}

struct RingToFrame : MmaSyncPattern<sck::RingOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::RingOp ring, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Emitter e(rewriter, ring.getLoc(), frame);
    rewriter.replaceOp(ring, e.index(layoutOf(frame, ring)->base));
    return success();
  }
};

/// (batch element, query tile, head) from the block ids: candidates of one
/// request run side by side (their keys and values shared in L2).
struct TileLoopToBlocks : MmaSyncPattern<sck::TileLoopOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::TileLoopOp loop, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (loop.getSchedule() != sck::TileSchedule::grid || loop.getCluster() != 1)
      return loop.emitError("sck-to-mma-sync: an attention of the grid walk");
    Location loc = loop.getLoc();
    SmallVector<Value> tile = {
        gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x),
        gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::y),
        gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::z)};
    rewriter.inlineBlockBefore(&loop.getBody().front(), loop, tile);
    rewriter.eraseOp(loop);
    return success();
  }
};

/// Each box's 16-byte chunks by cp.async into the slot, swizzled; one
/// commit group.
struct PutToCpAsync : MmaSyncPattern<sck::PutOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::PutOp put, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const RingLayout *ring = layoutOf(frame, put.getRing());
    if (!ring || !put.getPosition())
      return put.emitError("sck-to-mma-sync: a put at a named position of a "
                           "ring of the frame");
    Location loc = put.getLoc();
    Emitter e(rewriter, loc, frame);
    Value slot = slotAt(e, *ring, adaptor.getPosition());
    for (auto [box, layout] : llvm::zip(put.getBoxes(), ring->boxes)) {
      auto load = box.getDefiningOp<sck::LoadOp>();
      Value source = frame.operands.lookup(load.getOperand());
      if (!source || load.getCoords().size() != 4)
        return load.emitError("sck-to-mma-sync: a box of Q, K or V at [column, "
                              "row, head, batch element]");
      SmallVector<Value> at = llvm::map_to_vector(
          load.getCoords(), [&](Value v) { return rewriter.getRemappedValue(v); });
      Value batches = memref::DimOp::create(rewriter, loc, source, 0);
      Value heads = memref::DimOp::create(rewriter, loc, source, 1);
      Value rows = memref::DimOp::create(rewriter, loc, source, 2);
      Value cols = memref::DimOp::create(rewriter, loc, source, 3);
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc,
                                                                  source);
      Value batchIn = e.ult(at[3], batches);
      Value plane = e.mul(e.add(e.mul(at[3], heads), at[2]), rows);
      int64_t chunksARow = layout.cols / 8;
      int64_t chunks = layout.rows * chunksARow;
      Value boxAt = e.add(slot, e.index(layout.offset));
      for (int64_t i = 0; i < chunks / kThreads; ++i) {
        Value chunk = e.add(frame.tid, e.index(i * kThreads));
        Value r = e.div(chunk, e.index(chunksARow));
        Value cc = e.rem(chunk, e.index(chunksARow));
        Value part = e.add(boxAt, e.mul(e.div(cc, e.index(8)),
                                        e.index(layout.partBytes())));
        Value dst = e.swizzled(part, r, e.rem(cc, e.index(8)));
        Value row = e.add(at[1], r);
        Value valid = arith::AndIOp::create(rewriter, loc, batchIn,
                                            e.ult(row, rows));
        Value element = e.add(e.mul(e.add(plane, row), cols),
                              e.add(at[0], e.mul(cc, e.index(8))));
        Value src = e.add(base, e.mul(element, e.index(2)));
        // A chunk outside reads nothing (source size 0) from a valid address.
        Value from = e.select(valid, src, base);
        Value size = e.select(valid, e.i32(kChunkBytes), e.i32(0));
        Value fromPtr = LLVM::IntToPtrOp::create(
            rewriter, loc, LLVM::LLVMPointerType::get(getContext(), 1),
            arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                       from)
                .getResult());
        NVVM::CpAsyncOp::create(rewriter, loc, e.shared(dst), fromPtr,
                                kChunkBytes, NVVM::LoadCacheModifierKind::CG,
                                size);
      }
    }
    NVVM::CpAsyncCommitGroupOp::create(rewriter, loc);
    erasePutAndItsLoads(rewriter, put);
    return success();
  }
};

/// The ring keeps its puts stages - 1 ahead of its gets (a ring of two a
/// put just before its get): once at most stages - 2 groups are in
/// flight this position's copies have landed; the barrier shows every
/// thread's, and ends every thread's reads of the slot the next put fills.
struct GetToWait : MmaSyncPattern<sck::GetOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::GetOp get, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const RingLayout *ring = layoutOf(frame, get.getRing());
    if (!ring || !get.getPosition())
      return get.emitError("sck-to-mma-sync: a get at a named position of a "
                           "ring of the frame");
    Location loc = get.getLoc();
    NVVM::CpAsyncWaitGroupOp::create(rewriter, loc, ring->stages - 2);
    gpu::BarrierOp::create(rewriter, loc);
    Emitter e(rewriter, loc, frame);
    Value slot = slotAt(e, *ring, adaptor.getPosition());
    SmallVector<Value> boxes;
    for (const BoxLayout &box : ring->boxes)
      boxes.push_back(e.add(slot, e.index(box.offset)));
    rewriter.replaceOp(get, boxes);
    return success();
  }
};

struct LoadFragToLdmatrix : MmaSyncPattern<sck::LoadFragOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::LoadFragOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    sck::BoxType box = op.getBox().getType();
    if (box.getShape() != ArrayRef<int64_t>{64, 64})
      return op.emitError("sck-to-mma-sync: registers of a 64 x 64 box");
    Emitter e(rewriter, op.getLoc(), frame);
    rewriter.replaceOpWithMultiple(
        op, {e.loadQFragments(adaptor.getBox(), /*steps=*/4)});
    return success();
  }
};

struct ZeroToZero : MmaSyncPattern<sck::ZeroOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ZeroOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::ZeroOp>(op, type);
    return success();
  }
};

/// mma.sync m16n8k16 over a warp's 16 rows: S = Q K^T (K's fragments by
/// ldmatrix from its [keys][64 columns] box) or O += P V (V's by ldmatrix
/// .trans from its [keys][head dim] box).
struct MmaToMmaSync : MmaSyncPattern<sck::MmaOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::MmaOp mma, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (mma.getABox())
      return mma.emitError("sck-to-mma-sync: an MMA of A in registers");
    Location loc = mma.getLoc();
    Emitter e(rewriter, loc, frame);
    sck::BoxType bType = mma.getB().getType();
    auto got = mma.getB().getDefiningOp<sck::GetOp>();
    const RingLayout *ring = got ? layoutOf(frame, got.getRing()) : nullptr;
    if (!ring)
      return mma.emitError("sck-to-mma-sync: an MMA of a box got from a ring");
    // K is read transposed (Q K^T), V as it is (P V).
    bool keys =
        ring->boxes[cast<OpResult>(mma.getB()).getResultNumber()].transposed;
    Value bAt = adaptor.getB().front();
    SmallVector<Value> a(adaptor.getA());
    Value acc = adaptor.getAcc().front();
    Value q = e.div(frame.lane, e.index(8)), r8 = e.rem(frame.lane, e.index(8));
    Type element = frame.s.elementType;
    if (keys) {
      // S (64 x keys) += Q chunk (64 x 64) K^T: B's k is the head dim
      // (the box's columns), its n the keys (the box's rows).
      for (int64_t ks = 0; ks < 4; ++ks)
        for (int64_t ng = 0; ng < frame.s.blockN / 16; ++ng) {
          Value n = e.add(e.index(16 * ng), e.add(e.mul(e.div(q, e.index(2)),
                                                        e.index(8)),
                                                  r8));
          Value chunk = e.add(e.index(2 * ks), e.rem(q, e.index(2)));
          SmallVector<Value> regs = loadMatrixX4(
              rewriter, loc, e.shared(e.swizzled(bAt, n, chunk)),
              /*transposed=*/false);
          for (int64_t half = 0; half < 2; ++half) {
            int64_t j = 2 * ng + half;
            Value tile = mmaSyncM16N8K16(
                rewriter, loc, element, ArrayRef<Value>(a).slice(4 * ks, 4),
                {regs[2 * half], regs[2 * half + 1]}, e.tileOf(acc, j));
            acc = e.withTile(acc, j, tile);
          }
        }
    } else {
      // O (64 x head dim) += P (64 x keys) V: B's k is the keys (the box's
      // rows), its n the head dim (its columns, in 64-column parts).
      int64_t rows = bType.getShape()[0];
      for (int64_t ks = 0; ks < rows / 16; ++ks)
        for (int64_t ng = 0; ng < frame.s.headDim / 16; ++ng) {
          Value key = e.add(e.index(16 * ks),
                            e.add(e.mul(e.rem(q, e.index(2)), e.index(8)), r8));
          Value part = e.add(bAt, e.index(16 * ng / 64 * rows * kRowBytes));
          Value chunk = e.add(e.index((16 * ng % 64) / 8), e.div(q, e.index(2)));
          SmallVector<Value> regs = loadMatrixX4(
              rewriter, loc, e.shared(e.swizzled(part, key, chunk)),
              /*transposed=*/true);
          for (int64_t half = 0; half < 2; ++half) {
            int64_t j = 2 * ng + half;
            Value tile = mmaSyncM16N8K16(
                rewriter, loc, element, ArrayRef<Value>(a).slice(4 * ks, 4),
                {regs[2 * half], regs[2 * half + 1]}, e.tileOf(acc, j));
            acc = e.withTile(acc, j, tile);
          }
        }
    }
    rewriter.replaceOpWithMultiple(mma, {{acc}});
    return success();
  }
};

/// O's rows of this thread (r and r + 8 of its warp's 16) inside the query
/// length, two columns a store.
struct EpilogueToStores : MmaSyncPattern<sck::EpilogueOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::EpilogueOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (op.getResult() != "O" || !op.getBody().empty() || op.getTransposed() ||
        op.getCoords().size() != 4)
      return op.emitError("sck-to-mma-sync: the attention's O stored as it is");
    Location loc = op.getLoc();
    Emitter e(rewriter, loc, frame);
    Value out = frame.operands.lookup("O");
    SmallVector<Value> at;
    for (ValueRange c : adaptor.getCoords())
      at.push_back(c.front());
    Value rows = memref::DimOp::create(rewriter, loc, out, 2);
    Value acc = adaptor.getAcc().front();
    Value row0 = e.add(at[1], e.add(e.mul(frame.warp, e.index(16)),
                                    e.div(frame.lane, e.index(4))));
    Value col0 = e.add(at[0], frame.v.q2);
    for (int64_t half = 0; half < 2; ++half) {
      Value row = e.add(row0, e.index(8 * half));
      e.ifThen(e.ult(row, rows), [&] {
        for (int64_t j = 0; j < frame.s.headDim / 8; ++j)
          for (int64_t c = 0; c < 2; ++c) {
            Value x = LLVM::ExtractValueOp::create(rewriter, loc, acc,
                                                   4 * j + 2 * half + c);
            Value y = arith::TruncFOp::create(rewriter, loc,
                                              frame.s.elementType, x);
            memref::StoreOp::create(
                rewriter, loc, y, out,
                ValueRange{at[3], at[2], row,
                           e.add(col0, e.index(8 * j + c))});
          }
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The rings' layouts (from their puts' loads), shared memory, the
/// thread's place in the fragments, the tables as globals.
FailureOr<Frame> buildFrame(gpu::GPUFuncOp func, const AttentionShape &shape,
                            Value keyLen) {
  MLIRContext *ctx = func.getContext();
  Frame f;
  f.s = shape;
  for (StringRef name : {"Q", "K", "V", "O"}) {
    Value arg = namedKernelArgument(func, name);
    if (!arg || cast<MemRefType>(arg.getType()).getRank() != 4)
      return func.emitError("sck-to-mma-sync: an attention kernel of 4-D "
                            "memref arguments Q, K, V and O");
    f.operands[name] = arg;
  }
  int64_t offset = 0;
  for (auto ring : func.getBody().getOps<sck::RingOp>()) {
    sck::PutOp put;
    for (Operation *user : ring->getUsers())
      if (auto p = dyn_cast<sck::PutOp>(user); p && p.getPosition())
        put = p;
    if (!put || ring.getStages() < 2)
      return ring.emitError("sck-to-mma-sync: a ring of its stages, put at "
                            "named positions (sc-pipeline-multistage)");
    RingLayout layout;
    layout.base = offset;
    layout.stages = ring.getStages();
    layout.slots = onlyAtPositionZero(ring) ? 1 : layout.stages;
    for (Value box : put.getBoxes()) {
      auto load = box.getDefiningOp<sck::LoadOp>();
      if (!load)
        return put.emitError("sck-to-mma-sync: a put of loaded boxes");
      ArrayRef<int64_t> boxShape = load.getType().getShape();
      BoxLayout b;
      b.rows = load.getTransposed() ? boxShape[1] : boxShape[0];
      b.cols = load.getTransposed() ? boxShape[0] : boxShape[1];
      if (b.cols % 64 != 0 || b.rows % 8 != 0 ||
          load.getType().getElementType().getIntOrFloatBitWidth() != 16)
        return load.emitError("sck-to-mma-sync: boxes of 16-bit elements in "
                              "rows of 64-column parts");
      b.transposed = load.getTransposed();
      b.offset = layout.slotBytes;
      layout.slotBytes += b.bytes();
      layout.boxes.push_back(b);
    }
    offset += layout.slots * layout.slotBytes;
    f.rings[ring.getResult()] = layout;
  }
  if (f.rings.size() != 2)
    return func.emitError("sck-to-mma-sync: an attention kernel of a Q and "
                          "a K/V ring (run sc-pipeline-multistage)");
  f.sharedBytes = offset + 1024;
  // Puts past the last block still in flight land before the CTA ends.
  {
    OpBuilder end(func.getBody().front().getTerminator());
    NVVM::CpAsyncWaitGroupOp::create(end, func.getLoc(), 0);
  }

  Block &entry = func.getBody().front();
  OpBuilder b(&entry, entry.begin());
  Location loc = func.getLoc();
  struct Arith : KernelArith {
    Arith(OpBuilder &b, Location loc) : KernelArith(b, loc) {}
    using KernelArith::add, KernelArith::div, KernelArith::index,
        KernelArith::mul, KernelArith::rem, KernelArith::sub;
  } a(b, loc);
  f.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  f.lane = a.rem(f.tid, a.index(32));
  f.warp = a.div(f.tid, a.index(32));
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem);
  // The rings from a 1024-byte boundary: the swizzle repeats every 8 rows.
  f.pad = a.rem(a.sub(a.index(1024), a.rem(base, a.index(1024))), a.index(1024));
  f.v.base = base;
  // This lane's rows of ldmatrix's four matrices over its warp's 16 rows
  // and its column pair of the m16n8 fragments (AttentionSteps).
  Value lmM = a.div(f.lane, a.index(8));
  Value lmRow = a.add(a.add(a.mul(f.warp, a.index(16)), a.rem(f.lane, a.index(8))),
                      a.mul(a.rem(lmM, a.index(2)), a.index(8)));
  f.v.lmHi = a.div(lmM, a.index(2));
  f.v.lmRowB = a.mul(lmRow, a.index(kRowBytes));
  f.v.lmSw = a.rem(lmRow, a.index(8));
  f.v.q2 = a.mul(a.rem(f.lane, a.index(4)), a.index(2));
  f.v.keyLen = keyLen;
  auto f32 = [&](double v) {
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                          APFloat(static_cast<float>(v)))
        .getResult();
  };
  f.v.negInf = f32(-std::numeric_limits<double>::infinity());
  f.v.scale2 = f32(shape.scale2);
  f.v.lazyBound = f32(8.0);
  f.v.zeroF = f32(0.0);
  auto f32Struct = [&](int64_t n) -> Type {
    return LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(n, Float32Type::get(ctx)));
  };
  f.v.accS = f32Struct(shape.blockN / 2);
  f.v.accO = f32Struct(shape.headDim / 2);
  // Constant tables (a static mask's) as globals of the module.
  f.globals = attentionTableGlobals(func);
  return f;
}

} // namespace

FailureOr<int64_t> mlir::sc::detail::convertAttentionSckToMmaSync(
    gpu::GPUFuncOp kernel, const AttentionShape &shape, Value keyLen) {
  MLIRContext *ctx = kernel.getContext();
  FailureOr<Frame> frame = buildFrame(kernel, shape, keyLen);
  if (failed(frame))
    return failure();
  TypeConverter converter;
  addAttentionTypeConversions(converter);
  ConversionTarget target(*ctx);
  addKernelConversionLegality(target);
  addAttentionTableLegality(target);
  RewritePatternSet patterns(ctx);
  patterns.add<RingToFrame, TileLoopToBlocks, PutToCpAsync, GetToWait,
               LoadFragToLdmatrix, ZeroToZero, MmaToMmaSync, EpilogueToStores>(converter, ctx, *frame);
  populateAttentionSharedPatterns(converter, patterns, *frame);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  if (failed(applyKernelConversion(kernel, target, std::move(patterns),
                                   /*cse=*/false)))
    return failure();
  return frame->sharedBytes;
}
