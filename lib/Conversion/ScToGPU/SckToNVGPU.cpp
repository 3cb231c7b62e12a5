//===- SckToNVGPU.cpp - a GEMM kernel written from its kernel-level IR ----===//
//
// The kernel body built op by op from the `sck` function that
// sc-lower-to-sck, sc-persistent and sc-warp-specialize left for a GEMM:
// the ring becomes shared-memory slots with full/empty mbarriers, each
// role a warpgroup branch with its setmaxnreg, the tile loop this CTA's
// share of the tiles (persistent: CTA c takes tiles c, c + CTAs, ...;
// grouped order as the loop says), a put the wait for a free slot,
// expect_tx and the TMA loads of its boxes, a get the wait for a full
// slot, an mma wgmma on the slot's boxes (descriptors of their
// 128B-swizzled layout), a release the consumer warps' arrivals on the
// slot's empty barrier, ping-pong turns named barriers, and the epilogue
// each element of the accumulator (converted, or through a device function
// built from the sck.epilogue's region) into a staging tile stored by TMA;
// a prefetched operand's box (sck.prefetch) streams through shared memory
// by TMA, two 128-byte-wide subtiles ahead.
// It takes the ping-pong (64-row tiles, one consumer a tile), cooperative
// (128 rows, 64 a consumer) and transposed (out[b]^T = E[b]^T W^T: 128
// columns n by M rows m a consumer) schedules, tiles of 64, 128 or 256
// columns, f16/bf16 operands with an N-major or K-major rhs, flat rows (a
// batched lhs times a shared rhs), a persistent or grid tile loop, alone
// or in CTA pairs sharing B by TMA multicast (the loop's `cluster`); IR of
// another form is a located error.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Conversion/ScToGPU/GemmKernel.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
/// A consumer's rows (its wgmma accumulator, its staging tile), a k-tile's
/// depth, and the widest tile's columns (narrower ones for small N:
/// gemmTileCols).
constexpr int64_t kTileRows = 64, kTileDepth = 64, kMaxTileCols = 256;
/// A ring slot: A's box (`aRows` x 64: 64 ping-pong, 128 cooperative) and
/// B's 64 x `cols`, 16-bit.
int64_t slotBytesFor(int64_t aRows, int64_t cols) {
  return (aRows * kTileDepth + kTileDepth * cols) * 2;
}
/// A consumer's staging tile: 64 rows x 128 columns of the result.
int64_t stagingBytes(BatchMatmulOp op) {
  return kTileRows * 128 * op.getType().getElementType().getIntOrFloatBitWidth() /
         8;
}
/// Shared memory a CTA may have (227 KB on sm_90).
constexpr int64_t kSharedMemoryBytes = 227 * 1024;
/// The mbarrier try_wait's suspend-time hint.
constexpr int64_t kWaitTicks = 10000000;
/// A prefetched operand's box streams through two buffers a consumer, each
/// a subtile of 64 rows x 128 bytes (the template's tensor map for it).
constexpr int64_t kSubtileBytes = kTileRows * 128;
/// The transposed tile: E's two 64 x 64 boxes a slot (the tile's 128
/// columns n), its epilogue in chunks of 32 rows m (two 32 x 64 16-bit
/// staging boxes, stored 8 rows at a time), a prefetched f32 box through
/// two C buffers a consumer of four 32 x 32 boxes each.
constexpr int64_t kTransposedEBytes = 128 * kTileDepth * 2;
constexpr int64_t kChunkRows = 32, kChunkBytes = 4 * 32 * 32 * 4;
constexpr int64_t kTransposedStagingBytes = 2 * kChunkRows * 128;

/// The pieces of the kernel-level IR the lowering follows.
struct KernelIR {
  /// Rows of A's box: 64 (ping-pong: a consumer a tile) or 128
  /// (cooperative: each consumer 64 rows of one tile).
  int64_t aRows = kTileRows;
  bool cooperative = false;
  /// CTA pairs on pairs of M tiles, each loading half of B for both (the
  /// transposed tile: pairs of N tiles, each loading half of W for both).
  bool pairs = false;
  /// The transposed tile (out[b]^T = E[b]^T W^T, sck.schedule
  /// "transposed"): a consumer's tile is 128 columns n (its accumulator's
  /// rows, E's two 64-column boxes) by `tileM` rows m (W's box), m64
  /// n<tileM> wgmma with E read MN-major and W K-major.
  bool transposed = false;
  int64_t tileM = 0;
  /// Ping-pong and cooperative: the tile's columns (B's box), 64, 128 or
  /// 256, in accumulator halves of up to 128 (m64n<halfCols> wgmma).
  int64_t tileN = kMaxTileCols;
  int64_t halves() const { return tileN > 128 ? 2 : 1; }
  int64_t halfCols() const { return std::min<int64_t>(tileN, 128); }
  /// A batched lhs times a shared rhs tiled over the rows of all batch
  /// elements: A and C read and written as [B x M] rows (the epilogue's
  /// two coordinates).
  bool flatRows = false;
  /// CTA pairs on the transposed tile: W's box in two 8-row-aligned
  /// overlapping halves of `wHalfRows`, rank r's from row r (tileM -
  /// wHalfRows) (the template's tensor map for W has that box).
  int64_t wHalfRows() const { return llvm::alignTo(tileM / 2, 8); }
  /// A ring slot's bytes, and those of its first part: A's box (the
  /// transposed tile: E's), the rest B's (W's).
  int64_t slotBytes() const {
    return transposed ? kTransposedEBytes + tileM * kTileDepth * 2
                      : slotBytesFor(aRows, tileN);
  }
  int64_t firstPartBytes() const {
    return transposed ? kTransposedEBytes : aRows * kTileDepth * 2;
  }
  sck::RingOp ring;
  sck::RoleOp producer, consumer;
  sck::TileLoopOp producerLoop, consumerLoop;
  /// The consumers' epilogue and the box of an operand it reads, if any.
  sck::EpilogueOp epilogue;
  sck::PrefetchOp prefetch;
  /// Shared memory a consumer needs past the ring: its staging tile, and
  /// the prefetched box's two subtile buffers.
  int64_t consumerBytes(BatchMatmulOp op) const {
    if (transposed)
      return kTransposedStagingBytes + (prefetch ? 2 * kChunkBytes : 0);
    return stagingBytes(op) + (prefetch ? 2 * kSubtileBytes : 0);
  }
};

/// Builds the kernel; `b` inside the new gpu.func's entry block.
class GemmKernelWriter : sc::detail::KernelArith {
public:
  GemmKernelWriter(BatchMatmulOp op, KernelIR ir, int64_t stages,
                   OpBuilder &b, Location loc)
      : KernelArith(b, loc), op(op), ir(ir), stages(stages),
        ctx(op.getContext()) {}

  LogicalResult write(gpu::GPUFuncOp func);

private:
  /// Ring position j -> slot and the parity its barrier's phase has when
  /// the slot is full (`free`: when it is empty again, one phase earlier).
  std::pair<Value, Value> ringPosition(Value j, bool free);
  /// Where ring slot `slot`'s two parts lie in shared memory: every slot's
  /// first part (A's box; the transposed tile: E's) comes before every
  /// slot's second (B's; W's).
  std::pair<Value, Value> slotParts(Value slot) {
    int64_t first = ir.firstPartBytes(), second = ir.slotBytes() - first;
    return {add(mul(slot, index(first)), pad),
            add(add(index(stages * first), mul(slot, index(second))), pad)};
  }
  /// (b, m tile, n tile) of this CTA's tile i, in the tile loop's order.
  SmallVector<Value> decode(Value i);
  /// A loop over this CTA's tiles from `first` by `step`, the insertion
  /// point left in its body, `loop`'s block arguments mapped to the tile's
  /// coordinates; returns the tile's index among the CTA's.
  Value openTileLoop(sck::TileLoopOp loop, Value first, Value step,
                     IRMapping &mapping);
  Value descriptor(Value byteOffset);
  /// The wgmma of one k-tile on ring slot `slot` into the two m64n128
  /// halves (`first`: ignoring the accumulators), as one commit group;
  /// waits until only it is in flight.
  std::pair<Value, Value> mmaOnSlot(Value slot, Value inL, Value inR,
                                    bool first);
  LogicalResult writeProducer();
  /// A producer k-tile's op: a load, or the put that loads the boxes at
  /// its ring position.
  LogicalResult lowerProducerOp(Operation &op, IRMapping &mapping);
  /// The transposed tile's TMA loads of W's box (`isW`) or E's at `at`
  /// into ring slot `slot`.
  void loadTransposedBox(bool isW, ArrayRef<Value> at, Value slot);
  LogicalResult writeConsumer();
  /// A consumer's ring op (get: its boxes' slot in `slotOf`; mma;
  /// release; mma_wait; discard), at the ring positions it names.
  LogicalResult lowerConsumerOp(Operation &op, IRMapping &mapping,
                                DenseMap<Value, Value> &slotOf,
                                DenseMap<Value, std::pair<Value, Value>> &accs);
  /// Frees ring position j's slot.
  void releaseSlot(Value j);
  /// The epilogue of tile `tile` ([n0, m0, b], from epilogueTile).
  LogicalResult writeEpilogue(sck::EpilogueOp epilogue, ArrayRef<Value> tile,
                              Value accL, Value accR);
  /// The epilogue's tile [n0, m0, b] (innermost first), once it is the form
  /// this kernel writes: transposed as the tile is, its region (if any)
  /// built as the kernel's epilogue function.
  FailureOr<SmallVector<Value>> epilogueTile(sck::EpilogueOp epilogue,
                                             IRMapping &mapping);
  /// Where this thread sits in its warpgroup, for the epilogues: its
  /// index, warp, lane and quad (lane / 4).
  struct WarpgroupThread {
    Value inWg, warp, lane, quad;
  };
  WarpgroupThread warpgroupThread();
  /// The epilogues' thread 0 of the warpgroup and its named barrier (2 + wg).
  std::pair<Value, Value> electedAndBarrier(Value inWg);
  /// The prefetched box's first two subtiles into this consumer's buffers
  /// (at the sck.prefetch: they load under the tile's wgmma).
  void issuePrefetch(sck::PrefetchOp prefetch, IRMapping &mapping);
  /// The elected thread loads subtile `u` of the box into buffer u % 2.
  void loadSubtile(int64_t u, Value elected);
  /// The transposed tile's epilogue chunks (32 rows m each, the last one
  /// shorter when tileM is not a multiple of 32).
  int64_t numChunks() const { return llvm::divideCeil(ir.tileM, kChunkRows); }
  /// Where chunk `u` of the consumer's current tile streams: one of its two
  /// C buffers (`sel`) and the parity of that buffer's barrier. The
  /// consumer's chunks alternate between the buffers from tile to tile (an
  /// odd count a tile), counted from its tiles before (`turn`).
  std::pair<Value, Value> chunkPlace(int64_t u);
  Value chunkBuffer(Value sel) {
    return add(stageBase,
               add(index(kTransposedStagingBytes), mul(sel, index(kChunkBytes))));
  }
  /// The elected thread loads chunk `u` of the prefetched box (four 32 x 32
  /// f32 boxes) into its C buffer.
  void loadChunk(int64_t u, Value elected);
  /// The transposed tile's epilogue: out[b][m][n] from accumulators whose
  /// registers run along m, chunk by chunk through 8-row staging boxes.
  LogicalResult writeTransposedEpilogue(sck::EpilogueOp epilogue,
                                        ArrayRef<Value> tile, Value accL,
                                        Value accR);
  /// Where subtile `u` goes: buffer u % 2, past the consumer's staging tile.
  Value subtileBuffer(int64_t u) {
    return add(stageBase, index(stagingBytes(op) + (u % 2) * kSubtileBytes));
  }
  /// The barrier of that buffer: two a consumer.
  Value subtileBarrier(int64_t u) { return add(mul(wg, index(2)), index(u % 2)); }
  /// The epilogue's device function from the sck.epilogue's region (null
  /// without a region): (acc, b, m, n, per operand a memref or, for a box,
  /// its element) -> result element.
  LogicalResult buildEpilogueFunction(gpu::GPUModuleOp module, StringRef name);

