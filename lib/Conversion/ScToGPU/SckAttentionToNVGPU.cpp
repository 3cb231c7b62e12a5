//===- SckAttentionToNVGPU.cpp - an attention kernel's ops, a pattern per op //
//
// The attention half of sc-convert-sck-to-nvgpu: the kernel-level IR of a
// warp-specialized attention (the grid or the chained walk), scheduled by
// sc-schedule-attention, in a gpu.func, each sck op lowered by a pattern of
// its own onto a frame laid out first (the tensor maps, the thread's place,
// shared memory, the mbarriers). The steps are AttentionSteps' (the same
// code the writer emits):
//
//   sck.ring          the frame's: a Q slot per consumer (64 rows x head
//                     dim, later O's staging tile), then key/value slots,
//                     each a K tile then a V tile; full / empty mbarriers
//   sck.role          a warpgroup's branch and its setmaxnreg (the
//                     producer: its first thread)
//   sck.tile_loop     the CTA's tile from its block ids (a static mask's
//                     query blocks heaviest first)
//   sck.walk_size /   a chained walk's share of the CTA: candidate tiles
//   sck.walk_tile     c, c + C, ..., each head by head
//   sck.tile_index    0 (one tile a CTA); sck.consumer_index the warpgroup
//   sck.put           wait for the slot's empty barrier, expect its bytes,
//                     TMA loads of its boxes
//   sck.get           wait for its full barrier: the boxes' offsets
//   sck.release       lane 0 of each consumer warp on the empty barrier
//   sck.discard       the wait, then the release
//   sck.load_frag     ldmatrix of Q's A fragments
//   sck.zero          a zero accumulator
//   sck.mma           wgmma (A from registers or shared memory), a fence
//                     before a run of MMAs, a commit after each chain
//   sck.mma_wait      wgmma.wait_group (with 0: the register A operands of
//                     the MMAs it completes kept alive until then)
//   sck.await_turn /  named barriers 3 + w (wait) and 4 - w (arrive)
//   sck.pass_turn
//   sck.softmax_init  the running maxima (-1e30) and sums (0)
//   sck.softmax       the online softmax step (P as wgmma A fragments)
//   sck.rescale       O times alpha where a row of the warp moved
//   sck.normalize     O times the inverse row sums
//   sck.epilogue      O staged by stmatrix in the consumer's Q slot (a
//                     chained walk's: a staging tile of its own, once the
//                     store before has read it), TMA stores
//
//===----------------------------------------------------------------------===//

#include "AttentionKernelWriter.h"
#include "AttentionSharedPatterns.h"
#include "KernelBuilder.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::sc::detail;

namespace {

constexpr int64_t kWaitTicks = 10000000;

/// The kinds of the scheduled attention's rings.
enum class RingKind { Q, K, V };

/// What the patterns read: the kernel's shape, the CTA's values, the rings.
struct AttentionFrame {
  AttentionShape s;
  AttentionStepValues v;
  Value tid, w, smem, pad, lane, laneZero, elected;
  Value tmaQ, tmaK, tmaV, tmaO;
  /// Per ring kind its full and empty barriers (a slot each).
  Value qFull, qEmpty, full, fullV, empty, emptyV;
  DenseMap<Value, RingKind> rings;
  /// A static mask's query blocks, heaviest first (a global of the module).
  std::string orderTable;
  /// Each softmax step's factors, for the rescale of the same step.
  mutable DenseMap<Value, SoftmaxStep> steps;
  /// Each lowered MMA's registers of P (kept until a wait completes it).
  mutable DenseMap<Operation *, SmallVector<Value>> registerA;
  /// Each constant tensor the kernel reads: the module's global.
  DenseMap<Operation *, std::string> globals;

  int64_t slots(RingKind kind) const {
    return kind == RingKind::Q ? s.consumers : s.stages;
  }
};

/// The patterns' builder of AttentionSteps at their point.
struct Emitter : AttentionSteps {
  Emitter(OpBuilder &b, Location loc, const AttentionFrame &f)
      : AttentionSteps(b, loc, f.s, f.v), f(f) {}
  using AttentionSteps::andi;
  using AttentionSteps::boolean;
  using AttentionSteps::f32;
  using AttentionSteps::ifThen;
  using AttentionSteps::namedBarrier;
  using AttentionSteps::warpSync;
  using KernelArith::add;
  using KernelArith::cmp;
  using KernelArith::i32;
  using KernelArith::index;
  using KernelArith::mul;
  using KernelArith::rem;
  using KernelArith::ringSlotAndParity;
  using KernelArith::sub;

