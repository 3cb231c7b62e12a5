//===- SckHybridToNVGPU.cpp - a hybrid-tiled GEMM's ops, a pattern per op -===//
//
// The hybrid-tiled GEMM's half of sc-convert-sck-to-nvgpu: y = x W^T with
// W in hybrid dense / 2:4 / zero tiles (docs/hybrid-tiles.md), its
// warp-specialized kernel-level IR (sc-lower-to-sck, sc-persistent,
// sc-warp-specialize) in a gpu.func, each sck op lowered by a pattern of
// its own, shapes taken from the !sck types:
//
//   sck.ring        the frame's: shared-memory slots (one box of each of
//                   its types a slot, 128B-swizzled boxes on 1024-byte
//                   boundaries) with full / empty mbarriers laid out
//                   first; the dense and the 2:4 tiles' rings share their
//                   slots, barriers and counters (a k-tile puts into one
//                   of them or neither)
//   sck.role        a warpgroup's branch (consumers: warpgroups 0 .. C - 1,
//                   each on 64 weight rows of the tile; the producer: C,
//                   one elected thread), its ring counters
//   sck.tile_loop   this CTA's tiles (grid: one; persistent: c, c + CTAs..)
//   sck.hybrid_tile the kind and slot from the packed tables
//   sck.put         wait for a free slot, expect its bytes, TMA loads
//   sck.get         wait for the next full slot: its boxes' offsets
//   sck.release     the consumer warps' arrivals on the slot's empty barrier
//   sck.zero        a zero accumulator (the wgmma fragment)
//   sck.mma         wgmma m64nNk16 over the boxes' k
//   sck.mma_sp      sparse wgmma m64nNk32, each thread's metadata word
//                   gathered from the metadata box
//   sck.reduce_splits split-K's fixup: the part's sums stored, its arrival
//                   counted; the last part adds every part's
//   sck.epilogue    each accumulator element through the epilogue function
//                   (or converted) and stored transposed, inside the result
//
//   sck.mma_wait   wgmma.wait_group
//
// A put, get or release takes its role's next position of the ring
// (counters in registers). A k-tile's slots are freed after the
// sck.mma_wait sc-schedule-wgmma places once its MMAs are issued.
// Arguments (`sck.operand`): "A" (the tokens), "B.dense", "B.sparse",
// "B.meta" (tensor maps), "B.kinds", "B.slots" (the tables), "C" and
// "in0", ... (memrefs); with split-K "C.partials" (f32) and "C.arrivals"
// (i32, a count per warp of each tile, zero at launch).
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Conversion/ScToGPU/HybridKernel.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
/// Rows of W a consumer (the wgmma's M), threads of a warpgroup.
constexpr int64_t kBand = 64, kWarpgroup = 128;
/// The mbarrier try_wait's suspend-time hint.
constexpr int64_t kWaitTicks = 10000000;
} // namespace

HybridBoxParts HybridBoxParts::of(sck::BoxType type, bool transposed) {
  HybridBoxParts p;
  int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  p.rows = transposed ? type.getShape()[1] : type.getShape()[0];
  int64_t cols = transposed ? type.getShape()[0] : type.getShape()[1];
  p.swizzled = cols * bytes >= 128;
  p.colsPerPart = p.swizzled ? 128 / bytes : cols;
  p.parts = cols / p.colsPerPart;
  p.bytesPerPart = p.rows * p.colsPerPart * bytes;
  return p;
}

bool mlir::sc::detail::isHybridWeightRing(sck::RingOp ring) {
  for (Operation *user : ring->getUsers())
    if (auto put = dyn_cast<sck::PutOp>(user))
      for (Value box : put.getBoxes())
        if (auto load = box.getDefiningOp<sck::LoadOp>())
          return load.getOperand().starts_with("B.");
  return false;
}

/// The ring the tokens' boxes (operand "A") go through.
static bool isTokensRing(sck::RingOp ring) {
  for (Operation *user : ring->getUsers())
    if (auto put = dyn_cast<sck::PutOp>(user))
      for (Value box : put.getBoxes())
        if (auto load = box.getDefiningOp<sck::LoadOp>())
          return load.getOperand() == "A";
  return false;
}

bool mlir::sc::detail::hybridRunsInPairs(Operation *kernel) {
  return kernel
      ->walk([](sck::TileLoopOp loop) {
        return loop.getCluster() == 2 ? WalkResult::interrupt()
                                      : WalkResult::advance();
      })
      .wasInterrupted();
}

int64_t mlir::sc::detail::hybridSharedBytes(Operation *kernel, int64_t stages) {
  int64_t bytes = 1024 + kHybridBarrierBytes, weightSlot = 0;
  kernel->walk([&](sck::RingOp ring) {
    int64_t slot = 0;
    for (Type t : ring.getType().getBoxes())
      slot += llvm::alignTo(
          HybridBoxParts::of(cast<sck::BoxType>(t), false).bytes(), 1024);
    if (isHybridWeightRing(ring))
      weightSlot = std::max(weightSlot, slot);
    else
      bytes += stages * slot;
  });
  return bytes + stages * weightSlot;
}