  BatchMatmulOp op;
  KernelIR ir;
  int64_t stages;
  MLIRContext *ctx;
  // Values of the kernel's prologue.
  Value tmaA, tmaB, tmaC, c, tid, wg, smem, pad, smemBase, full, empty, mine,
      ctas, cta, batch, stageBase, cGM, cGN;
  /// CTA pairs: this CTA's rank in its pair and the other's (i32). The
  /// tiles are walked in units: unitsM x unitsN a batch element (pairs of
  /// M tiles, or of N tiles for the transposed tile, count as one).
  Value rank, peer, unitsM, unitsN;
  /// How CTAs take tiles: CTA c tiles c, c + CTAs, ... (`strided`: the
  /// persistent schedule, and a grid over flat rows, whose launch only
  /// estimates the tile count), or tiles perCta c .. perCta c + perCta - 1.
  bool strided = true;
  int64_t perCta = 1;
  Type elementType, accType;
  MemRefType boxA, boxB;
  /// The op's element-wise epilogue as a device function (null: convert)
  /// and the kernel's epilogue operands (memrefs), by the kernel-level
  /// function's arguments they stand for.
  func::FuncOp epilogueFn;
  DenseMap<Value, Value> memrefOf;
  /// The prefetched box: its tensor map, barriers (two a consumer), element
  /// size and, per tile, where its subtiles are read from.
  Value tmaX, xBars;
  int64_t xBytes = 0;
  Value xN0, xM0, xG;
  /// The consumer's count of tiles before the current one (ping-pong: it
  /// takes every other tile of the CTA).
  Value turn;
};
} // namespace

/// The ring, the two roles and their tile loops, with nothing else at the
/// kernel function's top level than constants, of the form lowered; else
/// why not.
static std::optional<KernelIR> matchKernelIR(func::FuncOp kernel,
                                             std::string &why) {
  KernelIR ir;
  for (Operation &inner : kernel.getBody().front()) {
    if (auto ring = dyn_cast<sck::RingOp>(inner)) {
      ir.ring = ring;
    } else if (auto role = dyn_cast<sck::RoleOp>(inner)) {
      auto loops = role.getBody().front().getOps<sck::TileLoopOp>();
      if (!llvm::hasSingleElement(loops)) {
        why = "a role with other than one tile loop";
        return std::nullopt;
      }
      bool producer = role.getKind() == sck::RoleKind::producer;
      (producer ? ir.producer : ir.consumer) = role;
      (producer ? ir.producerLoop : ir.consumerLoop) =
          *loops.begin();
    } else if (isa<sck::TileLoopOp>(inner)) {
      why = "a tile loop outside roles (sc-warp-specialize did not run)";
      return std::nullopt;
    } else if (!isa<arith::ArithDialect>(inner.getDialect()) &&
               !isa<func::ReturnOp>(inner)) {
      why = "'" + inner.getName().getStringRef().str() +
            "' at the kernel's top level";
      return std::nullopt;
    }
  }
  if (!ir.ring || !ir.producer || !ir.consumer)
    why = "no ring or no roles (sc-warp-specialize did not run)";
  else if (ir.consumer.getCount() != 2 ||
           (ir.consumer.getOrder() != sck::ConsumerOrder::pingpong &&
            ir.consumer.getOrder() != sck::ConsumerOrder::cooperative))
    why = "consumers in order '" +
          (ir.consumer.getOrder()
               ? sck::stringifyConsumerOrder(*ir.consumer.getOrder()).str()
               : std::string()) +
          "'";
  if (!why.empty())
    return std::nullopt;
  // A's box (k-major, the consumers' rows) and B's (one k-tile of 256
  // columns); the transposed tile: W's (64 k x tileM m) and E's (128 n x
  // 64 k), both read transposed.
  ir.cooperative = ir.consumer.getOrder() == sck::ConsumerOrder::cooperative;
  ir.pairs = ir.consumerLoop.getCluster() == 2;
  ir.aRows = ir.cooperative ? 2 * kTileRows : kTileRows;
  ir.transposed = sck::kernelSchedule(ir.consumer) == sck::KernelSchedule::transposed;
  ArrayRef<Type> boxes = ir.ring.getType().getBoxes();
  if (boxes.size() != 2) {
    why = "a ring of other than two boxes";
    return std::nullopt;
  }
  ArrayRef<int64_t> box0 = cast<sck::BoxType>(boxes[0]).getShape();
  ArrayRef<int64_t> box1 = cast<sck::BoxType>(boxes[1]).getShape();
  if (ir.transposed) {
    ir.tileM = box0.size() == 2 ? box0[1] : 0;
    std::optional<int64_t> nTiles = getConstantIntValue(ir.consumerLoop.getNTiles());
    if (ir.cooperative || box0.size() != 2 || box0[0] != kTileDepth ||
        ir.tileM % 8 != 0 || ir.tileM < 8 || ir.tileM > 256 ||
        box1 != ArrayRef<int64_t>{128, kTileDepth})
      why = "a transposed tile other than ping-pong consumers on 64 x M (W) "
            "and 128 x 64 (E) boxes, M a multiple of 8 up to 256";
    else if (ir.pairs && (!nTiles || *nTiles % 2 != 0))
      why = "CTA pairs on the transposed tile with an odd number of N tiles";
  } else {
    ir.tileN = box1.size() == 2 ? box1[1] : 0;
    if (box0 != ArrayRef<int64_t>{ir.aRows, kTileDepth} || box1.size() != 2 ||
        box1[0] != kTileDepth ||
        (ir.tileN != 64 && ir.tileN != 128 && ir.tileN != kMaxTileCols))
      why = "ring boxes other than 64x64 or, cooperative, 128x64 (A) and "
            "64x64, 64x128 or 64x256 (B)";
    // CTA pairs split B's box in four parts, two a CTA.
    else if (ir.pairs && ir.tileN != kMaxTileCols)
      why = "CTA pairs on a tile narrower than 256 columns";
  }
  if (!why.empty())
    return std::nullopt;
  // The consumers' epilogue, and the box of an operand it reads, if any:
  // in the result's orientation at the epilogue's tile, 16- or 32-bit.
  // (A CTA pair's tile past M computes nothing: its work is under a
  // condition, sc-schedule-wgmma.)
  SmallVector<sck::EpilogueOp> epilogues;
  SmallVector<sck::PrefetchOp> prefetches;
  ir.consumerLoop.walk([&](Operation *inner) {
    if (auto epilogue = dyn_cast<sck::EpilogueOp>(inner))
      epilogues.push_back(epilogue);
    else if (auto prefetch = dyn_cast<sck::PrefetchOp>(inner))
      prefetches.push_back(prefetch);
  });
  if (epilogues.size() != 1)
    why = "a tile loop with other than one epilogue";
  else if (prefetches.size() > 1)
    why = "more than one prefetched operand";
  if (!why.empty())
    return std::nullopt;
  ir.epilogue = epilogues.front();
  ir.flatRows = !ir.transposed && ir.epilogue.getCoords().size() == 2;
  if (prefetches.empty())
    return ir;
  ir.prefetch = prefetches.front();
  int64_t bits = ir.prefetch.getType().getElementType().getIntOrFloatBitWidth();
  if (!ir.prefetch->hasOneUse() || *ir.prefetch->user_begin() != ir.epilogue ||
      ir.epilogue.getTransposed() != ir.transposed ||
      ir.prefetch.getCoords()[0] != ir.epilogue.getCoords()[0] ||
      ir.prefetch.getCoords()[1] != ir.epilogue.getCoords()[1])
    why = "a prefetched box other than the epilogue's tile";
  else if (bits != 16 && bits != 32)
    why = "a prefetched box of other than 16- or 32-bit elements";
  else if (ir.transposed && bits != 32)
    why = "a prefetched box of the transposed tile of other than f32";
  // Rows of whole 128-byte subtiles.
  else if (!ir.transposed && ir.tileN * bits / 8 % 128 != 0)
    why = "a prefetched box of other than whole 128-byte subtiles a row";
  if (!why.empty())
    return std::nullopt;
  return ir;
}

std::pair<Value, Value> GemmKernelWriter::ringPosition(Value j, bool free) {
  Value cS = index(stages);
  Value slot = rem(j, cS);
  Value phase = rem(div(j, cS), index(2));
  if (free)
    phase = arith::XOrIOp::create(b, loc, phase, index(1));
  Value parity = arith::IndexCastOp::create(b, loc, b.getI1Type(), phase);
  return {slot, parity};
}

SmallVector<Value> GemmKernelWriter::decode(Value i) {
  // Tile t = cta + i * ctas; within a batch element, M tiles in groups of
  // `group` rows, M fastest inside a group, then N. CTA pairs walk pairs of
  // M tiles (units) so, the CTA of rank r taking M tile 2 pair + r (the
  // transposed tile: pairs of N tiles, N tile 2 pair + r).
  Value group = index(ir.consumerLoop.getGroup());
  Value unit = ir.pairs ? div(cta, index(2)) : cta;
  Value units = ir.pairs ? div(ctas, index(2)) : ctas;
  // Persistent: tile cta + i x CTAs; grid: tile CTA x (tiles a CTA) + i.
  Value t = strided ? add(unit, mul(i, units)) : add(mul(cta, index(perCta)), i);
  Value perBatch = mul(unitsN, unitsM);
  Value bIdx = div(t, perBatch);
  Value tb = rem(t, perBatch);
  Value perGroup = mul(group, unitsN);
  Value grp = div(tb, perGroup);
  Value inGrp = rem(tb, perGroup);
  Value firstM = mul(grp, group);
  Value rows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, unitsM, firstM), group);
  Value mb = add(firstM, rem(inGrp, rows));
  Value nb = div(inGrp, rows);
  if (ir.pairs && ir.transposed)
    nb = add(mul(nb, index(2)), rank);
  else if (ir.pairs)
    mb = add(mul(mb, index(2)), rank);
  return {bIdx, mb, nb};
}