  Value toI32(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  }
  /// Where slot `slot` of a ring of kind `kind` lies (its first box).
  Value slotAt(RingKind kind, Value slot) {
    switch (kind) {
    case RingKind::Q:
      return add(f.pad, mul(slot, index(s.qBytes)));
    case RingKind::K:
      return add(add(f.pad, index(s.ringOff)), mul(slot, index(s.slotBytes)));
    case RingKind::V:
      return add(slotAt(RingKind::K, slot), index(s.kBytes));
    }
    llvm_unreachable("a ring kind");
  }
  /// The byte offset of box `i` of a slot at `at`.
  Value boxAt(RingKind kind, Value at, int64_t i) {
    int64_t bytes = kind == RingKind::K ? s.blockN * 128 : 8192;
    return add(at, index(i * bytes));
  }
  Value fullOf(RingKind kind) {
    return kind == RingKind::Q ? f.qFull : kind == RingKind::K ? f.full : f.fullV;
  }
  Value emptyOf(RingKind kind) {
    return kind == RingKind::Q ? f.qEmpty
           : kind == RingKind::K ? f.empty
                                 : f.emptyV;
  }
  void wait(Value barriers, Value slot, Value parity) {
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity,
                                           index(kWaitTicks), slot);
  }
  /// Lane 0 of each warp arrives on `barriers[slot]`, behind a branch, at
  /// an address every lane computed before it. The branch keeps ptxas from
  /// hoisting the wait for all MMAs above the softmax it overlaps (it did
  /// for predicated arrives: P V serialized with the softmax); an address
  /// computed in the branch is rebuilt there from the CTA id and the
  /// release issued ~70 instructions late. (The copy through inline PTX
  /// keeps LLVM from sinking the address into the branch.)
  void laneZeroArrive(Value barriers, Value slot) {
    Value address = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(),
                                                 barriers, slot);
    Value held = NVVM::InlinePtxOp::create(b, loc, TypeRange{b.getI32Type()},
                                           ValueRange{address}, ValueRange(),
                                           "mov.b32 $0, $1;", Value())
                     .getResult(0);
    ifThen(f.laneZero, [&] {
      NVVM::InlinePtxOp::create(b, loc, TypeRange(), ValueRange{held},
                                ValueRange(),
                                "mbarrier.arrive.shared::cta.b64 _, [$0];",
                                Value());
    });
  }
  const AttentionFrame &f;
};

template <typename Op> using AttentionPattern = FramePattern<Op, AttentionFrame>;

/// The frame's ring of `ring` (an sck.ring result), if any.
std::optional<RingKind> kindOf(const AttentionFrame &frame, Value ring) {
  auto it = frame.rings.find(ring);
  if (it == frame.rings.end())
    return std::nullopt;
  return it->second;
}

struct RingToFrame : AttentionPattern<sck::RingOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::RingOp ring, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    rewriter.replaceOp(ring, frame.pad);
    return success();
  }
};

/// A role: its warpgroups' branch and register budget (the producer's
/// loads issued by its first thread, after its tensor maps are
/// prefetched).
struct RoleToWarpgroup : AttentionPattern<sck::RoleOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::RoleOp role, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = role.getLoc();
    Emitter e(rewriter, loc, frame);
    bool producer = role.getKind() == sck::RoleKind::producer;
    Value consumers = e.index(frame.s.consumers);
    Value cond = e.cmp(producer ? arith::CmpIPredicate::eq
                                : arith::CmpIPredicate::ne,
                       frame.w, consumers);
    auto ifRole = scf::IfOp::create(rewriter, loc, cond, false);
    rewriter.setInsertionPointToStart(&ifRole.getThenRegion().front());
    NVVM::SetMaxRegisterOp::create(rewriter, loc, role.getRegs(),
                                   producer
                                       ? NVVM::SetMaxRegisterAction::decrease
                                       : NVVM::SetMaxRegisterAction::increase);
    Operation *end = ifRole.getThenRegion().front().getTerminator();
    if (producer) {
      Value first = e.cmp(arith::CmpIPredicate::eq, frame.tid,
                          e.mul(consumers, e.index(128)));
      auto ifFirst = scf::IfOp::create(rewriter, loc, first, false);
      rewriter.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      for (Value map : {frame.tmaK, frame.tmaV, frame.tmaO})
        nvgpu::TmaPrefetchOp::create(rewriter, loc, map, Value());
      end = ifFirst.getThenRegion().front().getTerminator();
    }
    rewriter.inlineBlockBefore(&role.getBody().front(), end);
    if (!producer && frame.s.chained) {
      // The last O's TMA stores have read their staging tile.
      rewriter.setInsertionPoint(end);
      e.ifThen(frame.elected, [&] {
        NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, 0,
                                             rewriter.getUnitAttr());
      });
    }
    rewriter.eraseOp(role);
    return success();
  }
};