namespace {
/// A ring's place in shared memory: its slots from `base` (past the
/// aligned start), each box of a slot at its offset, and its barriers.
struct RingLayout {
  SmallVector<int64_t> boxOffsets;
  SmallVector<HybridBoxParts> boxParts;
  int64_t slotBytes = 0, base = 0;
  Value full, empty;
  /// The ring whose slots, barriers and counters this one uses (itself,
  /// or the dense tiles' ring for the 2:4 tiles').
  Value owner;
  /// CTA pairs: the tokens' ring, each slot filled by both CTAs' loads
  /// (each loads half of the box into both) and freed by both's consumers.
  bool shared = false;
};

/// A tensor map the kernel loads from.
struct Operand {
  Value map;
  Type element;
};

/// What every op's lowering reads, laid out before the first ring: the
/// operands' tensor maps and tables, the thread's place, shared memory,
/// the rings' layouts and barriers (initialized by thread 0 before a CTA
/// barrier), and each role's ring counters (at the start of its body).
struct HybridFrame {
  int64_t stages = 0, consumers = 1;
  /// CTA pairs (a cluster of two on pairs of N tiles): this CTA's rank and
  /// the other's (i32).
  bool pairs = false;
  Value rank, peer;
  Type element;
  llvm::StringMap<Operand> operands;
  Value kinds, slots, result;
  /// Split-K (sck.reduce_splits): the parts' partial sums and each tile's
  /// arrivals (memrefs; null without a split).
  Value partials, arrivals;
  Value tid, wg, cta, ctas, smem, smemBase, pad;
  /// A consumer's first weight row within the tile, and that row's byte
  /// offset in a 128-byte-wide box.
  Value consumerRow, consumerBoxBytes;
  DenseMap<Value, RingLayout> rings;
  /// The counter (memref<2xindex>: puts or gets, then releases) each put,
  /// get and release of a role takes its position from.
  DenseMap<Operation *, Value> counterOf;
};

struct Arith : KernelArith {
  Arith(OpBuilder &b, Location loc) : KernelArith(b, loc) {}
  using KernelArith::add, KernelArith::b, KernelArith::cmp, KernelArith::div,
      KernelArith::i32, KernelArith::index, KernelArith::loc, KernelArith::mul,
      KernelArith::rem, KernelArith::sub;
};

FailureOr<HybridFrame> buildFrame(gpu::GPUFuncOp func) {
  MLIRContext *ctx = func.getContext();
  Block &top = func.getBody().front();
  auto ringOps = llvm::to_vector(top.getOps<sck::RingOp>());
  if (ringOps.empty())
    return func.emitError("sck-to-nvgpu: a hybrid-tiled kernel without rings");
  HybridFrame f;
  // (Read signed: the attribute's accessor is unsigned.)
  f.stages = ringOps.front().getStagesAttr().getInt();
  if (f.stages < 2 || llvm::any_of(ringOps, [&](sck::RingOp r) {
        return r.getStagesAttr().getInt() != f.stages;
      }))
    return ringOps.front().emitError("sck-to-nvgpu: rings of one number of "
                                     "stages (2 or more), decided");
  // The MMA lowerings leave a group in flight: slots must be freed after
  // the waits sc-schedule-wgmma places (none in an unscheduled kernel).
  auto has = [&](auto opType) {
    return func
        .walk([](decltype(opType)) { return WalkResult::interrupt(); })
        .wasInterrupted();
  };
  if ((has(sck::MmaOp()) || has(sck::MmaSparseOp())) && !has(sck::MmaWaitOp()))
    return func.emitError("sck-to-nvgpu: a hybrid-tiled kernel whose slots "
                          "are released after its MMAs' waits (run "
                          "sc-schedule-wgmma)");
  if (auto count = func->getAttrOfType<IntegerAttr>(sck::kConsumersAttrName))
    f.consumers = count.getInt();
  OpBuilder b(ringOps.front());
  Location loc = ringOps.front().getLoc();
  Arith a(b, loc);
  f.element = cast<sck::BoxType>(ringOps.front().getType().getBoxes()[0])
                  .getElementType();
  // Each operand's box as the kernel-level IR loads it (one box type per
  // operand): the TMA box of one part.
  llvm::StringMap<HybridBoxParts> partsOf;
  LogicalResult boxes = success();
  func.walk([&](sck::LoadOp load) {
    HybridBoxParts parts = HybridBoxParts::of(load.getType(), load.getTransposed());
    auto [it, inserted] = partsOf.try_emplace(load.getOperand(), parts);
    if (!inserted && (it->second.rows != parts.rows ||
                      it->second.colsPerPart != parts.colsPerPart))
      boxes = load.emitError("sck-to-nvgpu: boxes of one operand of "
                             "different shapes");
  });
  if (failed(boxes))
    return failure();
  f.pairs = hybridRunsInPairs(func);
  auto tmaSpace = IntegerAttr::get(IntegerType::get(ctx, 64), 3);
  for (StringRef name : {"A", "B.dense", "B.sparse", "B.meta"}) {
    Value arg = namedKernelArgument(func, name);
    auto found = partsOf.find(name);
    if (!arg || found == partsOf.end())
      return func.emitError("sck-to-nvgpu: a hybrid-tiled kernel loading A, "
                            "B.dense, B.sparse and B.meta, its arguments of "
                            "those names (tensor maps)");
    const HybridBoxParts &parts = found->second;
    Type element = name == "B.meta" ? b.getI32Type() : f.element;
    // CTA pairs load half of the tokens' box each.
    int64_t rows = f.pairs && name == "A" ? parts.rows / 2 : parts.rows;
    auto mapType = nvgpu::TensorMapDescriptorType::get(
        ctx,
        MemRefType::get({1, rows, parts.colsPerPart}, element,
                        MemRefLayoutAttrInterface(), tmaSpace),
        parts.swizzled ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
                       : nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    f.operands[name] = Operand{
        UnrealizedConversionCastOp::create(b, loc, mapType, arg).getResult(0),
        element};
  }
  f.kinds = namedKernelArgument(func, "B.kinds");
  f.slots = namedKernelArgument(func, "B.slots");
  f.result = namedKernelArgument(func, "C");
  if (!f.kinds || !f.slots || !f.result)
    return func.emitError("sck-to-nvgpu: a hybrid-tiled kernel of arguments "
                          "B.kinds, B.slots (the tables) and C");
  bool split = func.walk([](sck::ReduceSplitsOp) {
                      return WalkResult::interrupt();
                    }).wasInterrupted();
  if (split) {
    f.partials = namedKernelArgument(func, "C.partials");
    f.arrivals = namedKernelArgument(func, "C.arrivals");
    if (!f.partials || !f.arrivals || f.consumers != 1)
      return func.emitError("sck-to-nvgpu: a split-K hybrid-tiled kernel of "
                            "one consumer, with arguments C.partials and "
                            "C.arrivals");
  }

  f.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The warpgroup from lane 0 (a shuffle): warp-uniform for ptxas, so the
  // role branches do not serialize wgmma.
  Value tid32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), f.tid);
  Value wgU = gpu::ShuffleOp::create(
                  b, loc, arith::DivUIOp::create(b, loc, tid32, a.i32(kWarpgroup)),
                  a.i32(0), a.i32(32), gpu::ShuffleMode::IDX)
                  .getShuffleResult();
  f.wg = arith::IndexCastOp::create(b, loc, b.getIndexType(), wgU);
  f.cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  f.ctas = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  if (f.pairs) {
    Value rank32 = NVVM::ClusterId::create(b, loc, b.getI32Type());
    f.rank = arith::IndexCastOp::create(b, loc, b.getIndexType(), rank32);
    f.peer = arith::SubIOp::create(b, loc, a.i32(1), rank32);
  }
  f.consumerRow = a.mul(f.wg, a.index(kBand));
  f.consumerBoxBytes = a.mul(f.wg, a.index(kBand * 128));
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  f.smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  // 128B-swizzled boxes want 1024-byte aligned shared memory. ptxas places
  // the dynamic-memory symbol before the mbarriers (static shared
  // variables), so the region starts at the first 1024-byte boundary at
  // least kHybridBarrierBytes past it: at the symbol itself it would
  // overlap the barriers (measured: the faults of CTAs whose symbol fell on
  // a boundary).
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, f.smem);
  Value from = a.add(base, a.index(kHybridBarrierBytes));
  f.pad = a.add(a.rem(a.sub(a.index(1024), a.rem(from, a.index(1024))),
                      a.index(1024)),
                a.index(kHybridBarrierBytes));
  f.smemBase = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  // The rings, one after another; the weight rings' shared slots laid out
  // with the first, sized for the largest.
  int64_t offset = 0, weightSlot = 0;
  auto barsType = nvgpu::MBarrierGroupType::get(ctx, workgroup, f.stages);
  for (sck::RingOp ring : ringOps) {
    int64_t slot = 0;
    for (Type t : ring.getType().getBoxes())
      slot += llvm::alignTo(
          HybridBoxParts::of(cast<sck::BoxType>(t), false).bytes(), 1024);
    if (isHybridWeightRing(ring))
      weightSlot = std::max(weightSlot, slot);
  }
  Value weightOwner;
  SmallVector<Value> owners;
  for (sck::RingOp ring : ringOps) {
    RingLayout layout;
    layout.base = offset;
    layout.owner = ring.getResult();
    layout.shared = f.pairs && isTokensRing(ring);
    for (Type t : ring.getType().getBoxes()) {
      auto box = cast<sck::BoxType>(t);
      // The put's loads say whether the box is stored transposed.
      bool transposed = false;
      for (Operation *user : ring->getUsers())
        if (auto put = dyn_cast<sck::PutOp>(user))
          for (Value v : put.getBoxes())
            if (v.getType() == t)
              if (auto load = v.getDefiningOp<sck::LoadOp>())
                transposed = load.getTransposed();
      HybridBoxParts parts = HybridBoxParts::of(box, transposed);
      layout.boxOffsets.push_back(layout.slotBytes);
      layout.boxParts.push_back(parts);
      layout.slotBytes += llvm::alignTo(parts.bytes(), 1024);
    }
    if (isHybridWeightRing(ring) && weightOwner) {
      const RingLayout &owner = f.rings[weightOwner];
      layout.base = owner.base;
      layout.slotBytes = owner.slotBytes;
      layout.full = owner.full;
      layout.empty = owner.empty;
      layout.owner = weightOwner;
      f.rings[ring.getResult()] = layout;
      continue;
    }
    if (isHybridWeightRing(ring)) {
      weightOwner = ring.getResult();
      layout.slotBytes = weightSlot;
    }
    offset += f.stages * layout.slotBytes;
    layout.full = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
    layout.empty = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
    f.rings[ring.getResult()] = layout;
    owners.push_back(ring.getResult());
  }
  {
    Value first = a.cmp(arith::CmpIPredicate::eq, f.tid, a.index(0));
    auto ifFirst = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
    // One arrival by the producer's expect_tx; one by each consumer warp
    // once done with the slot (of both CTAs of a pair for a shared slot).
    for (Value owner : owners) {
      const RingLayout &layout = f.rings[owner];
      int64_t releases = 4 * f.consumers * (layout.shared ? 2 : 1);
      for (int64_t s = 0; s < f.stages; ++s) {
        nvgpu::MBarrierInitOp::create(b, loc, layout.full, a.index(1),
                                      a.index(s), Value());
        nvgpu::MBarrierInitOp::create(b, loc, layout.empty, a.index(releases),
                                      a.index(s), Value());
      }
    }
  }
  publishBarrierInits(b, loc, func, f.pairs);
  // Each role's counters, a pair a ring that owns its slots: puts or gets
  // (0) and releases (1).
  for (auto role : top.getOps<sck::RoleOp>()) {
    OpBuilder at = OpBuilder::atBlockBegin(&role.getBody().front());
    Arith r(at, role.getLoc());
    DenseMap<Value, Value> counters;
    for (Value owner : owners) {
      Value counter = memref::AllocaOp::create(
          at, loc, MemRefType::get({2}, at.getIndexType()));
      memref::StoreOp::create(at, loc, r.index(0), counter,
                              ValueRange{r.index(0)});
      memref::StoreOp::create(at, loc, r.index(0), counter,
                              ValueRange{r.index(1)});
      counters[owner] = counter;
    }
    role.walk([&](Operation *op) {
      Value ring;
      if (auto put = dyn_cast<sck::PutOp>(op))
        ring = put.getRing();
      else if (auto get = dyn_cast<sck::GetOp>(op))
        ring = get.getRing();
      else if (auto release = dyn_cast<sck::ReleaseOp>(op))
        ring = release.getRing();
      if (ring && f.rings.count(ring))
        f.counterOf[op] = counters.lookup(f.rings[ring].owner);
    });
  }
  return f;
}
} // namespace