Value GemmKernelWriter::openTileLoop(sck::TileLoopOp loop, Value first,
                                     Value step, IRMapping &mapping) {
  auto tiles = scf::ForOp::create(b, loc, first, mine, step);
  b.setInsertionPointToStart(tiles.getBody());
  Value i = tiles.getInductionVar();
  for (auto [arg, v] :
       llvm::zip(loop.getBody().front().getArguments(), decode(i)))
    mapping.map(arg, v);
  return i;
}

Value GemmKernelWriter::descriptor(Value byteOffset) {
  Value off = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOffset);
  Value address = arith::AddIOp::create(b, loc, smemBase, off);
  Value masked = arith::AndIOp::create(
      b, loc, address,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0x3FFFF));
  Value encoded = arith::ShRUIOp::create(
      b, loc, masked, arith::ConstantIntOp::create(b, loc, b.getI64Type(), 4));
  return arith::OrIOp::create(
      b, loc, encoded,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                   sc::detail::kWgmmaDescriptorBits));
}

std::pair<Value, Value> GemmKernelWriter::mmaOnSlot(Value slot, Value inL,
                                                   Value inR, bool first) {
  // Each half: its A descriptor, its B descriptor, and the steps (in 16-byte
  // descriptor units) to the next k16 of each.
  struct Half {
    Value descA, descB;
  };
  SmallVector<Half, 2> halves;
  int64_t aStep, bStep, n;
  NVVM::MMALayout aLayout, bLayout;
  if (ir.transposed) {
    // E's two 64 x 64 boxes (8 KB apart) as A, read MN-major: a k16 step is
    // 16 rows of 128 bytes (128 units); W's box as B, K-major: 32 bytes
    // along its rows (2 units); n = the tile's rows m.
    auto [eOff, wOff] = slotParts(slot);
    Value descW = descriptor(wOff);
    halves = {{descriptor(eOff), descW},
              {descriptor(add(eOff, index(8192))), descW}};
    aStep = 128;
    bStep = 2;
    n = ir.tileM;
    aLayout = NVVM::MMALayout::col;
    bLayout = NVVM::MMALayout::col;
  } else {
    // Cooperative: this consumer's 64 rows of A's box.
    auto [aOff, bOff] = slotParts(slot);
    if (ir.cooperative)
      aOff = add(aOff, mul(wg, index(kTileRows * kTileDepth * 2)));
    Value descA = descriptor(aOff);
    // B's halves of up to 128 columns: two 64 x 64 boxes each, 16 KB
    // apart (a tile of 128 columns or fewer: one half).
    halves = {{descA, descriptor(bOff)}};
    if (ir.halves() == 2)
      halves.push_back({descA, descriptor(add(bOff, index(16384)))});
    // A k16 step: 32 bytes along A's rows (2 units); of B: 16 rows of 128
    // bytes (128 units) N-major, 32 bytes along its rows (2 units) K-major
    // (layout col).
    bool kMajorB = op.getTransposeRhs();
    aStep = 2;
    bStep = kMajorB ? 2 : 128;
    n = ir.halfCols();
    aLayout = NVVM::MMALayout::row;
    bLayout = kMajorB ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  }
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  auto type = elementType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  auto step = [&](Value desc, int64_t units) -> Value {
    return arith::AddIOp::create(
        b, loc, desc, arith::ConstantIntOp::create(b, loc, b.getI64Type(), units));
  };
  SmallVector<Value> out;
  for (auto [half, acc] : llvm::zip(halves, SmallVector<Value>{inL, inR})) {
    for (int64_t kk = 0; kk < kTileDepth / 16; ++kk) {
      auto scaleOut = first && kk == 0 ? NVVM::WGMMAScaleOut::zero
                                       : NVVM::WGMMAScaleOut::one;
      Value a = step(half.descA, aStep * kk);
      Value bd = step(half.descB, bStep * kk);
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, accType, acc, a, bd, NVVM::MMAShapeAttr::get(ctx, 64, n, 16),
          NVVM::WGMMATypesAttr::get(ctx, type), NVVM::WGMMATypesAttr::get(ctx, type),
          NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(ctx, scaleOut),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::MMALayoutAttr::get(ctx, aLayout),
          NVVM::MMALayoutAttr::get(ctx, bLayout), nullptr);
    }
    out.push_back(acc);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
  // (One half: the second accumulator is never read.)
  return {out[0], out.back()};
}

/// The kernel's value for `v`, a value of the kernel-level function: as
/// mapped, or a constant of the function's top level cloned here, or
/// arithmetic on such values (the flat rows' tile count from the batch).
static Value lookup(Value v, OpBuilder &b, IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  if (!def || !isa<arith::ArithDialect>(def->getDialect()) ||
      !isa<func::FuncOp>(def->getParentOp()))
    return Value();
  for (Value operand : def->getOperands())
    if (!lookup(operand, b, mapping))
      return Value();
  Value copy = b.clone(*def, mapping)->getResult(0);
  mapping.map(v, copy);
  return copy;
}

/// Lowers `body` (a tile loop's or k loop's block) into `b`'s insertion
/// point: arithmetic is cloned, and `visit` lowers the rest (sck ops, the
/// k loop). The loop's block arguments come mapped.
static LogicalResult
lowerBody(Block &body, OpBuilder &b, IRMapping &mapping,
          function_ref<LogicalResult(Operation &, IRMapping &)> visit) {
  for (Operation &inner : body.without_terminator()) {
    if (isa<arith::ArithDialect>(inner.getDialect())) {
      for (Value operand : inner.getOperands())
        if (!lookup(operand, b, mapping))
          return inner.emitError("sck-to-nvgpu: a value from outside the "
                                 "tile loop that is not a constant");
      b.clone(inner, mapping);
      continue;
    }
    if (failed(visit(inner, mapping)))
      return failure();
  }
  return success();
}

LogicalResult GemmKernelWriter::lowerProducerOp(Operation &op2, IRMapping &m2) {
  if (auto load = dyn_cast<sck::LoadOp>(op2))
    return load.getTransposed() && load.getOperand() != "B" && !ir.transposed
               ? load.emitError("sck-to-nvgpu: a transposed box of A")
               : success(); // read by the put
  auto put = dyn_cast<sck::PutOp>(op2);
  if (!put)
    return op2.emitError("sck-to-nvgpu: not lowered in a producer");
  if (!put.getPosition())
    return put.emitError("sck-to-nvgpu: a put at a named ring position "
                         "(sc-schedule-wgmma)");
  Value j = lookup(put.getPosition(), b, m2);
  auto [slot, freeParity] = ringPosition(j, /*free=*/true);
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, empty, freeParity,
                                         index(kWaitTicks), slot);
  // (CTA pairs on the transposed tile: both halves of W land in each CTA,
  // the rows they share twice.)
  int64_t txBytes = ir.transposed && ir.pairs
                        ? kTransposedEBytes + 2 * ir.wHalfRows() * kTileDepth * 2
                        : ir.slotBytes();
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, full, index(txBytes), slot,
                                          Value());
  for (Value boxValue : put.getBoxes()) {
    auto load = boxValue.getDefiningOp<sck::LoadOp>();
    if (!load || load->getBlock() != put->getBlock())
      return put.emitError("sck-to-nvgpu: a put of the k-tile's loads");
    SmallVector<Value> at;
    for (Value v : load.getCoords())
      at.push_back(lookup(v, b, m2));
    bool isA = load.getOperand() == "A";
    if (ir.transposed) {
      loadTransposedBox(isA, at, slot);
      continue;
    }
    // B's 64-column parts (tileN / 64): along its first coordinate (n,
    // N-major), or its second (a K-major rhs: the box read transposed, k
    // first).
    unsigned nCoord = load.getTransposed() ? 1 : 0;
    // A's part, or B's (64 x 64 boxes of 8 KB, 64 columns n apart).
    auto [aBase, bBase] = slotParts(slot);
    Value base = isA ? aBase : bBase;
    // CTA pairs: this CTA loads B's parts 2 r and 2 r + 1 into both CTAs
    // (multicast; each full barrier expects the whole slot).
    bool shared = !isA && ir.pairs;
    int64_t parts = isA ? 1 : shared ? 2 : ir.tileN / 64;
    Value mask = shared ? arith::ConstantIntOp::create(b, loc, b.getI16Type(), 3)
                        : Value();
    for (int64_t k = 0; k < parts; ++k) {
      Value part = shared ? add(mul(rank, index(2)), index(k)) : index(k);
      Value view = memref::ViewOp::create(b, loc, isA ? boxA : boxB, smem,
                                          add(base, mul(part, index(8192))),
                                          ValueRange());
      SmallVector<Value> partAt = at;
      if (!isA)
        partAt[nCoord] = add(partAt[nCoord], mul(part, index(64)));
      nvgpu::TmaAsyncLoadOp::create(b, loc, view, full, isA ? tmaA : tmaB,
                                    partAt, slot, mask, Value());
    }
  }
  return success();
}

void GemmKernelWriter::loadTransposedBox(bool isW, ArrayRef<Value> at,
                                         Value slot) {
  auto [eBase, wBase] = slotParts(slot);
  if (!isW) {
    // E's box [n0, k, b]: two 64 x 64 boxes (columns n0, n0 + 64) 8 KB
    // apart, each read MN-major by one of the two wgmma halves.
    for (int64_t part = 0; part < 2; ++part) {
      SmallVector<Value> partAt(at);
      partAt[0] = add(partAt[0], index(64 * part));
      Value view = memref::ViewOp::create(b, loc, boxB, smem,
                                          add(eBase, index(8192 * part)),
                                          ValueRange());
      nvgpu::TmaAsyncLoadOp::create(b, loc, view, full, tmaB, partAt, slot,
                                    Value(), Value());
    }
    return;
  }
  // W's box [k, m0] after every slot's E part: tileM rows of 64 k
  // (K-major). CTA pairs: rank r loads rows r (tileM - half) .. + half and
  // multicasts them (the halves overlap by what rounding to 8 rows adds).
  SmallVector<Value> rowAt(at);
  Value mask;
  if (ir.pairs) {
    Value from = mul(rank, index(ir.tileM - ir.wHalfRows()));
    rowAt[1] = add(rowAt[1], from);
    wBase = add(wBase, mul(from, index(kTileDepth * 2)));
    mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(), 3);
  }
  Value view = memref::ViewOp::create(b, loc, boxA, smem, wBase, ValueRange());
  nvgpu::TmaAsyncLoadOp::create(b, loc, view, full, tmaA, rowAt, slot, mask,
                                Value());
}

LogicalResult GemmKernelWriter::writeProducer() {
  sck::TileLoopOp loop = ir.producerLoop;
  Value leader = cmp(arith::CmpIPredicate::eq, tid, index(256));
  auto ifLeader = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  IRMapping mapping;
  Value i = openTileLoop(loop, index(0), index(1), mapping);
  std::function<LogicalResult(Operation &, IRMapping &)> visit =
      [&](Operation &inner, IRMapping &map) -> LogicalResult {
    if (auto tile = dyn_cast<sck::TileIndexOp>(inner)) {
      map.map(tile.getIndex(), i);
      return success();
    }
    auto kLoop = dyn_cast<scf::ForOp>(inner);
    if (!kLoop)
      return lowerProducerOp(inner, map);
    auto newLoop = scf::ForOp::create(b, loc, lookup(kLoop.getLowerBound(), b, map),
                                      lookup(kLoop.getUpperBound(), b, map),
                                      lookup(kLoop.getStep(), b, map));
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(newLoop.getBody());
    map.map(kLoop.getInductionVar(), newLoop.getInductionVar());
    return lowerBody(*kLoop.getBody(), b, map, visit);
  };
  return lowerBody(loop.getBody().front(), b, mapping, visit);
}