/// The chained walk: CTA c of C runs candidate tiles c, c + C, ... of the
/// T = batches x M tiles, each head by head: (T + C - 1 - c) / C tiles of
/// heads each.
struct WalkSizeToShare : AttentionPattern<sck::WalkSizeOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::WalkSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = op.getLoc();
    Emitter e(rewriter, loc, frame);
    Value cta = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value ctas = gpu::GridDimOp::create(rewriter, loc, gpu::Dimension::x);
    Value tiles = e.mul(adaptor.getBatches(), adaptor.getMTiles());
    Value mine = arith::DivUIOp::create(
        rewriter, loc,
        e.sub(e.sub(e.add(tiles, ctas), e.index(1)), cta), ctas);
    rewriter.replaceOp(op, e.mul(mine, adaptor.getNTiles()));
    return success();
  }
};

/// Tile i of the CTA's chained walk: candidate tile c + C (i / heads) (x
/// fastest: the batch element, or with grouped candidates its place in the
/// order, which the IR reads), head i % heads.
struct WalkTileToItem : AttentionPattern<sck::WalkTileOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::WalkTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = op.getLoc();
    Emitter e(rewriter, loc, frame);
    Value cta = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value ctas = gpu::GridDimOp::create(rewriter, loc, gpu::Dimension::x);
    Value heads = adaptor.getNTiles();
    Value i = adaptor.getIndex();
    Value tile = e.add(cta, e.mul(arith::DivUIOp::create(rewriter, loc, i, heads),
                                  ctas));
    Value x = e.rem(tile, adaptor.getBatches());
    Value y = arith::DivUIOp::create(rewriter, loc, tile, adaptor.getBatches());
    rewriter.replaceOp(op, {x, y, e.rem(i, heads)});
    return success();
  }
};

/// One tile a CTA: (batch element, query tile, head) from its block ids.
struct TileLoopToBlockIds : AttentionPattern<sck::TileLoopOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::TileLoopOp loop, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (loop.getSchedule() != sck::TileSchedule::grid)
      return loop.emitError("sck-to-nvgpu: an attention of the grid walk");
    Location loc = loop.getLoc();
    Value x = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value y = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::y);
    Value z = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::z);
    if (!frame.orderTable.empty()) {
      // Heaviest query blocks first: the CTAs that start last, and set the
      // kernel's tail, are the lightest.
      auto type = MemRefType::get(
          {static_cast<int64_t>(frame.s.order.size())}, rewriter.getI32Type());
      Value table = memref::GetGlobalOp::create(rewriter, loc, type,
                                                frame.orderTable);
      y = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          memref::LoadOp::create(rewriter, loc, table, ValueRange{y}));
    }
    rewriter.inlineBlockBefore(&loop.getBody().front(), loop,
                               ValueRange{x, y, z});
    rewriter.eraseOp(loop);
    return success();
  }
};

struct TileIndexToZero : AttentionPattern<sck::TileIndexOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::TileIndexOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(op, 0);
    return success();
  }
};

struct ConsumerIndexToWarpgroup : AttentionPattern<sck::ConsumerIndexOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ConsumerIndexOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    rewriter.replaceOp(op, frame.w);
    return success();
  }
};