namespace {
/// Builds at `b`'s insertion point from the frame's values.
class Emitter : public KernelArith {
public:
  Emitter(OpBuilder &b, Location loc, const HybridFrame &f)
      : KernelArith(b, loc), f(f) {}
  using KernelArith::add, KernelArith::b, KernelArith::cmp, KernelArith::div,
      KernelArith::i32, KernelArith::index, KernelArith::loc, KernelArith::mul,
      KernelArith::rem, KernelArith::releaseByLaneZero;

  /// The next position of the counter `which` (0 put / get, 1 release) of
  /// `op`'s role and ring, and the counter advanced.
  Value takePosition(Operation *op, int which) {
    Value counter = f.counterOf.lookup(op);
    Value j = memref::LoadOp::create(b, loc, counter, ValueRange{index(which)});
    memref::StoreOp::create(b, loc, add(j, index(1)), counter,
                            ValueRange{index(which)});
    return j;
  }
  /// The slot of ring position `j`, and the parity a waiter on its full
  /// (`free` false) or empty barrier waits for.
  std::pair<Value, Value> slotOf(Value j, bool free) {
    return ringSlotAndParity(j, f.stages, free);
  }
  Value slotBase(const RingLayout &ring, Value slot) {
    return add(add(f.pad, index(ring.base)), mul(slot, index(ring.slotBytes)));
  }
  Value descriptor(Value byteOffset) {
    return wgmmaDescriptor(f.smemBase, byteOffset);
  }
  /// `acc` after the wgmma ops `issue` builds, one group left in flight
  /// (the one before waited for) until an sck.mma_wait.
  Value mmaGroup(function_ref<Value(Value)> issue, Value acc) {
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    acc = issue(acc);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    return acc;
  }
  Value consumerRow() { return f.consumerRow; }
  Value consumerBoxBytes() { return f.consumerBoxBytes; }