LogicalResult GemmKernelWriter::writeConsumer() {
  sck::TileLoopOp loop = ir.consumerLoop;
  OpBuilder::InsertionGuard guard(b);
  IRMapping mapping;
  // (A CTA pair's dead tile: its M tile against the loop's count.)
  mapping.map(loop.getMTiles(), cGM);
  // Ping-pong: consumer w takes the CTA's tiles w, w + 2, ...; cooperative:
  // both take every tile, 64 rows each.
  Value i = ir.cooperative ? openTileLoop(loop, index(0), index(1), mapping)
                           : openTileLoop(loop, wg, index(2), mapping);
  // The consumer's count of its tiles before this one (ping-pong: it takes
  // every other tile of the CTA).
  turn = ir.cooperative ? i : div(i, index(2));
  // Each accumulator as its two m64n128 halves; each got box as its slot.
  DenseMap<Value, std::pair<Value, Value>> accs;
  DenseMap<Value, Value> slotOf;
  std::function<LogicalResult(Operation &, IRMapping &)> visit =
      [&](Operation &inner, IRMapping &map) -> LogicalResult {
    if (auto tile = dyn_cast<sck::TileIndexOp>(inner)) {
      map.map(tile.getIndex(), i);
      return success();
    }
    // Ping-pong turns: named barrier 5 - w waits for the other consumer's
    // MMAs of the tile before (not before the CTA's first tile), 4 + w
    // hands over (not after its last).
    if (isa<sck::AwaitTurnOp, sck::PassTurnOp>(inner)) {
      bool await = isa<sck::AwaitTurnOp>(inner);
      Value go = await ? cmp(arith::CmpIPredicate::ugt, i, index(0))
                       : cmp(arith::CmpIPredicate::ult, add(i, index(1)), mine);
      auto ifTurn = scf::IfOp::create(b, loc, go, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifTurn.getThenRegion().front());
      Value count = i32(256);
      if (await) {
        Value id = arith::IndexCastOp::create(
            b, loc, b.getI32Type(), arith::SubIOp::create(b, loc, index(5), wg));
        NVVM::BarrierOp::create(b, loc, Type(), id, count, nullptr, Value());
      } else {
        Value id = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                              add(index(4), wg));
        NVVM::BarrierArriveOp::create(b, loc, id, count);
      }
      return success();
    }
    // A tile's work under a condition (a CTA pair's tile past M).
    if (auto ifOp = dyn_cast<scf::IfOp>(inner)) {
      Value cond = lookup(ifOp.getCondition(), b, map);
      if (!cond || ifOp.getNumResults() != 0)
        return ifOp.emitError("sck-to-nvgpu: a condition on the tile's index "
                              "without results");
      bool withElse = !ifOp.getElseRegion().empty();
      auto copy = scf::IfOp::create(b, loc, cond, withElse);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&copy.getThenRegion().front());
      if (failed(lowerBody(ifOp.getThenRegion().front(), b, map, visit)))
        return failure();
      if (!withElse)
        return success();
      b.setInsertionPointToStart(&copy.getElseRegion().front());
      return lowerBody(ifOp.getElseRegion().front(), b, map, visit);
    }
    // A zero accumulator is never materialized: the tile's first k-tile
    // has wgmma that ignore their accumulator.
    if (auto zero = dyn_cast<sck::ZeroOp>(inner)) {
      Value undef = LLVM::UndefOp::create(b, loc, accType);
      accs[zero.getResult()] = {undef, undef};
      return success();
    }
    // A read of an epilogue operand (the index a prefetch's batch element
    // comes from): a load from the kernel's memref.
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      Value memref = memrefOf.lookup(extract.getTensor());
      if (!memref)
        return extract.emitError("sck-to-nvgpu: a read of other than an "
                                 "epilogue operand of the kernel");
      SmallVector<Value> at;
      for (Value v : extract.getIndices())
        at.push_back(lookup(v, b, map));
      map.map(extract.getResult(),
              memref::LoadOp::create(b, loc, memref, at).getResult());
      return success();
    }
    if (auto prefetch = dyn_cast<sck::PrefetchOp>(inner)) {
      issuePrefetch(prefetch, map);
      return success();
    }
    if (auto epilogue = dyn_cast<sck::EpilogueOp>(inner)) {
      auto it = accs.find(epilogue.getAcc());
      if (it == accs.end())
        return epilogue.emitError("sck-to-nvgpu: the epilogue of a k loop's "
                                  "accumulator");
      FailureOr<SmallVector<Value>> tile = epilogueTile(epilogue, map);
      if (failed(tile))
        return failure();
      auto [accL, accR] = it->second;
      return ir.transposed
                 ? writeTransposedEpilogue(epilogue, *tile, accL, accR)
                 : writeEpilogue(epilogue, *tile, accL, accR);
    }
    auto kLoop = dyn_cast<scf::ForOp>(inner);
    if (!kLoop)
      return lowerConsumerOp(inner, map, slotOf, accs);
    // A loop over a dead tile's slots.
    if (kLoop.getNumRegionIterArgs() == 0) {
      auto newLoop = scf::ForOp::create(
          b, loc, lookup(kLoop.getLowerBound(), b, map),
          lookup(kLoop.getUpperBound(), b, map), lookup(kLoop.getStep(), b, map));
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(newLoop.getBody());
      map.map(kLoop.getInductionVar(), newLoop.getInductionVar());
      return lowerBody(*kLoop.getBody(), b, map, visit);
    }
    if (kLoop.getNumRegionIterArgs() != 1 || !accs.count(kLoop.getInitArgs()[0]))
      return inner.emitError("sck-to-nvgpu: a k loop of one accumulator");
    auto [initL, initR] = accs.lookup(kLoop.getInitArgs()[0]);
    auto newLoop = scf::ForOp::create(
        b, loc, lookup(kLoop.getLowerBound(), b, map),
        lookup(kLoop.getUpperBound(), b, map), lookup(kLoop.getStep(), b, map),
        ValueRange{initL, initR});
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(newLoop.getBody());
      map.map(kLoop.getInductionVar(), newLoop.getInductionVar());
      accs[kLoop.getRegionIterArgs()[0]] = {newLoop.getRegionIterArgs()[0],
                                            newLoop.getRegionIterArgs()[1]};
      if (failed(lowerBody(*kLoop.getBody(), b, map, visit)))
        return failure();
      auto yield = cast<scf::YieldOp>(kLoop.getBody()->getTerminator());
      auto it = accs.find(yield.getOperand(0));
      if (it == accs.end())
        return yield.emitError("sck-to-nvgpu: the k loop yields its mma");
      scf::YieldOp::create(b, loc, ValueRange{it->second.first, it->second.second});
    }
    accs[kLoop.getResult(0)] = {newLoop.getResult(0), newLoop.getResult(1)};
    return success();
  };
  return lowerBody(loop.getBody().front(), b, mapping, visit);
}

LogicalResult GemmKernelWriter::lowerConsumerOp(
    Operation &op2, IRMapping &map, DenseMap<Value, Value> &slotOf,
    DenseMap<Value, std::pair<Value, Value>> &accs) {
  // Ring positions are named (sc-schedule-wgmma).
  auto position = [&](Value p) -> Value {
    return p ? lookup(p, b, map) : Value();
  };
  if (auto get = dyn_cast<sck::GetOp>(op2)) {
    Value j = position(get.getPosition());
    if (!j)
      return get.emitError("sck-to-nvgpu: a get at a named ring position "
                           "(sc-schedule-wgmma)");
    auto [slot, parity] = ringPosition(j, /*free=*/false);
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, full, parity,
                                           index(kWaitTicks), slot);
    for (Value box : get.getBoxes())
      slotOf[box] = slot;
    return success();
  }
  if (auto mma = dyn_cast<sck::MmaOp>(op2)) {
    Value slot = slotOf.lookup(mma.getA());
    if (!slot || slotOf.lookup(mma.getB()) != slot || !accs.count(mma.getAcc()))
      return mma.emitError("sck-to-nvgpu: an mma of a got slot");
    auto [inL, inR] = accs.lookup(mma.getAcc());
    // From the zero accumulator: wgmma that ignore theirs.
    bool first = static_cast<bool>(mma.getAcc().getDefiningOp<sck::ZeroOp>());
    accs[mma.getResult()] = mmaOnSlot(slot, inL, inR, first);
    return success();
  }
  if (auto release = dyn_cast<sck::ReleaseOp>(op2)) {
    Value j = position(release.getPosition());
    if (!j)
      return release.emitError("sck-to-nvgpu: a release at a named ring "
                               "position (sc-schedule-wgmma)");
    releaseSlot(j);
    return success();
  }
  if (auto wait = dyn_cast<sck::MmaWaitOp>(op2)) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, wait.getPending());
    return success();
  }
  if (auto discard = dyn_cast<sck::DiscardOp>(op2)) {
    Value j = position(discard.getPosition());
    auto [slot, parity] = ringPosition(j, /*free=*/false);
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, full, parity,
                                           index(kWaitTicks), slot);
    releaseSlot(j);
    // The warp meets again before the next slot: lanes 1-31 must not spin
    // on it while lane 0, which frees this one, waits to be scheduled
    // (only fair scheduling of diverged lanes would run it;
    // compute-sanitizer does not promise that: racecheck hung).
    NVVM::SyncWarpOp::create(b, loc, i32(-1));
    return success();
  }
  return op2.emitError("sck-to-nvgpu: not lowered in a consumer");
}

void GemmKernelWriter::releaseSlot(Value j) {
  // Lane 0 of each of the warpgroup's warps arrives (count 4).
  Value laneZero = cmp(arith::CmpIPredicate::eq, rem(tid, index(32)), index(0));
  Value slot = ringPosition(j, /*free=*/false).first;
  auto ifLane = scf::IfOp::create(b, loc, laneZero, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifLane.getThenRegion().front());
  nvgpu::MBarrierArriveOp::create(b, loc, nvgpu::MBarrierTokenType::get(ctx),
                                  empty, slot);
  // CTA pairs: the other CTA's loads write this slot too, so it waits for
  // this consumer as well: an arrival on its barrier of the same slot.
  if (ir.pairs) {
    Value address = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(), empty, slot);
    NVVM::InlinePtxOp::create(
        b, loc, TypeRange(), ValueRange{address, peer}, ValueRange(),
        "{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; "
        "mbarrier.arrive.shared::cluster.b64 _, [ra]; }",
        Value());
  }
}