/// The slot of ring position `position` free, its bytes expected, the TMA
/// loads of its boxes (64-column chunks of the head dim; V's 64-row boxes
/// in (block, chunk) order).
struct PutToTmaLoads : AttentionPattern<sck::PutOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::PutOp put, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    std::optional<RingKind> kind = kindOf(frame, put.getRing());
    if (!kind || !put.getPosition())
      return put.emitError("sck-to-nvgpu: an attention put at a position of "
                           "the Q, K or V ring (run sc-schedule-attention)");
    Location loc = put.getLoc();
    Emitter e(rewriter, loc, frame);
    const AttentionShape &s = frame.s;
    auto [freeSlot, parity] =
        e.ringSlotAndParity(adaptor.getPosition(), frame.slots(*kind), true);
    Value slot = freeSlot;
    e.wait(e.emptyOf(*kind), slot, parity);
    int64_t bytes = *kind == RingKind::Q ? s.qBytes : s.kBytes;
    nvgpu::MBarrierArriveExpectTxOp::create(rewriter, loc, e.fullOf(*kind),
                                            e.index(bytes), slot, Value());
    Value at = e.slotAt(*kind, slot);
    auto workgroup =
        gpu::AddressSpaceAttr::get(getContext(), gpu::AddressSpace::Workgroup);
    Value map = *kind == RingKind::Q   ? frame.tmaQ
                : *kind == RingKind::K ? frame.tmaK
                                       : frame.tmaV;
    auto load = [&](Value dst, int64_t rows, ArrayRef<Value> coords) {
      auto view = MemRefType::get({1, 1, rows, 64}, s.elementType,
                                  MemRefLayoutAttrInterface(), workgroup);
      Value box = memref::ViewOp::create(rewriter, loc, view, frame.smem, dst,
                                         ValueRange());
      nvgpu::TmaAsyncLoadOp::create(rewriter, loc, box, e.fullOf(*kind), map,
                                    coords, slot, Value(), Value());
    };
    for (auto [i, boxValue] : llvm::enumerate(put.getBoxes())) {
      auto boxLoad = boxValue.getDefiningOp<sck::LoadOp>();
      if (!boxLoad)
        return put.emitError("sck-to-nvgpu: a put of loaded boxes");
      SmallVector<Value> coords = llvm::map_to_vector(
          boxLoad.getCoords(),
          [&](Value c) { return rewriter.getRemappedValue(c); });
      if (*kind != RingKind::V) {
        load(e.boxAt(*kind, at, i), *kind == RingKind::K ? s.blockN : 64,
             coords);
        continue;
      }
      // V [keys, head dim]: 64-row boxes of each 64-column chunk.
      for (int64_t c = 0; c < s.dChunks(); ++c)
        for (int64_t j = 0; j < s.blockN / 64; ++j) {
          SmallVector<Value> part = coords;
          part[0] = e.add(part[0], e.index(c * 64));
          part[1] = e.add(part[1], e.index(j * 64));
          load(e.add(at, e.index((j * s.dChunks() + c) * 8192)), 64, part);
        }
    }
    erasePutAndItsLoads(rewriter, put);
    return success();
  }
};

/// The slot of ring position `position` once full: its boxes' offsets.
struct GetToFullWait : AttentionPattern<sck::GetOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::GetOp get, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    std::optional<RingKind> kind = kindOf(frame, get.getRing());
    if (!kind || !get.getPosition())
      return get.emitError("sck-to-nvgpu: an attention get at a position of "
                           "the Q, K or V ring (run sc-schedule-attention)");
    Emitter e(rewriter, get.getLoc(), frame);
    auto [slot, parity] =
        e.ringSlotAndParity(adaptor.getPosition(), frame.slots(*kind), false);
    e.wait(e.fullOf(*kind), slot, parity);
    Value at = e.slotAt(*kind, slot);
    SmallVector<Value> boxes;
    for (int64_t i = 0; i < static_cast<int64_t>(get.getNumResults()); ++i)
      boxes.push_back(e.boxAt(*kind, at, i));
    rewriter.replaceOp(get, boxes);
    return success();
  }
};

/// Lane 0 of each consumer warp arrives on the slot's empty barrier
/// (`discard`: once the slot is full).
template <typename Op>
struct FreeToArrive : AttentionPattern<Op> {
  using AttentionPattern<Op>::AttentionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const AttentionFrame &frame = this->frame;
    std::optional<RingKind> kind = kindOf(frame, op.getRing());
    if (!kind || !op.getPosition())
      return op.emitError("sck-to-nvgpu: an attention slot freed at a "
                          "position of the Q, K or V ring");
    Emitter e(rewriter, op.getLoc(), frame);
    auto [slot, parity] =
        e.ringSlotAndParity(adaptor.getPosition(), frame.slots(*kind), false);
    if constexpr (std::is_same_v<Op, sck::DiscardOp>)
      e.wait(e.fullOf(*kind), slot, parity);
    e.laneZeroArrive(e.emptyOf(*kind), slot);
    // (The warp meets before its next wait: lanes 1-31 must not spin ahead
    // on a later slot while lane 0 frees this one.)
    if constexpr (std::is_same_v<Op, sck::DiscardOp>)
      e.warpSync();
    rewriter.eraseOp(op);
    return success();
  }
};

/// Q's A fragments by ldmatrix (4 registers a k16 step).
struct LoadFragToLdmatrix : AttentionPattern<sck::LoadFragOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::LoadFragOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (op.getBox().getType().getShape() != ArrayRef<int64_t>{64, 64})
      return op.emitError("sck-to-nvgpu: Q read into registers a 64 x 64 "
                          "box at a time");
    Emitter e(rewriter, op.getLoc(), frame);
    // One 64-column chunk: 4 k16 steps.
    rewriter.replaceOpWithMultiple(
        op, {e.loadQFragments(adaptor.getBox().front(), /*steps=*/4)});
    return success();
  }
};