  const HybridFrame &f;
};

template <typename Op> using HybridPattern = FramePattern<Op, HybridFrame>;

/// The wgmma accumulator of an m64nN tile: N / 2 f32 a thread.
Type accumulatorType(sck::AccType acc) {
  MLIRContext *ctx = acc.getContext();
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(acc.getShape()[1] / 2, Float32Type::get(ctx)));
}

/// The ring is the frame's: its slots' offset.
struct RingToFrame : HybridPattern<sck::RingOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::RingOp ring, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Emitter e(rewriter, ring.getLoc(), frame);
    rewriter.replaceOp(
        ring, e.add(frame.pad, e.index(frame.rings.lookup(ring).base)));
    return success();
  }
};

/// Consumers: warpgroups 0 .. C - 1; the producer: warpgroup C, one
/// elected thread.
struct RoleToWarpgroup : HybridPattern<sck::RoleOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::RoleOp role, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = role.getLoc();
    Emitter e(rewriter, loc, frame);
    bool producer = role.getKind() == sck::RoleKind::producer;
    Value mine = e.cmp(producer ? arith::CmpIPredicate::eq
                                : arith::CmpIPredicate::ult,
                       frame.wg, e.index(frame.consumers));
    auto ifRole = scf::IfOp::create(rewriter, loc, mine, /*withElse=*/false);
    rewriter.setInsertionPointToStart(&ifRole.getThenRegion().front());
    // One consumer keeps the registers of the launch (sc-warp-specialize
    // gives both roles its budget): that is what its tile needs, and a
    // setmaxnreg move measured to fault where two CTAs share an SM. Two
    // consumers (one CTA an SM) take the producer's by setmaxnreg.
    if (frame.consumers > 1)
      NVVM::SetMaxRegisterOp::create(rewriter, loc, role.getRegs(),
                                     producer
                                         ? NVVM::SetMaxRegisterAction::decrease
                                         : NVVM::SetMaxRegisterAction::increase);
    Operation *end = ifRole.getThenRegion().front().getTerminator();
    if (producer) {
      Value elected = e.cmp(arith::CmpIPredicate::eq, frame.tid,
                            e.index(frame.consumers * kWarpgroup));
      auto ifElected = scf::IfOp::create(rewriter, loc, elected, false);
      end = ifElected.getThenRegion().front().getTerminator();
    }
    rewriter.inlineBlockBefore(&role.getBody().front(), end);
    rewriter.eraseOp(role);
    return success();
  }
};

/// Tile t: N fastest (the bands of W that share the tokens' box), then M,
/// then the batch element. Grid: CTA c runs tile c; persistent: c, c +
/// CTAs, ...
struct TileLoopToWalk : HybridPattern<sck::TileLoopOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::TileLoopOp loop, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = loop.getLoc();
    Emitter e(rewriter, loc, frame);
    Value batches = adaptor.getBatches(), mTiles = adaptor.getMTiles(),
          nTiles = adaptor.getNTiles();
    Value numTiles = e.mul(batches, e.mul(mTiles, nTiles));
    Value step = loop.getSchedule() == sck::TileSchedule::persistent
                     ? frame.ctas
                     : numTiles;
    auto tiles = scf::ForOp::create(rewriter, loc, frame.cta, numTiles, step);
    rewriter.setInsertionPointToStart(tiles.getBody());
    Value t = tiles.getInductionVar();
    Value perBatch = e.mul(mTiles, nTiles);
    SmallVector<Value> tile = {e.div(t, perBatch),
                               e.div(e.rem(t, perBatch), nTiles),
                               e.rem(t, nTiles)};
    rewriter.inlineBlockBefore(&loop.getBody().front(),
                               tiles.getBody()->getTerminator(), tile);
    rewriter.eraseOp(loop);
    return success();
  }
};

/// The kind and slot from the packed tables, lane 0's broadcast: ptxas
/// then knows the kind switch is warp-uniform and keeps the wgmmas in its
/// cases asynchronous (on a divergent path it serializes them, C7520).
struct HybridTileToTables : HybridPattern<sck::HybridTileOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::HybridTileOp tile, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (tile.getOperand() != "B")
      return tile.emitError("sck-to-nvgpu: a hybrid tile of the weight B");
    Location loc = tile.getLoc();
    Emitter e(rewriter, loc, frame);
    SmallVector<Value, 2> at = {adaptor.getRow(), adaptor.getCol()};
    auto uniform = [&](Value v) {
      return NVVM::ShflOp::create(rewriter, loc, rewriter.getI32Type(),
                                  e.i32(-1), v, e.i32(0), e.i32(31),
                                  NVVM::ShflKind::idx, UnitAttr())
          .getResult();
    };
    Value kind = uniform(arith::ExtUIOp::create(
        rewriter, loc, rewriter.getI32Type(),
        memref::LoadOp::create(rewriter, loc, frame.kinds, at)));
    Value slot = uniform(memref::LoadOp::create(rewriter, loc, frame.slots, at));
    rewriter.replaceOp(
        tile, {arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), kind),
               arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), slot)});
    return success();
  }
};