void GemmKernelWriter::issuePrefetch(sck::PrefetchOp prefetch,
                                     IRMapping &mapping) {
  // The box at [n0, m0, g]; cooperative: this consumer's 64 rows of it.
  xN0 = lookup(prefetch.getCoords()[0], b, mapping);
  xM0 = lookup(prefetch.getCoords()[1], b, mapping);
  if (ir.cooperative)
    xM0 = add(xM0, mul(wg, index(kTileRows)));
  xG = lookup(prefetch.getCoords()[2], b, mapping);
  Value elected = cmp(arith::CmpIPredicate::eq, rem(tid, index(128)), index(0));
  if (ir.transposed) {
    loadChunk(0, elected);
    loadChunk(1, elected);
    return;
  }
  loadSubtile(0, elected);
  if (ir.tileN * xBytes > 128)
    loadSubtile(1, elected);
}

std::pair<Value, Value> GemmKernelWriter::chunkPlace(int64_t u) {
  Value g = add(mul(turn, index(numChunks())), index(u));
  Value sel = rem(g, index(2));
  Value phase = rem(div(g, index(2)), index(2));
  return {sel, arith::IndexCastOp::create(b, loc, b.getI1Type(), phase)};
}

void GemmKernelWriter::loadChunk(int64_t u, Value elected) {
  auto ifElected = scf::IfOp::create(b, loc, elected, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifElected.getThenRegion().front());
  Value sel = chunkPlace(u).first;
  Value bar = add(mul(wg, index(2)), sel);
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, xBars, index(kChunkBytes),
                                          bar, Value());
  auto boxType = MemRefType::get({1, kChunkRows, 32}, b.getF32Type(),
                                 MemRefLayoutAttrInterface(),
                                 boxA.getMemorySpace());
  for (int64_t bx = 0; bx < 4; ++bx) {
    Value view = memref::ViewOp::create(
        b, loc, boxType, smem, add(chunkBuffer(sel), index(4096 * bx)),
        ValueRange());
    nvgpu::TmaAsyncLoadOp::create(
        b, loc, view, xBars, tmaX,
        ValueRange{add(xN0, index(32 * bx)), add(xM0, index(kChunkRows * u)), xG},
        bar, Value(), Value());
  }
}

void GemmKernelWriter::loadSubtile(int64_t u, Value elected) {
  auto ifElected = scf::IfOp::create(b, loc, elected, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifElected.getThenRegion().front());
  Value bar = subtileBarrier(u);
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, xBars, index(kSubtileBytes),
                                          bar, Value());
  Type element = ir.prefetch.getType().getElementType();
  auto boxType = MemRefType::get({1, kTileRows, 128 / xBytes}, element,
                                 MemRefLayoutAttrInterface(),
                                 boxA.getMemorySpace());
  Value view = memref::ViewOp::create(
      b, loc, boxType, smem,
      subtileBuffer(u), ValueRange());
  Value n = add(xN0, index(u * 128 / xBytes));
  nvgpu::TmaAsyncLoadOp::create(b, loc, view, xBars, tmaX,
                                ValueRange{n, xM0, xG}, bar, Value(), Value());
}

LogicalResult GemmKernelWriter::buildEpilogueFunction(gpu::GPUModuleOp module,
                                                      StringRef name) {
  if (ir.epilogue.getBody().empty())
    return success();
  Block &body = ir.epilogue.getBody().front();
  SmallVector<Type> types(
      TypeRange(body.getArgumentTypes()).take_front(BatchMatmulOp::kNumEpilogueLeadingArgs));
  for (Value in : ir.epilogue.getIns()) {
    if (auto box = dyn_cast<sck::BoxType>(in.getType()))
      types.push_back(box.getElementType());
    else if (Value memref = memrefOf.lookup(in))
      types.push_back(memref.getType());
    else
      return ir.epilogue.emitError("sck-to-nvgpu: an epilogue operand that "
                                   "is neither a box nor the kernel's");
  }
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(module.getBody());
  epilogueFn = func::FuncOp::create(
      b, loc, name,
      b.getFunctionType(types, op.getType().getElementType()));
  epilogueFn.setPrivate();
  return sc::detail::buildEpilogueFunction(op, &body, epilogueFn);
}

FailureOr<SmallVector<Value>>
GemmKernelWriter::epilogueTile(sck::EpilogueOp epilogue, IRMapping &mapping) {
  if (epilogue.getTransposed() != ir.transposed ||
      epilogue.getBody().empty() != !epilogueFn)
    return epilogue.emitError("sck-to-nvgpu: the epilogue of ")
           << (ir.transposed ? "a transposed" : "an untransposed")
           << " tile, its region built as the kernel's epilogue function";
  SmallVector<Value> at;
  for (Value v : epilogue.getCoords())
    at.push_back(lookup(v, b, mapping));
  if (at.size() != (ir.flatRows ? 2u : 3u))
    return epilogue.emitError("sck-to-nvgpu: a batched result tile");
  return at;
}

GemmKernelWriter::WarpgroupThread GemmKernelWriter::warpgroupThread() {
  WarpgroupThread t;
  t.inWg = rem(tid, index(128));
  t.warp = div(t.inWg, index(32));
  t.lane = rem(tid, index(32));
  t.quad = div(t.lane, index(4));
  return t;
}

std::pair<Value, Value> GemmKernelWriter::electedAndBarrier(Value inWg) {
  Value elected = cmp(arith::CmpIPredicate::eq, inWg, index(0));
  Value wgBar = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                           add(wg, index(2)));
  return {elected, wgBar};
}