/// Whether `mma` multiplies by a K box (Q K^T).
bool multipliesKeys(const AttentionFrame &frame, sck::MmaOp mma) {
  auto got = mma.getB().getDefiningOp<sck::GetOp>();
  return got && kindOf(frame, got.getRing()) == RingKind::K;
}

/// A zero accumulator; undefined where only Q K^T chains start from it
/// (their first wgmma ignores it: 64 registers not zeroed each block).
struct ZeroToZero : AttentionPattern<sck::ZeroOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ZeroOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Type type = getTypeConverter()->convertType(op.getType());
    bool chainStart = llvm::all_of(op->getUses(), [&](OpOperand &use) {
      auto mma = dyn_cast<sck::MmaOp>(use.getOwner());
      return mma && use.get() == mma.getAcc() && multipliesKeys(frame, mma);
    });
    if (chainStart)
      rewriter.replaceOpWithNewOp<LLVM::UndefOp>(op, type);
    else
      rewriter.replaceOpWithNewOp<LLVM::ZeroOp>(op, type);
    return success();
  }
};

/// Whether the op before `op` in its block is an sck.mma (a run of MMAs
/// issued back to back takes one fence).
bool followsMma(Operation *op) {
  Operation *before = op->getPrevNode();
  return before && isa<sck::MmaOp>(before);
}

/// wgmma: Q K^T (B a K box, read K-major) or P V (B a V box, read
/// N-major); A from registers or from its box. A chain of MMAs on one
/// accumulator is one group (committed after its last).
struct MmaToWgmma : AttentionPattern<sck::MmaOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::MmaOp mma, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    auto got = mma.getB().getDefiningOp<sck::GetOp>();
    std::optional<RingKind> kind =
        got ? kindOf(frame, got.getRing()) : std::nullopt;
    if (!kind || *kind == RingKind::Q)
      return mma.emitError("sck-to-nvgpu: an attention MMA of a K or V box");
    Location loc = mma.getLoc();
    Emitter e(rewriter, loc, frame);
    Value acc = adaptor.getAcc().front();
    bool fresh = static_cast<bool>(mma.getAcc().getDefiningOp<sck::ZeroOp>());
    // A box's descriptor where the box is got (before the turn's wait and
    // the fence: the other consumer waits on the MMAs between them).
    auto descriptorOf = [&](Value offset) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfterValue(offset);
      return e.descriptor(offset);
    };
    Value bDesc = descriptorOf(adaptor.getB().front());
    if (!followsMma(mma))
      NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    Value out;
    if (*kind == RingKind::K) {
      // One 64-column chunk of the head dim: 4 k16 steps.
      ValueRange a = adaptor.getA();
      SmallVector<Value> fragments;
      Value aDesc;
      if (mma.getABox())
        aDesc = descriptorOf(a.front());
      else
        fragments.assign(a.begin(), a.end());
      out = e.qkChunk(fragments, aDesc, bDesc, acc, fresh);
    } else {
      if (mma.getABox())
        return mma.emitError("sck-to-nvgpu: P V with P in registers");
      SmallVector<Value> p(adaptor.getA());
      out = e.pv(p, acc, bDesc);
      frame.registerA[mma] = p;
    }
    // The group ends with its chain.
    Operation *next = mma->getNextNode();
    auto nextMma = dyn_cast_or_null<sck::MmaOp>(next);
    if (!nextMma || nextMma.getAcc() != mma.getResult())
      NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    rewriter.replaceOpWithMultiple(mma, {{out}});
    return success();
  }
};

/// wgmma.wait_group; a wait for all also keeps the register A operands of
/// the MMAs it completes (those since the wait before) alive until then:
/// an MMA in flight reads them.
struct MmaWaitKeepingP : AttentionPattern<sck::MmaWaitOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::MmaWaitOp wait, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Emitter e(rewriter, wait.getLoc(), frame);
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, wait.getLoc(),
                                       wait.getPending());
    if (wait.getPending() == 0) {
      SmallVector<Value> kept;
      for (Operation *op = wait->getPrevNode(); op; op = op->getPrevNode()) {
        auto before = dyn_cast<sck::MmaWaitOp>(op);
        if (before && before.getPending() == 0)
          break;
        auto it = frame.registerA.find(op);
        if (it != frame.registerA.end())
          llvm::append_range(kept, it->second);
      }
      if (!kept.empty())
        e.keepP(kept);
    }
    rewriter.eraseOp(wait);
    return success();
  }
};