/// The role's next slot of the ring once free, its bytes expected, the
/// TMA loads of each box's parts.
struct PutToTmaLoads : HybridPattern<sck::PutOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::PutOp put, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (put.getPosition() || !frame.counterOf.count(put))
      return put.emitError("sck-to-nvgpu: a put of a role, at its next slot");
    Location loc = put.getLoc();
    Emitter e(rewriter, loc, frame);
    const RingLayout &ring = frame.rings.lookup(put.getRing());
    Value j = e.takePosition(put, 0);
    auto [slot, freeParity] = e.slotOf(j, /*free=*/true);
    nvgpu::MBarrierTryWaitParityOp::create(rewriter, loc, ring.empty,
                                           freeParity, e.index(kWaitTicks), slot);
    int64_t bytes = 0;
    for (const HybridBoxParts &parts : ring.boxParts)
      bytes += parts.bytes();
    nvgpu::MBarrierArriveExpectTxOp::create(rewriter, loc, ring.full,
                                            e.index(bytes), slot, Value());
    Value base = e.slotBase(ring, slot);
    for (auto [i, box] : llvm::enumerate(put.getBoxes())) {
      auto load = box.getDefiningOp<sck::LoadOp>();
      if (!load || !frame.operands.count(load.getOperand()))
        return put.emitError("sck-to-nvgpu: a put of boxes loaded from the "
                             "kernel's operands");
      const Operand &operand = frame.operands.lookup(load.getOperand());
      const HybridBoxParts &parts = ring.boxParts[i];
      SmallVector<Value> at = llvm::map_to_vector(
          load.getCoords(), [&](Value v) { return rewriter.getRemappedValue(v); });
      // The TMA box [1, rows, colsPerPart] of each part, along the
      // innermost coordinate. A shared slot: this CTA's half of the rows,
      // multicast to both CTAs (each full barrier expects the whole slot).
      int64_t rows = ring.shared ? parts.rows / 2 : parts.rows;
      auto view = MemRefType::get(
          {1, rows, parts.colsPerPart}, operand.element,
          MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(getContext(), gpu::AddressSpace::Workgroup));
      Value half = ring.shared ? e.mul(frame.rank, e.index(rows)) : Value();
      Value both = ring.shared ? arith::ConstantIntOp::create(
                                     rewriter, loc, rewriter.getI16Type(), 3)
                                     .getResult()
                               : Value();
      for (int64_t p = 0; p < parts.parts; ++p) {
        SmallVector<Value> partAt = at;
        partAt[0] = e.add(partAt[0], e.index(p * parts.colsPerPart));
        Value at = e.add(base, e.index(ring.boxOffsets[i] + p * parts.bytesPerPart));
        if (ring.shared) {
          partAt[1] = e.add(partAt[1], half);
          at = e.add(at, e.mul(half, e.index(parts.bytesPerPart / parts.rows)));
        }
        Value dst = memref::ViewOp::create(rewriter, loc, view, frame.smem, at,
                                           ValueRange());
        nvgpu::TmaAsyncLoadOp::create(rewriter, loc, dst, ring.full,
                                      operand.map, partAt, slot, both,
                                      Value());
      }
    }
    erasePutAndItsLoads(rewriter, put);
    return success();
  }
};

/// The role's next slot once full: each box its byte offset in shared
/// memory.
struct GetToFullWait : HybridPattern<sck::GetOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::GetOp get, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (get.getPosition() || !frame.counterOf.count(get))
      return get.emitError("sck-to-nvgpu: a get of a role, at its next slot");
    Location loc = get.getLoc();
    Emitter e(rewriter, loc, frame);
    const RingLayout &ring = frame.rings.lookup(get.getRing());
    Value j = e.takePosition(get, 0);
    auto [slot, parity] = e.slotOf(j, /*free=*/false);
    nvgpu::MBarrierTryWaitParityOp::create(rewriter, loc, ring.full, parity,
                                           e.index(kWaitTicks), slot);
    Value base = e.slotBase(ring, slot);
    SmallVector<Value> boxes;
    for (int64_t offset : ring.boxOffsets)
      boxes.push_back(e.add(base, e.index(offset)));
    rewriter.replaceOp(get, boxes);
    return success();
  }
};

/// Lane 0 of each of the consumer's four warps arrives on the role's next
/// released slot's empty barrier.
struct ReleaseToArrive : HybridPattern<sck::ReleaseOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ReleaseOp release, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (release.getPosition() || !frame.counterOf.count(release))
      return release.emitError("sck-to-nvgpu: a release of a role, of its "
                               "oldest slot");
    Location loc = release.getLoc();
    Emitter e(rewriter, loc, frame);
    const RingLayout &ring = frame.rings.lookup(release.getRing());
    Value j = e.takePosition(release, 1);
    Value slot = e.slotOf(j, /*free=*/false).first;
    // A shared slot is refilled by both CTAs' loads: free it in both.
    e.releaseByLaneZero(frame.tid, ring.empty, slot,
                        ring.shared ? frame.peer : Value());
    rewriter.eraseOp(release);
    return success();
  }
};

struct ZeroToZero : HybridPattern<sck::ZeroOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ZeroOp zero, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    rewriter.replaceOpWithNewOp<LLVM::ZeroOp>(zero,
                                              accumulatorType(zero.getType()));
    return success();
  }
};

/// The MMA's shape as the kernel takes it: 64 weight rows a consumer by a
/// multiple of 8 tokens up to 256, over 128-byte parts.
LogicalResult checkMma(Operation *op, const HybridFrame &f, sck::BoxType a,
                       sck::BoxType bType, sck::AccType acc) {
  HybridBoxParts aParts = HybridBoxParts::of(a, false);
  HybridBoxParts bParts = HybridBoxParts::of(bType, true);
  int64_t n = acc.getShape()[1];
  if (a.getShape()[0] != kBand * f.consumers || !aParts.swizzled ||
      !bParts.swizzled || n % 8 != 0 || n > 256)
    return op->emitError("sck-to-nvgpu: an MMA other than 64 rows a consumer "
                         "by a multiple of 8 up to 256 over 128-byte parts");
  return success();
}