LogicalResult GemmKernelWriter::writeEpilogue(sck::EpilogueOp epilogue,
                                              ArrayRef<Value> tile, Value accL,
                                              Value accR) {
  // (Flat rows: m0 a row of all batch elements', no batch coordinate.)
  Value n0 = tile[0], m0 = tile[1], bIdx = ir.flatRows ? Value() : tile[2];
  // Cooperative: this consumer's 64 rows of the tile.
  if (ir.cooperative)
    m0 = add(m0, mul(wg, index(kTileRows)));
  Type outType = op.getType().getElementType();
  int64_t outBytes = outType.getIntOrFloatBitWidth() / 8;
  int64_t boxCols = 128 / outBytes;
  // The wgmma accumulator's fragment: in each n8 group g, this thread has
  // rows warp * 16 + lane / 4 (+ 8) of the tile and columns 8 g + 2 (lane
  // % 4) (+ 1). Each 128-column half goes through the warpgroup's staging
  // tile (boxes of 64 rows x 128 bytes, 128B-swizzled as C's tensor map)
  // and out by TMA, which drops what lies past M or N.
  auto [inWg, warp, lane, quad] = warpgroupThread();
  Value rowRel0 = add(mul(warp, index(16)), quad);
  Value colPair = mul(rem(lane, index(4)), index(2));
  auto [elected, wgBar] = electedAndBarrier(inWg);
  Value wgCount = i32(128);
  auto stageType = MemRefType::get({kTileRows * 128 / outBytes}, outType,
                                   MemRefLayoutAttrInterface(),
                                   boxA.getMemorySpace());
  Value stage = memref::ViewOp::create(b, loc, stageType, smem, stageBase,
                                       ValueRange());
  SmallVector<int64_t> boxShape = {kTileRows, boxCols};
  if (!ir.flatRows)
    boxShape.insert(boxShape.begin(), 1);
  auto boxType = MemRefType::get(boxShape, outType, MemRefLayoutAttrInterface(),
                                 boxA.getMemorySpace());
  int64_t rowsPerItem = op.getType().getDimSize(1);
  Value mLast = ir.flatRows
                    ? arith::SubIOp::create(
                          b, loc,
                          mul(memref::DimOp::create(b, loc, c, 0),
                              index(rowsPerItem)),
                          index(1))
                    : index(rowsPerItem - 1);
  int64_t nLast = op.getType().getDimSize(2) - 1;
  // A prefetched box streams through the consumer's two buffers: subtile
  // u (columns [u C, u C + C), C = 128 bytes of elements) in buffer u % 2,
  // its (u / 2)-th fill of the tile (an even count a tile: the parity
  // starts over each tile).
  int64_t subCols = xBytes ? 128 / xBytes : 0;
  int64_t numSub = xBytes ? ir.tileN / subCols : 0;
  Type xType = ir.prefetch ? ir.prefetch.getType().getElementType() : Type();
  Value subtile;
  Value accs[2] = {accL, accR};
  // The (b, m) of this thread's two rows, clamped into the result: what
  // lies past it is computed on its last row and dropped by the store.
  // Flat rows: row r is row r mod M of batch element r / M.
  std::pair<Value, Value> rowOf[2];
  for (int64_t r = 0; r < 2; ++r) {
    Value m = arith::MinUIOp::create(b, loc, add(add(m0, rowRel0), index(8 * r)),
                                     mLast);
    rowOf[r] = ir.flatRows ? std::pair(div(m, index(rowsPerItem)),
                                       rem(m, index(rowsPerItem)))
                           : std::pair(bIdx, m);
  }
  // With one N tile (n0 = 0), columns from N on are never stored: their
  // epilogue and staging are skipped (a prefetched box streams through
  // every subtile, so not with one).
  std::optional<int64_t> nTiles =
      getConstantIntValue(ir.consumerLoop.getNTiles());
  int64_t liveCols =
      nTiles && *nTiles == 1 && !xBytes ? nLast + 1 : ir.tileN;
  int64_t halfCols = ir.halfCols();
  for (int64_t half = 0; half < ir.halves() && 128 * half < liveCols;
       ++half) {
    // TMA has read the staging tile (the previous half's stores).
    {
      auto ifElected = scf::IfOp::create(b, loc, elected, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifElected.getThenRegion().front());
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
    }
    NVVM::BarrierOp::create(b, loc, Type(), wgBar, wgCount, nullptr, Value());
    for (int64_t g = 0; g < halfCols / 8 && 128 * half + 8 * g < liveCols;
         ++g) {
      int64_t col = 128 * half + 8 * g;
      if (xBytes && col % subCols == 0) {
        int64_t u = col / subCols;
        Value bar = subtileBarrier(u);
        // Buffer u % 2's fill this is: its fills a tile times the tiles
        // before, plus u / 2; an even count a tile starts each tile over.
        int64_t fills = (numSub - u % 2 + 1) / 2;
        Value parity =
            fills % 2 == 0
                ? arith::ConstantIntOp::create(b, loc, b.getI1Type(), (u / 2) % 2)
                      .getResult()
                : arith::IndexCastOp::create(
                      b, loc, b.getI1Type(),
                      rem(add(mul(turn, index(fills)), index(u / 2)), index(2)))
                      .getResult();
        nvgpu::MBarrierTryWaitParityOp::create(b, loc, xBars, parity,
                                               index(kWaitTicks), bar);
        subtile = memref::ViewOp::create(
            b, loc,
            MemRefType::get({kSubtileBytes / xBytes}, xType,
                            MemRefLayoutAttrInterface(), boxA.getMemorySpace()),
            smem, subtileBuffer(u), ValueRange());
      }
      for (int64_t r = 0; r < 2; ++r) {
        int64_t reg = 4 * g + 2 * r;
        // The box's two elements of this pair, 128B-swizzled as its
        // subtile's tensor map writes them (row r % 8 is the quad).
        Value xPair;
        if (xBytes) {
          Value xBytesIn = mul(add(index(col % subCols), colPair), index(xBytes));
          Value xChunk = arith::XOrIOp::create(b, loc, div(xBytesIn, index(16)), quad);
          Value xOffset = add(mul(add(rowRel0, index(8 * r)), index(128)),
                              add(mul(xChunk, index(16)), rem(xBytesIn, index(16))));
          xPair = vector::LoadOp::create(b, loc, VectorType::get({2}, xType),
                                         subtile, ValueRange{div(xOffset, index(xBytes))});
        }
        // Column 8 g + colPair of the half: box q, column c in it; the
        // pair's 16-byte chunk is swizzled by the row (mod 8: the quad).
        int64_t q = 8 * g / boxCols;
        Value cInBox = add(index(8 * g % boxCols), colPair);
        Value bytes = mul(cInBox, index(outBytes));
        Value chunk = arith::XOrIOp::create(b, loc, div(bytes, index(16)), quad);
        Value rowRel = add(rowRel0, index(8 * r));
        Value offset = add(add(index(q * kTileRows * 128), mul(rowRel, index(128))),
                           add(mul(chunk, index(16)), rem(bytes, index(16))));
        // The pair's columns clamped as a pair (N is even): the first at
        // most N - 2, so the two stay neighbours and the epilogue's loads
        // of them can merge into one.
        Value pairN = arith::MinUIOp::create(
            b, loc, add(add(n0, colPair), index(128 * half + 8 * g)),
            index(nLast - 1));
        SmallVector<Value> values;
        for (int64_t e = 0; e < 2; ++e) {
          Value v = LLVM::ExtractValueOp::create(b, loc, accs[half], reg + e);
          if (epilogueFn) {
            // At indices clamped into the result: what lies past it is
            // computed on its last row or columns and dropped by the store.
            auto [bOfRow, m] = rowOf[r];
            SmallVector<Value> args = {v, bOfRow, m, add(pairN, index(e))};
            // Per operand its memref, or the box's element.
            for (Value in : epilogue.getIns())
              args.push_back(isa<sck::BoxType>(in.getType())
                                 ? vector::ExtractOp::create(b, loc, xPair, e)
                                       .getResult()
                                 : memrefOf.lookup(in));
            v = func::CallOp::create(b, loc, epilogueFn, args).getResult(0);
          } else if (outType != v.getType()) {
            v = arith::TruncFOp::create(b, loc, outType, v);
          }
          values.push_back(v);
        }
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, outType), values);
        vector::StoreOp::create(b, loc, pair, stage,
                                ValueRange{div(offset, index(outBytes))},
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(2 * outBytes));
      }
      // Every thread has read subtile u: subtile u + 2 goes into its buffer.
      if (xBytes && (col + 8) % subCols == 0 && col / subCols + 2 < numSub) {
        NVVM::BarrierOp::create(b, loc, Type(), wgBar, wgCount, nullptr, Value());
        loadSubtile(col / subCols + 2, elected);
      }
    }
    // The stores are visible to TMA, then the elected thread sends them.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    NVVM::BarrierOp::create(b, loc, Type(), wgBar, wgCount, nullptr, Value());
    auto ifElected = scf::IfOp::create(b, loc, elected, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifElected.getThenRegion().front());
    for (int64_t q = 0;
         q < halfCols / boxCols && 128 * half + q * boxCols < liveCols; ++q) {
      Value box = memref::ViewOp::create(
          b, loc, boxType, smem, add(stageBase, index(q * kTileRows * 128)),
          ValueRange());
      Value n = add(n0, index(128 * half + q * boxCols));
      SmallVector<Value> at = {n, m0};
      if (!ir.flatRows)
        at.push_back(bIdx);
      nvgpu::TmaAsyncStoreOp::create(b, loc, box, tmaC, at, Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
  return success();
}

LogicalResult GemmKernelWriter::writeTransposedEpilogue(
    sck::EpilogueOp epilogue, ArrayRef<Value> tile, Value accL, Value accR) {
  Value n0 = tile[0], m0 = tile[1], bIdx = tile[2];
  Type outType = op.getType().getElementType();
  // Register i of accumulator h (E's box h: columns n0 + 64 h ..) holds
  // n = 16 warp + lane / 4 + 8 ((i / 2) % 2) of the box and m = 8 (i / 4)
  // + 2 (lane % 4) + i % 2 of the tile: neighbouring registers are
  // neighbouring m. Chunk u (32 rows m: row groups 4 u .. 4 u + 3 of 8)
  // goes through two staging boxes ([32 m][64 n] 16-bit, one per h,
  // 128B-swizzled rows of m) stored 8 rows at a time by TMA (which drops
  // what lies past M); a prefetched f32 box's chunk is read from four
  // [32 m][32 n] boxes of the chunk's C buffer.
  auto [inWg, warp, lane, quad] = warpgroupThread();
  Value q = rem(lane, index(4));
  auto [elected, wgBar] = electedAndBarrier(inWg);
  Value wgCount = i32(128);
  auto space = boxA.getMemorySpace();
  Value stage = memref::ViewOp::create(
      b, loc,
      MemRefType::get({kTransposedStagingBytes / 2}, outType,
                      MemRefLayoutAttrInterface(), space),
      smem, stageBase, ValueRange());
  Value buffers;
  if (ir.prefetch)
    buffers = memref::ViewOp::create(
        b, loc,
        MemRefType::get({ir.consumerBytes(op) / 4}, b.getF32Type(),
                        MemRefLayoutAttrInterface(), space),
        smem, stageBase, ValueRange());
  auto boxType = MemRefType::get({1, 8, 64}, outType,
                                 MemRefLayoutAttrInterface(), space);
  Value mLast = index(op.getType().getDimSize(1) - 1);
  Value nLast = index(op.getType().getDimSize(2) - 1);
  // The row (m within 8) of register i's element and its byte in a
  // swizzled 128-byte row: chunk `c16` of 16 bytes, `within` it.
  auto swizzled = [&](Value row, Value c16, Value within) {
    Value chunk = arith::XOrIOp::create(b, loc, c16, row);
    return add(add(mul(row, index(128)), mul(chunk, index(16))), within);
  };
  int64_t groups = ir.tileM / 8;
  Value accs[2] = {accL, accR};
  for (int64_t u = 0; u < numChunks(); ++u) {
    int64_t groupsIn = std::min<int64_t>(4, groups - 4 * u);
    Value sel;
    if (ir.prefetch) {
      auto [s, parity] = chunkPlace(u);
      sel = s;
      nvgpu::MBarrierTryWaitParityOp::create(b, loc, xBars, parity,
                                             index(kWaitTicks),
                                             add(mul(wg, index(2)), sel));
    }
    // TMA has read the staging boxes (the chunk before's stores).
    {
      auto ifElected = scf::IfOp::create(b, loc, elected, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifElected.getThenRegion().front());
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
    }
    NVVM::BarrierOp::create(b, loc, Type(), wgBar, wgCount, nullptr, Value());
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t gg = 0; gg < groupsIn; ++gg)
        for (int64_t r = 0; r < 4; ++r) {
          int64_t gt = 4 * u + gg, hh = (r / 2) % 2, odd = r % 2;
          Value v = LLVM::ExtractValueOp::create(b, loc, accs[h], 4 * gt + r);
          Value row = add(mul(q, index(2)), index(odd)); // m within 8
          // n within the box: 16 warp + quad + 8 hh.
          Value nInBox = add(add(mul(warp, index(16)), quad), index(8 * hh));
          Value x;
          if (ir.prefetch) {
            // [32 m][32 n] f32 box 2 h + warp / 2 of the buffer: n within it
            // 16 (warp % 2) + 8 hh + quad, 4 bytes each.
            Value nInX = add(add(mul(rem(warp, index(2)), index(16)), index(8 * hh)),
                             quad);
            Value bytes = mul(nInX, index(4));
            Value offset = add(
                add(index(kTransposedStagingBytes + 8192 * h + 1024 * gg),
                    add(mul(sel, index(kChunkBytes)),
                        mul(div(warp, index(2)), index(4096)))),
                swizzled(row, div(bytes, index(16)), rem(bytes, index(16))));
            x = memref::LoadOp::create(b, loc, buffers,
                                       ValueRange{div(offset, index(4))});
          }
          if (epilogueFn) {
            // At indices clamped into the result: what lies past it is
            // computed on its last row or column and dropped by the store.
            Value m = arith::MinUIOp::create(
                b, loc, add(m0, add(index(8 * gt), row)), mLast);
            Value n = arith::MinUIOp::create(
                b, loc, add(n0, add(index(64 * h), nInBox)), nLast);
            SmallVector<Value> args = {v, bIdx, m, n};
            for (Value in : epilogue.getIns())
              args.push_back(isa<sck::BoxType>(in.getType()) ? x : memrefOf.lookup(in));
            v = func::CallOp::create(b, loc, epilogueFn, args).getResult(0);
          } else if (outType != v.getType()) {
            v = arith::TruncFOp::create(b, loc, outType, v);
          }
          // The staging box of (h, row group gg): 8 rows of 64 16-bit n.
          Value bytes = mul(nInBox, index(2));
          Value offset = add(index(4096 * h + 1024 * gg),
                             swizzled(row, div(bytes, index(16)), rem(bytes, index(16))));
          memref::StoreOp::create(b, loc, v, stage, ValueRange{div(offset, index(2))});
        }
    // The stores are visible to TMA, every thread has read the chunk's C
    // buffer: the elected thread sends the chunk's 8-row boxes and loads
    // chunk u + 2 into that buffer.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    NVVM::BarrierOp::create(b, loc, Type(), wgBar, wgCount, nullptr, Value());
    auto ifElected = scf::IfOp::create(b, loc, elected, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifElected.getThenRegion().front());
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t gg = 0; gg < groupsIn; ++gg) {
        Value box = memref::ViewOp::create(
            b, loc, boxType, smem, add(stageBase, index(4096 * h + 1024 * gg)),
            ValueRange());
        nvgpu::TmaAsyncStoreOp::create(
            b, loc, box, tmaC,
            ValueRange{add(n0, index(64 * h)), add(m0, index(8 * (4 * u + gg))), bIdx},
            Value());
      }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    if (ir.prefetch && u + 2 < numChunks())
      loadChunk(u + 2, elected);
  }
  return success();
}