template <typename TurnOp>
struct TurnToNamedBarrier : AttentionPattern<TurnOp> {
  using AttentionPattern<TurnOp>::AttentionPattern;
  LogicalResult
  matchAndRewrite(TurnOp op, typename TurnOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = op.getLoc();
    Emitter e(rewriter, loc, this->frame);
    Value w = this->frame.w;
    Value count = e.i32(256);
    if constexpr (std::is_same_v<TurnOp, sck::AwaitTurnOp>) {
      e.namedBarrier(e.toI32(e.add(e.index(3), w)), count);
    } else {
      Value his = e.toI32(e.sub(e.index(4), w));
      NVVM::BarrierArriveOp::create(rewriter, loc, his, count);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// O into the consumer's staging tile (its Q slot, free since Q is in
/// registers or was last read), then out by TMA from its elected thread.
struct EpilogueToTmaStores : AttentionPattern<sck::EpilogueOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::EpilogueOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (op.getResult() != "O" || !op.getBody().empty() || op.getTransposed())
      return op.emitError("sck-to-nvgpu: the attention's O stored as it is");
    Location loc = op.getLoc();
    Emitter e(rewriter, loc, frame);
    const AttentionShape &s = frame.s;
    // One tile a CTA: O staged in the consumer's Q slot (Q is dead). A
    // chained walk refills that slot with the next tile's Q: O has a
    // staging tile of its own, once TMA has read the tile before's out of
    // it (the consumer waits for the last one's reads before it leaves).
    Value at = e.slotAt(RingKind::Q, frame.w);
    if (s.chained) {
      at = e.add(frame.pad, e.add(e.index(s.oStageOff),
                                  e.mul(frame.w, e.index(s.qBytes))));
      e.ifThen(frame.elected, [&] {
        NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, 0,
                                             rewriter.getUnitAttr());
      });
    }
    e.stage(adaptor.getAcc().front(), at);
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(getContext(), NVVM::SharedSpace::shared_cta));
    e.namedBarrier(frame.v.wgBar, e.i32(128));
    SmallVector<Value> coords;
    for (ValueRange c : adaptor.getCoords())
      coords.push_back(c.front());
    e.ifThen(frame.elected, [&] {
      auto workgroup = gpu::AddressSpaceAttr::get(getContext(),
                                                  gpu::AddressSpace::Workgroup);
      auto view = MemRefType::get({1, 1, 64, 64}, s.elementType,
                                  MemRefLayoutAttrInterface(), workgroup);
      for (int64_t c = 0; c < s.dChunks(); ++c) {
        Value box = memref::ViewOp::create(rewriter, loc, view, frame.smem,
                                           e.add(at, e.index(c * 8192)),
                                           ValueRange());
        SmallVector<Value> part = coords;
        part[0] = e.add(part[0], e.index(c * 64));
        nvgpu::TmaAsyncStoreOp::create(rewriter, loc, box, frame.tmaO, part,
                                       Value());
      }
      NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
      // The staging tile must outlive the stores' reads of it: the CTA
      // may leave once they are read.
      if (!s.chained)
        NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, 0,
                                             rewriter.getUnitAttr());
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// The frame
//===----------------------------------------------------------------------===//

namespace {

/// The operand a ring's puts load ("Q", "K" or "V").
std::optional<RingKind> ringKindOf(sck::RingOp ring) {
  for (Operation *user : ring->getUsers()) {
    auto put = dyn_cast<sck::PutOp>(user);
    if (!put || put.getBoxes().empty())
      continue;
    auto load = put.getBoxes().front().getDefiningOp<sck::LoadOp>();
    if (!load)
      return std::nullopt;
    StringRef name = load.getOperand();
    if (name == "Q")
      return RingKind::Q;
    if (name == "K")
      return RingKind::K;
    if (name == "V")
      return RingKind::V;
  }
  return std::nullopt;
}

/// At the kernel's start: the tensor maps, the thread's place, shared
/// memory and its mbarriers (initialized and published), the values the
/// steps read.
FailureOr<AttentionFrame> buildFrame(gpu::GPUFuncOp func,
                                     const AttentionShape &shape,
                                     Value keyLen, StringRef kernelName) {
  MLIRContext *ctx = func.getContext();
  AttentionFrame f;
  f.s = shape;
  const AttentionShape &s = f.s;
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v).getResult();
  };
  auto f32 = [&](double v) {
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                          APFloat(static_cast<float>(v)))
        .getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  auto mul = [&](Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y).getResult();
  };
  auto rem = [&](Value x, Value y) {
    return arith::RemUIOp::create(b, loc, x, y).getResult();
  };
  auto div = [&](Value x, Value y) {
    return arith::DivUIOp::create(b, loc, x, y).getResult();
  };
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y)
        .getResult();
  };
  // The rings, by what their puts load.
  for (auto ring : func.getBody().getOps<sck::RingOp>()) {
    std::optional<RingKind> kind = ringKindOf(ring);
    if (!kind)
      return ring.emitError("sck-to-nvgpu: an attention ring of Q, K or V "
                            "boxes");
    f.rings[ring.getResult()] = *kind;
  }
  if (f.rings.size() != 3)
    return func.emitError("sck-to-nvgpu: an attention kernel of a Q, a K and "
                          "a V ring (run sc-schedule-attention)");
  auto mapType = [&](int64_t rows, nvgpu::TensorMapL2PromoKind promo) {
    return s.tensorMapType(ctx, rows, promo);
  };
  auto map = [&](unsigned at, Type type) {
    return UnrealizedConversionCastOp::create(b, loc, type, func.getArgument(at))
        .getResult(0);
  };
  f.tmaQ = map(0, mapType(64, nvgpu::TensorMapL2PromoKind::L2PROMO_256B));
  f.tmaK = map(1, mapType(s.blockN, nvgpu::TensorMapL2PromoKind::L2PROMO_256B));
  f.tmaV = map(2, mapType(64, nvgpu::TensorMapL2PromoKind::L2PROMO_256B));
  f.tmaO = map(3, mapType(64, nvgpu::TensorMapL2PromoKind::L2PROMO_NONE));
  // The thread: its warpgroup from lane 0 (a shuffle: warp-uniform for
  // ptxas), consumers 0 .. C - 1, then the producer.
  f.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value tid32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), f.tid);
  Value role = arith::DivUIOp::create(b, loc, tid32, i32(128));
  f.w = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      gpu::ShuffleOp::create(b, loc, role, i32(0), i32(32),
                             gpu::ShuffleMode::IDX)
          .getShuffleResult());
  Value inWg = rem(f.tid, index(128));
  f.elected = eq(inWg, index(0));
  f.lane = rem(f.tid, index(32));
  f.laneZero = eq(f.lane, index(0));
  // Shared memory from the first 1024-byte boundary at least 256 bytes
  // past its base (the mbarriers lie just past the dynamic symbol).
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  f.smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, f.smem);
  Value from = add(base, index(256));
  f.pad = add(rem(arith::SubIOp::create(b, loc, index(1024),
                                        rem(from, index(1024))),
                  index(1024)),
              index(256));
  f.v.base = base;
  f.v.smemBase = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  {
    // The base's own wgmma descriptor (AttentionSteps::descriptor adds a
    // box's offset / 16 to it).
    auto i64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v).getResult();
    };
    Value masked = arith::AndIOp::create(b, loc, f.v.smemBase,
                                         i64(sc::detail::kDescriptorAddressMask));
    f.v.descriptorBase = arith::OrIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, masked, i64(4)),
        i64(sc::detail::kWgmmaDescriptorBits));
  }
  // The lane's rows of the ldmatrix / stmatrix matrices and its column
  // pair of the wgmma fragments (AttentionSteps).
  Value warp = div(inWg, index(32));
  Value lmM = div(f.lane, index(8));
  Value lmRow = add(add(mul(warp, index(16)), rem(f.lane, index(8))),
                    mul(rem(lmM, index(2)), index(8)));
  f.v.lmHi = div(lmM, index(2));
  f.v.lmRowB = mul(lmRow, index(128));
  f.v.lmSw = rem(lmRow, index(8));
  f.v.q2 = mul(rem(f.lane, index(4)), index(2));
  f.v.keyLen = keyLen;
  f.v.negInf = f32(-std::numeric_limits<double>::infinity());
  f.v.scale2 = f32(s.scale2);
  f.v.lazyBound = f32(8.0);
  f.v.zeroF = f32(0.0);
  f.v.wgBar = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                         add(f.w, index(1)));
  auto f32Struct = [&](int64_t n) -> Type {
    return LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(n, Float32Type::get(ctx)));
  };
  f.v.accS = f32Struct(s.blockN / 2);
  f.v.accO = f32Struct(s.headDim / 2);
  // The mbarriers: a Q slot per consumer (freed by its 4 warps), the K and
  // V slots (freed by every consumer warp).
  auto group = [&](int64_t n) {
    return nvgpu::MBarrierCreateOp::create(
        b, loc, nvgpu::MBarrierGroupType::get(ctx, workgroup, n));
  };
  f.qFull = group(s.consumers);
  f.qEmpty = group(s.consumers);
  f.full = group(s.stages);
  f.fullV = group(s.stages);
  f.empty = group(s.stages);
  f.emptyV = group(s.stages);
  auto first = scf::IfOp::create(b, loc, eq(f.tid, index(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    for (int64_t c = 0; c < s.consumers; ++c) {
      nvgpu::MBarrierInitOp::create(b, loc, f.qFull, index(1), index(c), Value());
      nvgpu::MBarrierInitOp::create(b, loc, f.qEmpty, index(4), index(c), Value());
    }
    for (int64_t i = 0; i < s.stages; ++i)
      for (auto [barriers, count] :
           {std::pair<Value, int64_t>{f.full, 1}, {f.fullV, 1},
            {f.empty, 4 * s.consumers}, {f.emptyV, 4 * s.consumers}})
        nvgpu::MBarrierInitOp::create(b, loc, barriers, index(count), index(i),
                                      Value());
  }
  publishBarrierInits(b, loc, func, /*pairs=*/false);
  // A branch of the consumer over wgmma or named barriers (.aligned: the
  // whole warp takes it) on a condition from lane 0: ptxas then knows it
  // warp-uniform (on a path it takes as divergent it serializes the
  // wgmma, C7520).
  DenseMap<Value, Value> uniform;
  func.walk([&](scf::IfOp branch) {
    bool aligned = branch->walk([](Operation *op) {
                           return isa<sck::MmaOp, sck::AwaitTurnOp,
                                      sck::PassTurnOp>(op)
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         }).wasInterrupted();
    if (!aligned)
      return;
    // Once a condition, where it is defined.
    Value cond = branch.getCondition();
    if (Value done = uniform.lookup(cond)) {
      branch.getConditionMutable().assign(done);
      return;
    }
    OpBuilder at(branch);
    if (Operation *def = cond.getDefiningOp())
      at.setInsertionPointAfter(def);
    else
      at.setInsertionPointToStart(cast<BlockArgument>(cond).getOwner());
    Value wide = arith::ExtUIOp::create(at, loc, at.getI32Type(), cond);
    Value lane0 = gpu::ShuffleOp::create(
                      at, loc, wide,
                      arith::ConstantIntOp::create(at, loc, at.getI32Type(), 0),
                      arith::ConstantIntOp::create(at, loc, at.getI32Type(), 32),
                      gpu::ShuffleMode::IDX)
                      .getShuffleResult();
    Value lane0Cond = arith::TruncIOp::create(at, loc, at.getI1Type(), lane0);
    uniform[cond] = lane0Cond;
    branch.getConditionMutable().assign(lane0Cond);
  });
  // Constant tables (a static mask's) and the query blocks' order as
  // globals of the module.
  OpBuilder top =
      OpBuilder::atBlockBegin(func->getParentOfType<gpu::GPUModuleOp>().getBody());
  f.globals = attentionTableGlobals(func);
  if (s.staticMask) {
    f.orderTable = (kernelName + "_order").str();
    auto type = RankedTensorType::get({static_cast<int64_t>(s.order.size())},
                                      top.getI32Type());
    memref::GlobalOp::create(top, loc, f.orderTable, top.getStringAttr("private"),
                             MemRefType::get(type.getShape(), top.getI32Type()),
                             DenseIntElementsAttr::get(type, s.order),
                             /*constant=*/true, IntegerAttr());
  }
  return f;
}

} // namespace