/// wgmma m64nNk16: A the weight's box (rows by k, K-major), B the tokens'
/// box (stored tokens by k, K-major: read transposed). A k16 step is 32
/// bytes along a 128-byte part; each part is its own swizzled tile.
struct MmaToWgmma : HybridPattern<sck::MmaOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::MmaOp mma, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!mma.getABox())
      return mma.emitError("sck-to-nvgpu: a hybrid MMA's A in shared memory");
    sck::BoxType aType = mma.getABox().getType(), bType = mma.getB().getType();
    if (failed(checkMma(mma, frame, aType, bType, mma.getAcc().getType())))
      return failure();
    MLIRContext *ctx = getContext();
    Location loc = mma.getLoc();
    Emitter e(rewriter, loc, frame);
    HybridBoxParts aParts = HybridBoxParts::of(aType, false);
    HybridBoxParts bParts = HybridBoxParts::of(bType, true);
    int64_t n = mma.getAcc().getType().getShape()[1];
    // This consumer's 64 rows of the weight's box.
    Value a = e.add(adaptor.getA(), e.consumerBoxBytes()), bb = adaptor.getB();
    auto type = frame.element.isBF16() ? NVVM::WGMMATypes::bf16
                                       : NVVM::WGMMATypes::f16;
    Type accType = accumulatorType(mma.getAcc().getType());
    int64_t steps = aType.getShape()[1] / 16;
    Value out = e.mmaGroup(
        [&](Value acc) {
          for (int64_t kk = 0; kk < steps; ++kk) {
            Value descA = e.descriptor(
                e.add(a, e.index(kk / 4 * aParts.bytesPerPart + kk % 4 * 32)));
            Value descB = e.descriptor(
                e.add(bb, e.index(kk / 4 * bParts.bytesPerPart + kk % 4 * 32)));
            acc = NVVM::WgmmaMmaAsyncOp::create(
                rewriter, loc, accType, acc, descA, descB,
                NVVM::MMAShapeAttr::get(ctx, kBand, n, 16),
                NVVM::WGMMATypesAttr::get(ctx, type),
                NVVM::WGMMATypesAttr::get(ctx, type),
                NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
                NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
                NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
                NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
                NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
                NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), nullptr);
          }
          return acc;
        },
        adaptor.getAcc());
    rewriter.replaceOp(mma, out);
    return success();
  }
};

/// The sparse wgmma m64n<n>k32 (f32 += f16/bf16 2:4 A x B) on descriptors,
/// with this thread's metadata word (sparsity selector 0): inline PTX, the
/// NVVM dialect having no sparse wgmma op.
static Value sparseWgmma(OpBuilder &b, Location loc, Value acc, Value descA,
                         Value descB, Value meta, int64_t n, bool bf16) {
  auto accType = cast<LLVM::LLVMStructType>(acc.getType());
  int64_t regs = n / 2;
  std::string d, constraints;
  for (int64_t r = 0; r < regs; ++r) {
    d += (r ? ", $" : "$") + std::to_string(r);
    constraints += (r ? ",=f" : "=f");
  }
  const char *type = bf16 ? "bf16" : "f16";
  // Operands: the accumulator registers (out, then tied in), A's and B's
  // descriptors, the metadata word, sparsity selector 0, scale-d true.
  std::string text = llvm::formatv(
      "{{ .reg .pred p; setp.ne.b32 p, ${6}, 0; "
      "wgmma.mma_async.sp.sync.aligned.m64n{0}k32.f32.{1}.{1} {{{2}}, ${3}, "
      "${4}, ${5}, 0, p, 1, 1, 0, 0; }",
      n, type, d, regs, regs + 1, regs + 2, regs + 3);
  constraints += ",l,l,r,r";
  SmallVector<Value> operands = {
      descA, descB, meta,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1)};
  // The accumulator's registers in, tied to the outputs.
  for (int64_t r = 0; r < regs; ++r) {
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, r));
    constraints += "," + std::to_string(r);
  }
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, accType, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return asmOp.getResult(0);
}