LogicalResult GemmKernelWriter::write(gpu::GPUFuncOp func) {
  elementType = op.getLhs().getType().getElementType();
  // An m64n<N> accumulator: N / 2 f32 a thread (N = the half's columns;
  // transposed: the tile's rows m).
  accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(ir.transposed ? ir.tileM / 2 : ir.halfCols() / 2,
                             Float32Type::get(ctx)));
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto tmaSpace = IntegerAttr::get(IntegerType::get(ctx, 64), 3);
  auto mapType = [&](ArrayRef<int64_t> box) {
    return nvgpu::TensorMapDescriptorType::get(
        ctx, MemRefType::get(box, elementType, MemRefLayoutAttrInterface(), tmaSpace),
        nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  };
  // The boxes: [k, m] of A, [n, k] of B, with a leading 1 when batched
  // (the transposed tile: W's rows m, or a pair's half of them, of 64 k).
  bool lhsBatched = op.getLhs().getType().getRank() == 3;
  bool rhsBatched = op.getRhs().getType().getRank() == 3;
  int64_t aRows = !ir.transposed ? ir.aRows : ir.pairs ? ir.wHalfRows() : ir.tileM;
  SmallVector<int64_t> aBox = lhsBatched && !ir.flatRows
                                  ? SmallVector<int64_t>{1, aRows, kTileDepth}
                                  : SmallVector<int64_t>{aRows, kTileDepth};
  SmallVector<int64_t> bBox = rhsBatched ? SmallVector<int64_t>{1, kTileDepth, 64}
                                         : SmallVector<int64_t>{kTileDepth, 64};
  boxA = MemRefType::get(aBox, elementType, MemRefLayoutAttrInterface(), workgroup);
  boxB = MemRefType::get(bBox, elementType, MemRefLayoutAttrInterface(), workgroup);
  tmaA = UnrealizedConversionCastOp::create(b, loc, mapType(aBox), func.getArgument(0))
             .getResult(0);
  tmaB = UnrealizedConversionCastOp::create(b, loc, mapType(bBox), func.getArgument(1))
             .getResult(0);
  c = func.getArgument(2);
  // The epilogue operands (memrefs) follow C; C's tensor map follows them,
  // then the prefetched operand's. The kernel-level function takes (batch,
  // epilogue operands...).
  size_t numIns = op.getEpilogueIns().size();
  auto kernelIR = ir.consumer->getParentOfType<func::FuncOp>();
  for (size_t in = 0; in < numIns; ++in) {
    memrefOf[kernelIR.getArgument(1 + in)] = func.getArgument(3 + in);
  }
  auto module = func->getParentOfType<gpu::GPUModuleOp>();
  if (failed(buildEpilogueFunction(module, (func.getName() + "_epilogue").str())))
    return failure();
  // C's tensor map, and the prefetched operand's (the template's): boxes
  // of 64 rows x 128 bytes, 128B-swizzled, as the launch encodes them (the
  // transposed tile's: 8 rows of C, 32 x 32 f32 of the operand).
  auto rowsOf128Bytes = [&](Type element, Value pointer, int64_t rows,
                            int64_t cols) -> Value {
    // (Flat rows: C as one matrix of B x M rows.)
    SmallVector<int64_t> box = {rows, cols};
    if (!ir.flatRows)
      box.insert(box.begin(), 1);
    return UnrealizedConversionCastOp::create(
               b, loc,
               nvgpu::TensorMapDescriptorType::get(
                   ctx,
                   MemRefType::get(box, element,
                                   MemRefLayoutAttrInterface(), tmaSpace),
                   nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
                   nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
                   nvgpu::TensorMapOOBKind::OOB_ZERO,
                   nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE),
               pointer)
        .getResult(0);
  };
  Type outType = op.getType().getElementType();
  tmaC = rowsOf128Bytes(outType, func.getArgument(3 + numIns),
                        ir.transposed ? 8 : kTileRows,
                        128 * 8 / outType.getIntOrFloatBitWidth());
  if (ir.prefetch) {
    Type element = ir.prefetch.getType().getElementType();
    xBytes = element.getIntOrFloatBitWidth() / 8;
    tmaX = rowsOf128Bytes(element, func.getArgument(4 + numIns),
                          ir.transposed ? kChunkRows : kTileRows, 128 / xBytes);
  }

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The warpgroup from lane 0 (a shuffle): warp-uniform for ptxas, so the
  // role branches do not serialize wgmma.
  Value tid32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), tid);
  Value wgRaw = arith::DivUIOp::create(b, loc, tid32, i32(128));
  Value wgU = gpu::ShuffleOp::create(b, loc, wgRaw, i32(0), i32(32),
                                     gpu::ShuffleMode::IDX)
                  .getShuffleResult();
  wg = arith::IndexCastOp::create(b, loc, b.getIndexType(), wgU);
  cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  ctas = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  // The tile loop's counts: of batch elements (the kernel function's
  // first argument, C's first dim; one with flat rows), M and N tiles
  // (constants, or the flat rows' M tiles from the batch).
  IRMapping top;
  top.map(kernelIR.getArgument(0), memref::DimOp::create(b, loc, c, 0));
  batch = lookup(ir.consumerLoop.getBatches(), b, top);
  cGM = lookup(ir.consumerLoop.getMTiles(), b, top);
  cGN = lookup(ir.consumerLoop.getNTiles(), b, top);
  if (!batch || !cGM || !cGN)
    return ir.consumerLoop.emitError("sck-to-nvgpu: tile counts of other "
                                     "than constants and the batch");
  // CTA pairs (a cluster of two, persistent: the verifier's) count their
  // tiles in pairs of M tiles (N tiles: the transposed tile), a pair's two
  // CTAs walking the same ones.
  Value unit = cta, units = ctas;
  unitsM = cGM;
  unitsN = cGN;
  if (ir.pairs) {
    Value rank32 = NVVM::ClusterId::create(b, loc, b.getI32Type());
    rank = arith::IndexCastOp::create(b, loc, b.getIndexType(), rank32);
    peer = arith::SubIOp::create(b, loc, i32(1), rank32);
    if (ir.transposed)
      unitsN = div(cGN, index(2));
    else
      unitsM = div(add(cGM, index(1)), index(2));
    unit = div(cta, index(2));
    units = div(ctas, index(2));
  }
  Value numTiles = mul(batch, mul(unitsM, unitsN));
  // Tiles of this CTA. Strided: cta, cta + ctas, ... below numTiles.
  // Grid (as the launch counts them): a pair of tiles a CTA for ping-pong,
  // one for cooperative, the last CTA's possibly fewer.
  strided = ir.consumerLoop.getSchedule() == sck::TileSchedule::persistent || ir.flatRows;
  perCta = ir.cooperative ? 1 : 2;
  if (strided) {
    Value left = arith::SubIOp::create(b, loc, add(numTiles, units), add(unit, index(1)));
    Value any = cmp(arith::CmpIPredicate::ult, unit, numTiles);
    mine = arith::SelectOp::create(b, loc, any, div(left, units), index(0));
  } else {
    Value from = mul(cta, index(perCta));
    Value any = cmp(arith::CmpIPredicate::ult, from, numTiles);
    Value left = arith::SelectOp::create(
        b, loc, any, arith::SubIOp::create(b, loc, numTiles, from), index(0));
    mine = arith::MinUIOp::create(b, loc, left, index(perCta));
  }

  auto smemType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                  MemRefLayoutAttrInterface(), workgroup);
  smem = gpu::DynamicSharedMemoryOp::create(b, loc, smemType);
  // 128B-swizzled boxes want 1024-byte aligned shared memory.
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem);
  pad = rem(arith::SubIOp::create(b, loc, index(1024), rem(base, index(1024))),
            index(1024));
  smemBase = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  auto barsType = nvgpu::MBarrierGroupType::get(ctx, workgroup, stages);
  full = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
  empty = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
  if (ir.prefetch)
    xBars = nvgpu::MBarrierCreateOp::create(
        b, loc, nvgpu::MBarrierGroupType::get(ctx, workgroup, 4));
  {
    Value first = cmp(arith::CmpIPredicate::eq, tid, index(0));
    auto ifFirst = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
    auto slots = scf::ForOp::create(b, loc, index(0), index(stages), index(1));
    b.setInsertionPointToStart(slots.getBody());
    Value s = slots.getInductionVar();
    nvgpu::MBarrierInitOp::create(b, loc, full, index(1), s, Value());
    // Lane 0 of each warp of the consumer that read the slot.
    // (Cooperative: both consumers read every slot.)
    // (CTA pairs: the other CTA's consumer warps too.)
    nvgpu::MBarrierInitOp::create(
        b, loc, empty, index((ir.cooperative ? 8 : 4) * (ir.pairs ? 2 : 1)), s,
        Value());
    // The prefetched box's buffers: one TMA arrival each.
    if (ir.prefetch) {
      b.setInsertionPointAfter(slots);
      for (int64_t x = 0; x < 4; ++x)
        nvgpu::MBarrierInitOp::create(b, loc, xBars, index(1), index(x), Value());
    }
  }
  // CTA pairs: barriers one CTA initialized are used by the other, so
  // the inits are made visible cluster-wide before anyone arrives or loads.
  if (ir.pairs) {
    NVVM::FenceMbarrierInitOp::create(b, loc);
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  } else {
    gpu::BarrierOp::create(b, loc);
  }
  Value isProducer = cmp(arith::CmpIPredicate::eq, wg, index(2));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&roles.getThenRegion().front());
    NVVM::SetMaxRegisterOp::create(b, loc, ir.producer.getRegs(),
                                   NVVM::SetMaxRegisterAction::decrease);
    if (failed(writeProducer()))
      return failure();
    b.setInsertionPointToStart(&roles.getElseRegion().front());
    NVVM::SetMaxRegisterOp::create(b, loc, ir.consumer.getRegs(),
                                   NVVM::SetMaxRegisterAction::increase);
    // The warpgroup's staging tile (and the box's buffers), past the ring.
    stageBase = add(add(pad, index(stages * ir.slotBytes())),
                    mul(wg, index(ir.consumerBytes(op))));
    if (failed(writeConsumer()))
      return failure();
    // Shared memory must outlive the TMA stores that read it.
    Value elected = cmp(arith::CmpIPredicate::eq, rem(tid, index(128)), index(0));
    auto ifElected = scf::IfOp::create(b, loc, elected, false);
    b.setInsertionPointToStart(&ifElected.getThenRegion().front());
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr());
  }
  // No CTA of a pair leaves while the other may still write into it or
  // arrive on its barriers.
  if (ir.pairs) {
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  }
  gpu::ReturnOp::create(b, loc);
  return success();
}

namespace {
/// What the launch of a warp-specialized GEMM kernel depends on: its tile
/// (`tileM` x `tileN`, A's box of `aBoxRows` rows), shared memory, the
/// schedule (persistent or a grid of `tilesPerUnit` tiles a CTA), the
/// transposed tile, flat rows and the epilogue operand prefetched by TMA.
struct LaunchShape {
  int64_t tileM = 0, tileN = 0, aBoxRows = 0, sharedBytes = 0;
  bool persistent = true;
  int64_t tilesPerUnit = 1;
  bool transposed = false, flatRows = false;
  std::optional<unsigned> prefetched;
};
} // namespace