LogicalResult mlir::sc::detail::convertAttentionSckToNVGPU(
    gpu::GPUFuncOp kernel, const AttentionShape &shape, Value keyLen) {
  MLIRContext *ctx = kernel.getContext();
  FailureOr<AttentionFrame> frame =
      buildFrame(kernel, shape, keyLen, kernel.getName());
  if (failed(frame))
    return failure();
  TypeConverter converter;
  addAttentionTypeConversions(converter);
  ConversionTarget target(*ctx);
  addKernelConversionLegality(target);
  addAttentionTableLegality(target);
  RewritePatternSet patterns(ctx);
  patterns.add<RingToFrame, RoleToWarpgroup, TileLoopToBlockIds,
               TileIndexToZero, ConsumerIndexToWarpgroup, PutToTmaLoads,
               GetToFullWait, FreeToArrive<sck::ReleaseOp>,
               FreeToArrive<sck::DiscardOp>, LoadFragToLdmatrix, ZeroToZero,
               MmaToWgmma, MmaWaitKeepingP,
               TurnToNamedBarrier<sck::AwaitTurnOp>,
               TurnToNamedBarrier<sck::PassTurnOp>, EpilogueToTmaStores, WalkSizeToShare,
               WalkTileToItem>(converter, ctx, *frame);
  populateAttentionSharedPatterns(converter, patterns, *frame);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  return applyKernelConversion(kernel, target, std::move(patterns),
                               /*cse=*/false);
}