/// Sparse wgmma m64nNk32 on the 2:4 values' box, each thread's metadata
/// words gathered from the metadata box.
struct MmaSparseToWgmma : HybridPattern<sck::MmaSparseOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::MmaSparseOp mma, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    sck::BoxType aType = mma.getA().getType(), bType = mma.getB().getType();
    sck::BoxType metaType = mma.getMeta().getType();
    if (failed(checkMma(mma, frame, aType, bType, mma.getAcc().getType())))
      return failure();
    Location loc = mma.getLoc();
    Emitter e(rewriter, loc, frame);
    HybridBoxParts aParts = HybridBoxParts::of(aType, false);
    HybridBoxParts bParts = HybridBoxParts::of(bType, true);
    int64_t n = mma.getAcc().getType().getShape()[1];
    // This consumer's 64 rows of the values' and the metadata's boxes.
    Value a = e.add(adaptor.getA(), e.consumerBoxBytes()),
          meta = adaptor.getMeta(), bb = adaptor.getB();
    // Metadata (sparsity selector 0, checked on the H100 against the other
    // reading of the PTX figure): threads 0 and 1 of quad g of a warp give,
    // for rows g and g + 8 of the warp's 16, the halves h = 0 and 1 of the
    // rows' words (columns 16 h .. 16 h + 15): bits 0-15 row g's, 16-31 row
    // g + 8's. Threads 2 and 3 repeat them (not read).
    Value inWg = e.rem(frame.tid, e.index(kWarpgroup));
    Value warp = e.div(inWg, e.index(32)), lane = e.rem(frame.tid, e.index(32));
    Value rowLo = e.add(e.consumerRow(),
                        e.add(e.mul(warp, e.index(16)), e.div(lane, e.index(4))));
    Value rowHi = e.add(rowLo, e.index(8));
    Value half = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI32Type(),
        e.mul(e.rem(lane, e.index(2)), e.index(16)));
    int64_t wordsPerRow = metaType.getShape()[1];
    auto words = MemRefType::get(
        {kBand * frame.consumers * wordsPerRow}, rewriter.getI32Type(),
        MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(getContext(), gpu::AddressSpace::Workgroup));
    Value metaView =
        memref::ViewOp::create(rewriter, loc, words, frame.smem, meta, ValueRange());
    auto metaWord = [&](int64_t kk) -> Value {
      auto halfOf = [&](Value row) {
        Value word = memref::LoadOp::create(
            rewriter, loc, metaView,
            ValueRange{e.add(e.mul(row, e.index(wordsPerRow)), e.index(kk))});
        return arith::AndIOp::create(
                   rewriter, loc, arith::ShRUIOp::create(rewriter, loc, word, half),
                   e.i32(0xFFFF))
            .getResult();
      };
      return arith::OrIOp::create(
                 rewriter, loc, halfOf(rowLo),
                 arith::ShLIOp::create(rewriter, loc, halfOf(rowHi), e.i32(16)))
          .getResult();
    };
    int64_t steps = bType.getShape()[0] / 32;
    // Every step's metadata read before the group's fence: a shared-memory
    // load between the sparse wgmmas makes ptxas serialize them (C7520).
    SmallVector<Value> metaWords;
    for (int64_t kk = 0; kk < steps; ++kk)
      metaWords.push_back(metaWord(kk));
    Value out = e.mmaGroup(
        [&](Value acc) {
          for (int64_t kk = 0; kk < steps; ++kk) {
            // A k32 step: 16 kept values (32 bytes) of A's rows, 32 k (64
            // bytes) of B's.
            Value descA = e.descriptor(
                e.add(a, e.index(kk / 4 * aParts.bytesPerPart + kk % 4 * 32)));
            Value descB = e.descriptor(
                e.add(bb, e.index(kk / 2 * bParts.bytesPerPart + kk % 2 * 64)));
            acc = sparseWgmma(rewriter, loc, acc, descA, descB, metaWords[kk],
                              n, frame.element.isBF16());
          }
          return acc;
        },
        adaptor.getAcc());
    rewriter.replaceOp(mma, out);
    return success();
  }
};

/// Split-K's fixup, warp by warp (a warp's 16 rows of the tile are its
/// own: the epilogue stores each element from the thread that holds it,
/// with no barrier, so each warp may finish on its own): the part's
/// accumulator stored to its place among the tile's parts (word r of
/// thread t of part p of tile i at ((i x S + p) x words + r) x 128 + t:
/// coalesced, and read back by the same thread of the last part); once the
/// warp's stores are fenced, its lane 0 counts the arrival of the warp's
/// rows of this part; the warp whose count completes them adds every part
/// in order (the same sum whichever part comes last) and runs the
/// epilogue on it.
struct ReduceSplitsToFixup : HybridPattern<sck::ReduceSplitsOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ReduceSplitsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = op.getLoc();
    Emitter e(rewriter, loc, frame);
    MLIRContext *ctx = rewriter.getContext();
    std::optional<int64_t> staticSplits = op.getStaticSplits();
    if (!staticSplits || *staticSplits < 2)
      return op.emitError("sck-to-nvgpu: a hybrid-tiled kernel's split-K of a "
                          "constant count of 2 or more parts");
    int64_t splits = *staticSplits;
    ArrayRef<int64_t> shape = op.getAcc().getType().getShape();
    int64_t words = shape[0] * shape[1] / kWarpgroup;
    int64_t warps = kWarpgroup / 32;
    Value t = e.rem(frame.tid, e.index(kWarpgroup));
    Value warp = e.div(t, e.index(32)), lane = e.rem(t, e.index(32));
    Value first = e.mul(adaptor.getTile(), e.index(splits));
    auto wordAt = [&](Value part, int64_t r) {
      return e.add(e.mul(e.add(e.mul(part, e.index(words)), e.index(r)),
                         e.index(kWarpgroup)),
                   t);
    };
    Value acc = adaptor.getAcc();
    Value mine = e.add(first, adaptor.getSplit());
    for (int64_t r = 0; r < words; ++r)
      memref::StoreOp::create(rewriter, loc,
                              LLVM::ExtractValueOp::create(rewriter, loc, acc, r),
                              frame.partials, ValueRange{wordAt(mine, r)});
    // Each lane's stores before lane 0's count (release), the count before
    // the last part's reads (acquire).
    auto gpuScope = NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::GPU);
    NVVM::MembarOp::create(rewriter, loc, gpuScope);
    NVVM::SyncWarpOp::create(rewriter, loc, e.i32(-1));
    Value counter = e.add(e.mul(adaptor.getTile(), e.index(warps)), warp);
    auto count = scf::IfOp::create(rewriter, loc, rewriter.getI32Type(),
                                   e.cmp(arith::CmpIPredicate::eq, lane,
                                         e.index(0)),
                                   /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(count.thenBlock());
      Value before = memref::AtomicRMWOp::create(
          rewriter, loc, arith::AtomicRMWKind::addi, e.i32(1), frame.arrivals,
          ValueRange{counter});
      Value last = e.cmp(arith::CmpIPredicate::eq, before, e.i32(splits - 1));
      scf::YieldOp::create(rewriter, loc,
                           ValueRange{arith::ExtUIOp::create(
                               rewriter, loc, rewriter.getI32Type(), last)});
      rewriter.setInsertionPointToStart(count.elseBlock());
      scf::YieldOp::create(rewriter, loc, ValueRange{e.i32(0)});
    }
    Value fromLane0 = gpu::ShuffleOp::create(rewriter, loc, count.getResult(0),
                                             e.i32(0), e.i32(32),
                                             gpu::ShuffleMode::IDX)
                          .getShuffleResult();
    Value last = e.cmp(arith::CmpIPredicate::ne, fromLane0, e.i32(0));
    auto sum = scf::IfOp::create(rewriter, loc, acc.getType(), last,
                                 /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(sum.thenBlock());
      NVVM::MembarOp::create(rewriter, loc, gpuScope);
      Value total = acc;
      for (int64_t r = 0; r < words; ++r) {
        Value word;
        for (int64_t p = 0; p < splits; ++p) {
          Value v = memref::LoadOp::create(
              rewriter, loc, frame.partials,
              ValueRange{wordAt(e.add(first, e.index(p)), r)});
          word = word ? arith::AddFOp::create(rewriter, loc, word, v) : v;
        }
        total = LLVM::InsertValueOp::create(rewriter, loc, total, word, r);
      }
      scf::YieldOp::create(rewriter, loc, ValueRange{total});
      rewriter.setInsertionPointToStart(sum.elseBlock());
      scf::YieldOp::create(rewriter, loc, ValueRange{acc});
    }
    rewriter.replaceOp(op, {sum.getResult(0), last});
    return success();
  }
};