/// The launch of a warp-specialized GEMM kernel of parameters `params`:
/// 384 threads, the grid, shared memory.
static KernelLaunch warpSpecializedLaunch(BatchMatmulOp op,
                                          StringRef kernelName,
                                          const GemmBinding &binding,
                                          const LaunchShape &shape,
                                          ArrayRef<sc::detail::KernelParam> params) {
  using namespace sc::detail;
  RankedTensorType resultType = op.getType();
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 384;
  // Persistent: one CTA per SM. Grid: one per unit of work (a tile, a
  // pair of tiles for ping-pong). With rows flattened over the batch, the
  // tile count is ceil(B m / tileM) x N tiles: approximated by B m N-tiles
  // / tileM (the kernel's loop then walks its tiles with a stride of the
  // CTA count, so any count is correct).
  int64_t nTiles = llvm::divideCeil(n, shape.tileN);
  if (shape.persistent) {
    launch.grid[0] = LaunchDim::sym("SMS");
  } else {
    LaunchDim batches = binding.batchOf(resultType);
    int64_t perBatchNumerator = shape.flatRows
                                    ? m * nTiles
                                    : llvm::divideCeil(m, shape.tileM) * nTiles;
    int64_t divisor = shape.flatRows ? shape.tileM * shape.tilesPerUnit
                                     : shape.tilesPerUnit;
    if (batches.symbol.empty()) {
      launch.grid[0] = LaunchDim::of(
          llvm::divideCeil(batches.constant * perBatchNumerator, divisor));
    } else {
      launch.grid[0] = batches.times(perBatchNumerator);
      launch.grid[0].divisor = divisor;
    }
  }
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = LaunchDim::of(1);
  launch.sharedBytes = shape.sharedBytes;
  for (const sc::detail::KernelParam &param : params)
    launch.params.push_back(param.launch);
  return launch;
}

/// The kernel's parameters: A's and B's tensor maps, C and the epilogue
/// operands as memrefs, C's tensor map for the TMA stores and the
/// prefetched operand's.
static std::vector<sc::detail::KernelParam> kernelParams(BatchMatmulOp op,
                                             const GemmBinding &binding,
                                             const LaunchShape &shape) {
  using namespace sc::detail;
  RankedTensorType resultType = op.getType();
  Type elementType = op.getLhs().getType().getElementType();
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  int64_t outBytes = resultType.getElementType().getIntOrFloatBitWidth() / 8;
  Type pointer = LLVM::LLVMPointerType::get(op.getContext());
  std::vector<LaunchParam> params = tmaKernelParams(op, binding, shape.aBoxRows);
  LaunchDim batchDim = binding.batchOf(resultType);
  LaunchDim flatM = batchDim.times(m); // [B * M] rows
  if (shape.flatRows) {
    // A as one [B * M, K] matrix.
    int64_t bytes = elementType.getIntOrFloatBitWidth() / 8;
    params[0].dims = {LaunchDim::of(k), flatM};
    params[0].stridesBytes = {LaunchDim::of(k * bytes)};
    params[0].box = {kTileK, shape.tileM};
  }
  // A and B as tensor maps, C and the epilogue operands as memrefs.
  std::vector<sc::detail::KernelParam> out = {{pointer, params[0]},
                                 {pointer, params[1]},
                                 {memrefOf(resultType), params[2]}};
  for (auto [in, param] :
       llvm::zip(op.getEpilogueIns(), ArrayRef(params).drop_front(3)))
    out.push_back({memrefOf(cast<RankedTensorType>(in.getType())), param});
  // C's tensor map for the TMA stores: boxes of 64 rows x 128 bytes.
  LaunchParam c;
  c.kind = LaunchParam::Kind::Tma;
  c.tensor = binding.result;
  if (shape.flatRows) {
    c.dims = {LaunchDim::of(n), flatM};
    c.stridesBytes = {LaunchDim::of(n * outBytes)};
    c.box = {128 / outBytes, 64};
  } else {
    c.dims = {LaunchDim::of(n), LaunchDim::of(m), batchDim};
    c.stridesBytes = {LaunchDim::of(n * outBytes),
                      LaunchDim::of(m * n * outBytes)};
    // (Transposed: the epilogue stores 8 rows at a time.)
    c.box = {128 / outBytes, shape.transposed ? 8 : 64, 1};
  }
  out.push_back({pointer, c});
  if (std::optional<unsigned> prefetched = shape.prefetched) {
    // The gathered operand's tensor map: [U, M, N] in boxes like C's.
    auto xType = cast<RankedTensorType>(op.getEpilogueIns()[*prefetched].getType());
    LaunchParam x;
    x.kind = LaunchParam::Kind::Tma;
    x.tensor = binding.epilogueIns[*prefetched];
    // Bounded by its own batch (U), so a g(b) out of range reads zeros.
    LaunchDim xBatch = *prefetched < binding.epilogueInBatches.size()
                           ? binding.epilogueInBatches[*prefetched]
                           : binding.batchOf(xType);
    x.dims = {LaunchDim::of(n), LaunchDim::of(m), xBatch};
    int64_t xBytes = xType.getElementType().getIntOrFloatBitWidth() / 8;
    x.stridesBytes = {LaunchDim::of(n * xBytes), LaunchDim::of(m * n * xBytes)};
    x.box = {128 / xBytes, shape.transposed ? 32 : 64, 1};
    out.push_back({pointer, x});
  }
  return out;
}

/// The IR of `op`'s kernel function, when the lowering takes it; else a
/// located error saying why not.
static FailureOr<KernelIR> lowerable(BatchMatmulOp op) {
  FailureOr<func::FuncOp> kernel = sc::detail::kernelIRFunction(op);
  if (failed(kernel))
    return failure();
  if (!*kernel)
    return op.emitError("the warp-specialized GEMM kernels are written from "
                        "the kernel-level IR: run sc-lower-to-sck and "
                        "sc-warp-specialize first");
  std::string why;
  std::optional<KernelIR> ir = matchKernelIR(*kernel, why);
  if (ir && (*kernel).getNumArguments() != 1 + op.getEpilogueIns().size())
    why = "a kernel-level function of other than (batch, epilogue operands...)";
  if (!why.empty())
    return kernel->emitError("sck-to-nvgpu does not lower ") << why;
  return *ir;
}

FailureOr<KernelLaunch> mlir::sc::detail::buildGemmKernelFromIR(
    BatchMatmulOp op, gpu::GPUModuleOp module, StringRef kernelName,
    const GemmBinding &binding) {
  FailureOr<KernelIR> ir = lowerable(op);
  if (failed(ir))
    return failure();
  // Ops of an unloaded dialect would be built unregistered.
  op.getContext()
      ->loadDialect<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                    LLVM::LLVMDialect, memref::MemRefDialect,
                    NVVM::NVVMDialect, nvgpu::NVGPUDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  // The ring: as many slots as the IR asks, or as fit next to the two
  // consumers' staging tiles and 1 KB of alignment.
  int64_t slotBytes = ir->slotBytes();
  int64_t consumersBytes = 2 * ir->consumerBytes(op);
  int64_t fit = (kSharedMemoryBytes - consumersBytes - kSmemAlignReserve - 256) /
                slotBytes;
  int64_t stages = ir->ring.getStages() ? ir->ring.getStages() : fit;
  if (stages < 2 || stages > fit)
    return ir->ring.emitError("the kernel-level IR asks for ")
           << stages << " ring stages; " << fit << " fit (slots of "
           << slotBytes << " bytes next to the consumers' " << consumersBytes
           << ")";
  int64_t sharedBytes = stages * slotBytes + consumersBytes + kSmemAlignReserve;
  LaunchShape shape;
  shape.tileM = ir->transposed ? ir->tileM : ir->aRows;
  shape.tileN = ir->transposed ? 128 : ir->tileN;
  shape.aBoxRows = !ir->transposed ? ir->aRows
                   : ir->pairs     ? ir->wHalfRows()
                                   : ir->tileM;
  shape.sharedBytes = sharedBytes;
  shape.persistent = ir->consumerLoop.getSchedule() == sck::TileSchedule::persistent;
  shape.tilesPerUnit = ir->cooperative ? 1 : 2;
  shape.transposed = ir->transposed;
  shape.flatRows = ir->flatRows;
  if (ir->prefetch)
    shape.prefetched =
        cast<BlockArgument>(ir->prefetch.getSource()).getArgNumber() - 1;
  // The signature and the launch's parameters from one list.
  std::vector<sc::detail::KernelParam> params = kernelParams(op, binding, shape);
  SmallVector<Type> types = llvm::map_to_vector(
      params, [](const sc::detail::KernelParam &param) { return param.type; });
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = ir->ring.getLoc();
  auto func = gpu::GPUFuncOp::create(b, op.getLoc(), kernelName,
                                     b.getFunctionType(types, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                b.getDenseI32ArrayAttr({384, 1, 1}));
  if (ir->pairs)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({2, 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  GemmKernelWriter writer(op, *ir, stages, b, loc);
  if (failed(writer.write(func))) {
    func.erase();
    if (auto f = module.lookupSymbol<func::FuncOp>((kernelName + "_epilogue").str()))
      f.erase();
    return failure();
  }

  KernelLaunch launch =
      warpSpecializedLaunch(op, kernelName, binding, shape, params);
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  std::string tile =
      ir->transposed
          ? "each consumer a tile of its own of " + std::to_string(ir->tileM) +
                " rows x 128 columns computed transposed (E^T W^T: two m64n" +
                std::to_string(ir->tileM) +
                " accumulators, E read MN-major, epilogue in chunks of 32 rows)"
      : ir->cooperative
          ? "both consumers on one 128x" + std::to_string(ir->tileN) + "x64 tile"
          : "each consumer a 64x" + std::to_string(ir->tileN) +
                "x64 tile of its own";
  launch.summary = llvm::formatv(
      "{0}: {1}x{2}x{3} {4}, warp-specialized{5}, {6}: producer warpgroup "
      "(TMA, {7} registers) + 2 consumer warpgroups (wgmma + epilogue, {8} "
      "registers), {9}, {10} stages, {11} k-tiles, {12}, {13} B shared "
      "memory, epilogue {14} in registers, TMA stores",
      kernelName, m, n, k,
      sc::detail::typeToString(op.getLhs().getType().getElementType()),
      shape.persistent ? " persistent" : "",
      ir->transposed ? "transposed ping-pong"
      : ir->cooperative ? "cooperative"
                        : "ping-pong",
      ir->producer.getRegs(), ir->consumer.getRegs(), tile, stages,
      llvm::divideCeil(k, kTileDepth),
      shape.persistent
          ? "one CTA per SM walking tiles in groups of " +
                std::to_string(ir->consumerLoop.getGroup()) + " M tiles"
          : ir->cooperative ? std::string("one CTA per tile")
                            : std::string("one CTA per pair of tiles"),
      sharedBytes, ir->epilogue.getBody().empty() ? "convert" : "fused (region)");
  if (ir->pairs)
    launch.summary += ir->transposed
                          ? ", clusters of 2 CTAs on pairs of N tiles sharing "
                            "W's rows by TMA multicast"
                          : ", clusters of 2 CTAs on pairs of M tiles sharing B "
                            "by TMA multicast";
  if (ir->prefetch)
    launch.summary += "; the epilogue's gathered operand " +
                      binding.epilogueIns[*shape.prefetched] +
                      " read at [g(b), m, n] is loaded by TMA in " +
                      (ir->transposed ? "32x128 f32 chunks"
                                      : "64-row x 128-byte subtiles") +
                      " through two buffers a consumer, the first two during "
                      "the tile's wgmma";
  if (ir->flatRows)
    launch.summary += "; lhs batch elements as one matrix of B x " +
                      std::to_string(m) + " rows, tiles across them";
  launch.summary += "; written from the kernel-level IR by sck-to-nvgpu";
  return launch;
}