/// Each accumulator element through the epilogue's device function (or
/// converted) and stored transposed where it lies inside the result.
struct EpilogueToStores : HybridPattern<sck::EpilogueOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::EpilogueOp epilogue, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (epilogue.getSumRows())
      return epilogue.emitError("no GPU lowering sums an epilogue's rows yet");
    auto cType = cast<MemRefType>(frame.result.getType());
    if (!epilogue.getTransposed() || epilogue.getCoords().size() != 3 ||
        epilogue.getResult() != "C" || cType.getRank() != 3 ||
        ShapedType::isDynamic(cType.getDimSize(1)) ||
        ShapedType::isDynamic(cType.getDimSize(2)))
      return epilogue.emitError("sck-to-nvgpu: an epilogue of a transposed "
                                "tile of C [B, M, N] at [n, m, b]");
    SmallVector<Value> ins;
    for (Value in : epilogue.getIns()) {
      Value memref = kernelArgumentOf(in);
      if (!memref)
        return epilogue.emitError("sck-to-nvgpu: an epilogue operand that is "
                                  "not the kernel's");
      ins.push_back(memref);
    }
    Type outType = cType.getElementType();
    func::FuncOp fn;
    if (!epilogue.getBody().empty()) {
      auto kernel = epilogue->getParentOfType<gpu::GPUFuncOp>();
      auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
      SmallVector<Type> types = {rewriter.getF32Type()};
      types.append(3, rewriter.getIndexType());
      for (Value in : ins)
        types.push_back(in.getType());
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(module.getBody());
      fn = func::FuncOp::create(rewriter, epilogue.getLoc(),
                                (kernel.getName() + "_epilogue").str(),
                                rewriter.getFunctionType(types, {outType}));
      fn.setPrivate();
      SymbolTable(module).insert(fn);
      if (failed(sc::detail::buildEpilogueFunction(
              epilogue.getLoc(), outType, BatchMatmulOp::kNumEpilogueLeadingArgs,
              &epilogue.getBody().front(), fn, std::nullopt)))
        return failure();
    }
    Location loc = epilogue.getLoc();
    Emitter e(rewriter, loc, frame);
    // This consumer's rows of the tile.
    Value n0 = e.add(adaptor.getCoords()[0], e.consumerRow()),
          m0 = adaptor.getCoords()[1], bIdx = adaptor.getCoords()[2];
    Value acc = adaptor.getAcc();
    int64_t tokens = epilogue.getAcc().getType().getShape()[1];
    int64_t mSize = cType.getDimSize(1), nSize = cType.getDimSize(2);
    // The wgmma fragment: in n8 group g, this thread holds rows warp * 16 +
    // lane / 4 (+ 8) (weight rows: result columns n) and columns 8 g + 2
    // (lane % 4) (+ 1) (tokens: result rows m).
    Value inWg = e.rem(frame.tid, e.index(kWarpgroup));
    Value warp = e.div(inWg, e.index(32)), lane = e.rem(frame.tid, e.index(32));
    Value row0 = e.add(e.mul(warp, e.index(16)), e.div(lane, e.index(4)));
    Value colPair = e.mul(e.rem(lane, e.index(4)), e.index(2));
    for (int64_t g = 0; g < tokens / 8; ++g)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t el = 0; el < 2; ++el) {
          int64_t reg = 4 * g + 2 * r + el;
          Value n = e.add(n0, e.add(row0, e.index(8 * r)));
          Value m = e.add(m0, e.add(colPair, e.index(8 * g + el)));
          Value inside = arith::AndIOp::create(
              rewriter, loc, e.cmp(arith::CmpIPredicate::ult, m, e.index(mSize)),
              e.cmp(arith::CmpIPredicate::ult, n, e.index(nSize)));
          auto ifInside = scf::IfOp::create(rewriter, loc, inside, false);
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(&ifInside.getThenRegion().front());
          Value v = LLVM::ExtractValueOp::create(rewriter, loc, acc, reg);
          Value out;
          if (fn) {
            SmallVector<Value> args = {v, bIdx, m, n};
            llvm::append_range(args, ins);
            out = func::CallOp::create(rewriter, loc, fn, args).getResult(0);
          } else if (outType.isF32()) {
            out = v;
          } else {
            out = arith::TruncFOp::create(rewriter, loc, outType, v);
          }
          memref::StoreOp::create(rewriter, loc, out, frame.result,
                                  ValueRange{bIdx, m, n});
        }
    rewriter.eraseOp(epilogue);
    return success();
  }
};
} // namespace

LogicalResult mlir::sc::detail::convertHybridSckToNVGPU(gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  FailureOr<HybridFrame> frame = buildFrame(kernel);
  if (failed(frame))
    return failure();
  TypeConverter converter;
  // A ring is its slots' offset, a box its offset in shared memory, an
  // accumulator the wgmma fragment.
  addSharedMemoryTypeConversions(converter);
  converter.addConversion([](sck::AccType t) { return accumulatorType(t); });
  ConversionTarget target(*ctx);
  addKernelConversionLegality(target);
  RewritePatternSet patterns(ctx);
  patterns.add<RingToFrame, RoleToWarpgroup, TileLoopToWalk, HybridTileToTables,
               PutToTmaLoads, GetToFullWait, ReleaseToArrive, ZeroToZero,
               MmaToWgmma, MmaSparseToWgmma, ReduceSplitsToFixup,
               EpilogueToStores>(converter, ctx, *frame);
  patterns.add<MmaWaitToWgmmaWait>(converter, ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  // (No CSE: see convertSckToNVGPU.)
  return applyKernelConversion(kernel, target, std::move(patterns),
                               /*cse=*/false);
}
