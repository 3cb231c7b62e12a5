//===- HybridGemmKernel.cpp - a hybrid-tiled GEMM's kernel from its sck IR ===//
//
// y = x W^T with W in hybrid dense / 2:4 / zero tiles (docs/hybrid-tiles.md),
// written op by op from the GEMM's warp-specialized kernel-level function
// (sc-lower-to-sck, sc-persistent, sc-warp-specialize): each sck op has its
// lowering below, shapes taken from the !sck types.
//
//   sck.ring        shared-memory slots (one box of each of its types a
//                   slot, 128B-swizzled boxes on 1024-byte boundaries) with
//                   full / empty mbarriers; the dense and the 2:4 tiles'
//                   rings share their slots, barriers and counters (a
//                   k-tile puts into one of them or neither)
//   sck.role        a warpgroup's branch (consumers: warpgroups 0 .. C - 1,
//                   each on 64 weight rows of the tile; the producer: C,
//                   one elected thread)
//   sck.tile_loop   this CTA's tiles (grid: one; persistent: c, c + CTAs..)
//   sck.hybrid_tile the kind and slot from the packed tables
//   sck.load        (producer) recorded for the put that loads it
//   sck.put         wait for a free slot, expect its bytes, TMA loads
//   sck.get         wait for the next full slot: its boxes' offsets
//   sck.release     the consumer warps' arrivals on the slot's empty barrier
//   sck.zero        a zero accumulator (the wgmma fragment)
//   sck.mma         wgmma m64nNk16 over the boxes' k
//   sck.mma_sp      sparse wgmma m64nNk32, each thread's metadata word
//                   gathered from the metadata box
//   sck.epilogue    each accumulator element through the epilogue function
//                   (or converted) and stored transposed, inside the result
//
// Each wgmma group is waited for before the next op, so a release after
// the MMAs that read a slot frees it safely.
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
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
/// Rows of W a tile (the wgmma's M), threads of a warpgroup.
constexpr int64_t kBand = 64, kWarpgroup = 128;
/// The mbarrier try_wait's suspend-time hint.
constexpr int64_t kWaitTicks = 10000000;
/// Room kept for the mbarriers past the dynamic-memory symbol (at most 3
/// rings x 2 x 8 slots x 8 bytes).
constexpr int64_t kBarrierBytes = 512;
/// Dynamic shared memory a CTA may use, and what keeps two CTAs an SM.
constexpr int64_t kSharedLimit = 232448, kTwoCtaShared = 113 * 1024;
/// The wgmma shared-memory descriptor of a 128B-swizzled K-major box
/// (swizzle mode in bits 62-63, 1024 bytes between 8-row groups).
constexpr int64_t kDescriptorBits = 0x4000004002000000;

/// The TMA parts of a box of `type`: 128-byte-wide swizzled columns of
/// its rows as stored (a transposed box is stored [cols][rows]), or one
/// unswizzled part when a row is narrower.
struct BoxParts {
  int64_t rows = 0, colsPerPart = 0, parts = 0, bytesPerPart = 0;
  bool swizzled = true;
  static BoxParts of(sck::BoxType type, bool transposed) {
    BoxParts p;
    int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    p.rows = transposed ? type.getShape()[1] : type.getShape()[0];
    int64_t cols = transposed ? type.getShape()[0] : type.getShape()[1];
    p.swizzled = cols * bytes >= 128;
    p.colsPerPart = p.swizzled ? 128 / bytes : cols;
    p.parts = cols / p.colsPerPart;
    p.bytesPerPart = p.rows * p.colsPerPart * bytes;
    return p;
  }
  int64_t bytes() const { return parts * bytesPerPart; }
};

/// A ring's place in shared memory: its slots from `base`, each box of a
/// slot at its offset, and its barriers.
struct RingLayout {
  SmallVector<int64_t> boxOffsets;
  SmallVector<BoxParts> boxParts;
  int64_t slotBytes = 0, base = 0;
  Value full, empty;
  /// The ring whose slots, barriers and counters this one uses (itself,
  /// or the dense tiles' ring for the 2:4 tiles').
  Value owner;
};

/// Whether `ring` carries a tile of the weight (dense, or 2:4 values and
/// metadata): the rings that share their slots.
static bool isWeightRing(sck::RingOp ring) {
  for (Operation *user : ring->getUsers())
    if (auto put = dyn_cast<sck::PutOp>(user))
      for (Value box : put.getBoxes())
        if (auto load = box.getDefiningOp<sck::LoadOp>())
          return load.getOperand().starts_with("B.");
  return false;
}

/// Consumer warpgroups of the kernel-level function (sc-lower-to-sck's
/// record: one per 64 weight rows of a tile).
static int64_t consumersOf(func::FuncOp kernelIR) {
  auto count = kernelIR->getAttrOfType<IntegerAttr>("sck.consumers");
  return count ? count.getInt() : 1;
}

/// The operands a kernel loads from: their tensor map parameter and whether
/// their boxes are read transposed.
struct Operand {
  unsigned param;
  Type element;
};

class HybridKernelLowering : sc::detail::KernelArith {
public:
  HybridKernelLowering(BatchMatmulOp op, func::FuncOp kernelIR, OpBuilder &b)
      : KernelArith(b, op.getLoc()), op(op), kernelIR(kernelIR),
        ctx(op.getContext()) {}

  /// Lays out the rings (`stages` slots each) and writes the kernel body
  /// into `func`.
  LogicalResult write(gpu::GPUFuncOp func, int64_t stages);

  /// The shared memory the rings need at `stages` slots each, with room
  /// for the barriers and 1024 bytes of alignment.
  static int64_t sharedBytes(func::FuncOp kernelIR, int64_t stages);

private:
  Value lookup(Value v);

  // One lowering per op of the kernel-level function.
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation &o);
  LogicalResult lowerRole(sck::RoleOp role);
  LogicalResult lowerTileLoop(sck::TileLoopOp loop);
  LogicalResult lowerFor(scf::ForOp loop);
  LogicalResult lowerSwitch(scf::IndexSwitchOp cases);
  /// Lowers `from`'s ops at the insertion point and yields (scf.yield)
  /// what its terminator yields, lowered.
  LogicalResult lowerYieldingBlock(Block &from);
  void lowerHybridTile(sck::HybridTileOp tile);
  LogicalResult lowerPut(sck::PutOp put);
  void lowerGet(sck::GetOp get);
  void lowerRelease(sck::ReleaseOp release);
  void lowerZero(sck::ZeroOp zero);
  LogicalResult lowerMma(sck::MmaOp mma);
  LogicalResult lowerMmaSparse(sck::MmaSparseOp mma);
  LogicalResult lowerEpilogue(sck::EpilogueOp epilogue);

  /// The next position of ring `ring`'s counter `which` (0 put / get, 1
  /// release), counted per role, and the counter advanced.
  Value takePosition(Value ring, int which);
  /// The slot of ring position `j`, and the parity a waiter on its full
  /// (`free` false) or empty barrier waits for.
  std::pair<Value, Value> slotOf(const RingLayout &ring, int64_t stages,
                                 Value j, bool free);
  Value descriptor(Value byteOffset);
  /// `acc` after the wgmma ops `issue` builds, as one waited-for group.
  Value mmaGroup(function_ref<Value(Value)> issue, Value acc);

  BatchMatmulOp op;
  func::FuncOp kernelIR;
  MLIRContext *ctx;
  IRMapping map;
  int64_t stages = 0, consumers = 1;
  llvm::MapVector<Value, RingLayout> rings;
  /// Per ring, this role's two counters (memref<2xindex>).
  DenseMap<Value, Value> counters;
  llvm::StringMap<Operand> operands;
  SmallVector<Value> tensorMaps;
  Value smem, smemBase, pad, tid, wg, kinds, slots, result;
  /// In a consumer: the first of its 64 weight rows within the tile, and
  /// that row's byte offset in a 128-byte-wide box.
  Value consumerRow, consumerBoxBytes;
  Value cta, ctas;
  Type element;
  /// The element-wise epilogue as a device function (null: convert) and
  /// the kernel's memrefs of the kernel-level function's tensors.
  func::FuncOp epilogueFn;
  DenseMap<Value, Value> memrefOf;
};
} // namespace

int64_t HybridKernelLowering::sharedBytes(func::FuncOp kernelIR,
                                          int64_t stages) {
  int64_t bytes = 1024 + kBarrierBytes, weightSlot = 0;
  kernelIR.walk([&](sck::RingOp ring) {
    int64_t slot = 0;
    for (Type t : ring.getType().getBoxes())
      slot += llvm::alignTo(BoxParts::of(cast<sck::BoxType>(t), false).bytes(),
                            1024);
    if (isWeightRing(ring))
      weightSlot = std::max(weightSlot, slot);
    else
      bytes += stages * slot;
  });
  return bytes + stages * weightSlot;
}

Value HybridKernelLowering::lookup(Value v) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  // A constant of the kernel-level function's top level, cloned here.
  if (auto constant = v.getDefiningOp<arith::ConstantOp>()) {
    Value copy = b.clone(*constant)->getResult(0);
    map.map(v, copy);
    return copy;
  }
  return Value();
}

std::pair<Value, Value> HybridKernelLowering::slotOf(const RingLayout &ring,
                                                     int64_t stages, Value j,
                                                     bool free) {
  Value slot = rem(j, index(stages));
  Value phase = rem(div(j, index(stages)), index(2));
  if (free)
    phase = arith::XOrIOp::create(b, loc, phase, index(1));
  return {slot, arith::IndexCastOp::create(b, loc, b.getI1Type(), phase)};
}

Value HybridKernelLowering::takePosition(Value ring, int which) {
  Value counter = counters.lookup(rings[ring].owner);
  Value j = memref::LoadOp::create(b, loc, counter, ValueRange{index(which)});
  memref::StoreOp::create(b, loc, add(j, index(1)), counter,
                          ValueRange{index(which)});
  return j;
}

Value HybridKernelLowering::descriptor(Value byteOffset) {
  Value off = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOffset);
  Value address = arith::AddIOp::create(b, loc, smemBase, off);
  auto i64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  };
  Value encoded = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, address, i64(0x3FFFF)), i64(4));
  return arith::OrIOp::create(b, loc, encoded, i64(kDescriptorBits));
}

LogicalResult HybridKernelLowering::lowerBlock(Block &block) {
  for (Operation &o : block.without_terminator())
    if (failed(lowerOp(o)))
      return failure();
  return success();
}

LogicalResult HybridKernelLowering::lowerOp(Operation &o) {
  if (isa<sck::RingOp, sck::LoadOp>(o))
    return success(); // laid out up front; read by the put
  if (auto role = dyn_cast<sck::RoleOp>(o))
    return lowerRole(role);
  if (auto loop = dyn_cast<sck::TileLoopOp>(o))
    return lowerTileLoop(loop);
  if (auto loop = dyn_cast<scf::ForOp>(o))
    return lowerFor(loop);
  if (auto cases = dyn_cast<scf::IndexSwitchOp>(o))
    return lowerSwitch(cases);
  if (auto tile = dyn_cast<sck::HybridTileOp>(o))
    return lowerHybridTile(tile), success();
  if (auto put = dyn_cast<sck::PutOp>(o))
    return lowerPut(put);
  if (auto get = dyn_cast<sck::GetOp>(o))
    return lowerGet(get), success();
  if (auto release = dyn_cast<sck::ReleaseOp>(o))
    return lowerRelease(release), success();
  if (auto zero = dyn_cast<sck::ZeroOp>(o))
    return lowerZero(zero), success();
  if (auto mma = dyn_cast<sck::MmaOp>(o))
    return lowerMma(mma);
  if (auto mma = dyn_cast<sck::MmaSparseOp>(o))
    return lowerMmaSparse(mma);
  if (auto epilogue = dyn_cast<sck::EpilogueOp>(o))
    return lowerEpilogue(epilogue);
  if (isa<arith::ArithDialect>(o.getDialect())) {
    for (Value operand : o.getOperands())
      if (!lookup(operand))
        return o.emitError("hybrid-gemm-kernel: a value from outside the "
                           "kernel that is not a constant");
    b.clone(o, map);
    return success();
  }
  return o.emitError("hybrid-gemm-kernel: no lowering for this op");
}

LogicalResult HybridKernelLowering::lowerRole(sck::RoleOp role) {
  // Consumers: warpgroups 0 .. C - 1; producer: warpgroup C, one elected
  // thread.
  bool producer = role.getKind() == sck::RoleKind::producer;
  Value mine = producer ? cmp(arith::CmpIPredicate::eq, wg, index(consumers))
                        : cmp(arith::CmpIPredicate::ult, wg, index(consumers));
  auto ifRole = scf::IfOp::create(b, loc, mine, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifRole.getThenRegion().front());
  // One consumer keeps the registers of the launch (sc-warp-specialize
  // gives both roles its budget): that is what its tile needs, and a
  // setmaxnreg move measured to fault where two CTAs share an SM. Two
  // consumers (one CTA an SM) take the producer's by setmaxnreg.
  if (consumers > 1)
    NVVM::SetMaxRegisterOp::create(b, loc, role.getRegs(),
                                   producer ? NVVM::SetMaxRegisterAction::decrease
                                            : NVVM::SetMaxRegisterAction::increase);
  if (producer) {
    Value elected =
        cmp(arith::CmpIPredicate::eq, tid, index(consumers * kWarpgroup));
    auto ifElected = scf::IfOp::create(b, loc, elected, /*withElse=*/false);
    b.setInsertionPointToStart(&ifElected.getThenRegion().front());
  } else {
    consumerRow = mul(wg, index(kBand));
    // A 128-byte-wide box row a row: 64 rows on.
    consumerBoxBytes = mul(wg, index(kBand * 128));
  }
  // This role's ring counters: puts or gets (0) and releases (1), one pair
  // a ring that owns its slots.
  for (auto &[ring, layout] : rings) {
    if (layout.owner != ring)
      continue;
    Value counter = memref::AllocaOp::create(
        b, loc, MemRefType::get({2}, b.getIndexType()));
    memref::StoreOp::create(b, loc, index(0), counter, ValueRange{index(0)});
    memref::StoreOp::create(b, loc, index(0), counter, ValueRange{index(1)});
    counters[ring] = counter;
  }
  return lowerBlock(role.getBody().front());
}

LogicalResult HybridKernelLowering::lowerTileLoop(sck::TileLoopOp loop) {
  Value batches = lookup(loop.getBatches()), mTiles = lookup(loop.getMTiles()),
        nTiles = lookup(loop.getNTiles());
  if (!batches || !mTiles || !nTiles)
    return loop.emitError("hybrid-gemm-kernel: tile counts from outside");
  // Tile t: N fastest (the bands of W that share the tokens' box), then M,
  // then the batch element. Grid: CTA c runs tile c; persistent: c, c +
  // CTAs, ...
  Value numTiles = mul(batches, mul(mTiles, nTiles));
  Value step = loop.getSchedule() == sck::TileSchedule::persistent ? ctas : numTiles;
  auto tiles = scf::ForOp::create(b, loc, cta, numTiles, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(tiles.getBody());
  Value t = tiles.getInductionVar();
  Block &body = loop.getBody().front();
  Value perBatch = mul(mTiles, nTiles);
  map.map(body.getArgument(0), div(t, perBatch));
  map.map(body.getArgument(1), div(rem(t, perBatch), nTiles));
  map.map(body.getArgument(2), rem(t, nTiles));
  return lowerBlock(body);
}

LogicalResult HybridKernelLowering::lowerFor(scf::ForOp loop) {
  SmallVector<Value> inits;
  for (Value v : loop.getInitArgs())
    inits.push_back(lookup(v));
  Value lb = lookup(loop.getLowerBound()), ub = lookup(loop.getUpperBound()),
        step = lookup(loop.getStep());
  if (!lb || !ub || !step || llvm::is_contained(inits, Value()))
    return loop.emitError("hybrid-gemm-kernel: loop bounds from outside");
  auto copy = scf::ForOp::create(b, loc, lb, ub, step, inits);
  {
    OpBuilder::InsertionGuard guard(b);
    // (A loop without results comes with its yield: replaced below.)
    if (!copy.getBody()->empty())
      copy.getBody()->getTerminator()->erase();
    b.setInsertionPointToStart(copy.getBody());
    map.map(loop.getInductionVar(), copy.getInductionVar());
    for (auto [from, to] :
         llvm::zip(loop.getRegionIterArgs(), copy.getRegionIterArgs()))
      map.map(from, to);
    if (failed(lowerYieldingBlock(*loop.getBody())))
      return failure();
  }
  for (auto [from, to] : llvm::zip(loop.getResults(), copy.getResults()))
    map.map(from, to);
  return success();
}

LogicalResult HybridKernelLowering::lowerYieldingBlock(Block &from) {
  if (failed(lowerBlock(from)))
    return failure();
  SmallVector<Value> yielded;
  for (Value v : from.getTerminator()->getOperands())
    yielded.push_back(lookup(v));
  scf::YieldOp::create(b, loc, yielded);
  return success();
}

LogicalResult HybridKernelLowering::lowerSwitch(scf::IndexSwitchOp cases) {
  // Results of kernel types (accumulators) take their lowered types, known
  // from the init of the enclosing loop's accumulator.
  SmallVector<Type> types;
  for (Value v : cases.getDefaultBlock().getTerminator()->getOperands())
    types.push_back(lookup(v).getType());
  auto copy = scf::IndexSwitchOp::create(b, loc, types, lookup(cases.getArg()),
                                         cases.getCases(), cases.getNumCases());
  for (auto [from, to] : llvm::zip(cases->getRegions(), copy->getRegions())) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&to.emplaceBlock());
    if (failed(lowerYieldingBlock(from.front())))
      return failure();
  }
  for (auto [from, to] : llvm::zip(cases.getResults(), copy.getResults()))
    map.map(from, to);
  return success();
}

void HybridKernelLowering::lowerHybridTile(sck::HybridTileOp tile) {
  SmallVector<Value, 2> at = {lookup(tile.getRow()), lookup(tile.getCol())};
  // Lane 0's values, broadcast: ptxas then knows the kind switch is
  // warp-uniform and keeps the wgmmas in its cases asynchronous (on a
  // divergent path it serializes them, warning C7520).
  auto uniform = [&](Value v) {
    Value all = arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1);
    Value lane0 = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    Value clamp = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 31);
    return NVVM::ShflOp::create(b, loc, b.getI32Type(), all, v, lane0, clamp,
                                NVVM::ShflKind::idx, UnitAttr())
        .getResult();
  };
  Value kind = uniform(arith::ExtUIOp::create(
      b, loc, b.getI32Type(), memref::LoadOp::create(b, loc, kinds, at)));
  Value slot = uniform(memref::LoadOp::create(b, loc, slots, at));
  map.map(tile.getKind(),
          arith::IndexCastOp::create(b, loc, b.getIndexType(), kind));
  map.map(tile.getSlot(),
          arith::IndexCastOp::create(b, loc, b.getIndexType(), slot));
}

LogicalResult HybridKernelLowering::lowerPut(sck::PutOp put) {
  const RingLayout &ring = rings[put.getRing()];
  Value j = takePosition(put.getRing(), 0);
  auto [slot, freeParity] = slotOf(ring, stages, j, /*free=*/true);
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, ring.empty, freeParity,
                                         index(kWaitTicks), slot);
  int64_t bytes = 0;
  for (const BoxParts &parts : ring.boxParts)
    bytes += parts.bytes();
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, ring.full, index(bytes), slot,
                                          Value());
  Value slotBase = add(add(pad, index(ring.base)), mul(slot, index(ring.slotBytes)));
  for (auto [i, box] : llvm::enumerate(put.getBoxes())) {
    auto load = box.getDefiningOp<sck::LoadOp>();
    if (!load || !operands.count(load.getOperand()))
      return put.emitError("hybrid-gemm-kernel: a put of boxes loaded from "
                           "the kernel's operands");
    const Operand &operand = operands[load.getOperand()];
    const BoxParts &parts = ring.boxParts[i];
    SmallVector<Value> at;
    for (Value v : load.getCoords())
      at.push_back(lookup(v));
    // The TMA box [1, rows, colsPerPart] of each part, along the innermost
    // coordinate.
    auto view = MemRefType::get(
        {1, parts.rows, parts.colsPerPart}, operand.element,
        MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
    for (int64_t p = 0; p < parts.parts; ++p) {
      SmallVector<Value> partAt = at;
      partAt[0] = add(partAt[0], index(p * parts.colsPerPart));
      Value dst = memref::ViewOp::create(
          b, loc, view, smem,
          add(slotBase, index(ring.boxOffsets[i] + p * parts.bytesPerPart)),
          ValueRange());
      nvgpu::TmaAsyncLoadOp::create(b, loc, dst, ring.full,
                                    tensorMaps[operand.param], partAt, slot,
                                    Value(), Value());
    }
  }
  return success();
}

void HybridKernelLowering::lowerGet(sck::GetOp get) {
  const RingLayout &ring = rings[get.getRing()];
  Value j = takePosition(get.getRing(), 0);
  auto [slot, parity] = slotOf(ring, stages, j, /*free=*/false);
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, ring.full, parity,
                                         index(kWaitTicks), slot);
  // A box is its byte offset in dynamic shared memory.
  Value slotBase = add(add(pad, index(ring.base)), mul(slot, index(ring.slotBytes)));
  for (auto [i, box] : llvm::enumerate(get.getBoxes()))
    map.map(box, add(slotBase, index(ring.boxOffsets[i])));
}

void HybridKernelLowering::lowerRelease(sck::ReleaseOp release) {
  const RingLayout &ring = rings[release.getRing()];
  Value j = takePosition(release.getRing(), 1);
  Value slot = slotOf(ring, stages, j, /*free=*/false).first;
  // Lane 0 of each of the consumer's four warps arrives.
  Value laneZero = cmp(arith::CmpIPredicate::eq, rem(tid, index(32)), index(0));
  auto ifLane = scf::IfOp::create(b, loc, laneZero, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLane.getThenRegion().front());
  nvgpu::MBarrierArriveOp::create(b, loc, nvgpu::MBarrierTokenType::get(ctx),
                                  ring.empty, slot);
}

/// The wgmma accumulator of an m64nN tile: N / 2 f32 a thread.
static Type accumulatorType(sck::AccType acc) {
  MLIRContext *ctx = acc.getContext();
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(acc.getShape()[1] / 2, Float32Type::get(ctx)));
}

void HybridKernelLowering::lowerZero(sck::ZeroOp zero) {
  map.map(zero.getResult(),
          LLVM::ZeroOp::create(b, loc, accumulatorType(zero.getType())));
}

Value HybridKernelLowering::mmaGroup(function_ref<Value(Value)> issue,
                                     Value acc) {
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  acc = issue(acc);
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  return acc;
}

LogicalResult HybridKernelLowering::lowerMma(sck::MmaOp mma) {
  // A: the weight's box (rows by k, K-major), B: the tokens' box (stored
  // tokens by k, K-major: read transposed). A k16 step is 32 bytes along
  // a 128-byte part; each 64-column part of a box is its own swizzled tile.
  sck::BoxType aType = mma.getA().getType(), bType = mma.getB().getType();
  BoxParts aParts = BoxParts::of(aType, false), bParts = BoxParts::of(bType, true);
  int64_t n = mma.getAcc().getType().getShape()[1];
  if (aType.getShape()[0] != kBand * consumers || !aParts.swizzled ||
      !bParts.swizzled || n % 8 != 0 || n > 256)
    return mma.emitError("hybrid-gemm-kernel: an MMA other than 64 rows a "
                         "consumer by a multiple of 8 up to 256 over 128-byte "
                         "parts");
  // This consumer's 64 rows of the weight's box.
  Value a = add(lookup(mma.getA()), consumerBoxBytes), bb = lookup(mma.getB());
  auto type = element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  Type accType = accumulatorType(mma.getAcc().getType());
  int64_t steps = aType.getShape()[1] / 16;
  Value out = mmaGroup(
      [&](Value acc) {
        for (int64_t kk = 0; kk < steps; ++kk) {
          Value descA = descriptor(
              add(a, index(kk / 4 * aParts.bytesPerPart + kk % 4 * 32)));
          Value descB = descriptor(
              add(bb, index(kk / 4 * bParts.bytesPerPart + kk % 4 * 32)));
          acc = NVVM::WgmmaMmaAsyncOp::create(
              b, loc, accType, acc, descA, descB,
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
      lookup(mma.getAcc()));
  map.map(mma.getResult(), out);
  return success();
}

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

LogicalResult HybridKernelLowering::lowerMmaSparse(sck::MmaSparseOp mma) {
  sck::BoxType aType = mma.getA().getType(), bType = mma.getB().getType();
  sck::BoxType metaType = mma.getMeta().getType();
  BoxParts aParts = BoxParts::of(aType, false), bParts = BoxParts::of(bType, true);
  int64_t n = mma.getAcc().getType().getShape()[1];
  if (aType.getShape()[0] != kBand * consumers || !aParts.swizzled ||
      !bParts.swizzled || n % 8 != 0 || n > 256)
    return mma.emitError("hybrid-gemm-kernel: a sparse MMA other than 64 "
                         "rows a consumer by a multiple of 8 up to 256 over "
                         "128-byte parts");
  // This consumer's 64 rows of the values' and the metadata's boxes.
  Value a = add(lookup(mma.getA()), consumerBoxBytes), meta = lookup(mma.getMeta()),
        bb = lookup(mma.getB());
  // Metadata (sparsity selector 0, checked on the H100 against the other
  // reading of the PTX figure): threads 0 and 1 of quad g of a warp give,
  // for rows g and g + 8 of the warp's 16, the halves h = 0 and 1 of the
  // rows' words (columns 16 h .. 16 h + 15): bits 0-15 row g's, 16-31 row
  // g + 8's. Threads 2 and 3 repeat them (not read).
  Value inWg = rem(tid, index(kWarpgroup));
  Value warp = div(inWg, index(32)), lane = rem(tid, index(32));
  Value rowLo = add(consumerRow, add(mul(warp, index(16)), div(lane, index(4))));
  Value rowHi = add(rowLo, index(8));
  Value half = arith::IndexCastOp::create(
      b, loc, b.getI32Type(), mul(rem(lane, index(2)), index(16)));

  int64_t wordsPerRow = metaType.getShape()[1];
  auto words = MemRefType::get(
      {kBand * consumers * wordsPerRow}, b.getI32Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value metaView = memref::ViewOp::create(b, loc, words, smem, meta, ValueRange());
  auto metaWord = [&](int64_t kk) -> Value {
    auto halfOf = [&](Value row) {
      Value word = memref::LoadOp::create(
          b, loc, metaView, ValueRange{add(mul(row, index(wordsPerRow)), index(kk))});
      return arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, word, half),
                                   i32(0xFFFF))
          .getResult();
    };
    return arith::OrIOp::create(
               b, loc, halfOf(rowLo),
               arith::ShLIOp::create(b, loc, halfOf(rowHi), i32(16)))
        .getResult();
  };
  int64_t steps = bType.getShape()[0] / 32;
  // Every step's metadata read before the group's fence: a shared-memory
  // load between the sparse wgmmas makes ptxas serialize them (C7520).
  SmallVector<Value> metaWords;
  for (int64_t kk = 0; kk < steps; ++kk)
    metaWords.push_back(metaWord(kk));
  Value out = mmaGroup(
      [&](Value acc) {
        for (int64_t kk = 0; kk < steps; ++kk) {
          // A k32 step: 16 kept values (32 bytes) of A's rows, 32 k (64
          // bytes) of B's.
          Value descA = descriptor(
              add(a, index(kk / 4 * aParts.bytesPerPart + kk % 4 * 32)));
          Value descB = descriptor(
              add(bb, index(kk / 2 * bParts.bytesPerPart + kk % 2 * 64)));
          acc = sparseWgmma(b, loc, acc, descA, descB, metaWords[kk], n,
                            element.isBF16());
        }
        return acc;
      },
      lookup(mma.getAcc()));
  map.map(mma.getResult(), out);
  return success();
}

LogicalResult HybridKernelLowering::lowerEpilogue(sck::EpilogueOp epilogue) {
  if (!epilogue.getTransposed() || epilogue.getCoords().size() != 3)
    return epilogue.emitError("hybrid-gemm-kernel: an epilogue of a "
                              "transposed tile at [n, m, b]");
  // This consumer's rows of the tile.
  Value n0 = add(lookup(epilogue.getCoords()[0]), consumerRow),
        m0 = lookup(epilogue.getCoords()[1]), bIdx = lookup(epilogue.getCoords()[2]);
  Value acc = lookup(epilogue.getAcc());
  int64_t tokens = epilogue.getAcc().getType().getShape()[1];
  Type outType = op.getType().getElementType();
  int64_t mSize = op.getType().getDimSize(1), nSize = op.getType().getDimSize(2);
  // The wgmma fragment: in n8 group g, this thread holds rows warp * 16 +
  // lane / 4 (+ 8) (weight rows: result columns n) and columns 8 g + 2
  // (lane % 4) (+ 1) (tokens: result rows m).
  Value inWg = rem(tid, index(kWarpgroup));
  Value warp = div(inWg, index(32)), lane = rem(tid, index(32));
  Value row0 = add(mul(warp, index(16)), div(lane, index(4)));
  Value colPair = mul(rem(lane, index(4)), index(2));
  SmallVector<Value> ins;
  for (Value in : epilogue.getIns())
    ins.push_back(memrefOf.lookup(in));
  for (int64_t g = 0; g < tokens / 8; ++g)
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t e = 0; e < 2; ++e) {
        int64_t reg = 4 * g + 2 * r + e;
        Value n = add(n0, add(row0, index(8 * r)));
        Value m = add(m0, add(colPair, index(8 * g + e)));
        Value inside = arith::AndIOp::create(
            b, loc, cmp(arith::CmpIPredicate::ult, m, index(mSize)),
            cmp(arith::CmpIPredicate::ult, n, index(nSize)));
        auto ifInside = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifInside.getThenRegion().front());
        Value v = LLVM::ExtractValueOp::create(b, loc, acc, reg);
        Value out;
        if (epilogueFn) {
          SmallVector<Value> args = {v, bIdx, m, n};
          llvm::append_range(args, ins);
          out = func::CallOp::create(b, loc, epilogueFn, args).getResult(0);
        } else if (outType.isF32()) {
          out = v;
        } else {
          out = arith::TruncFOp::create(b, loc, outType, v);
        }
        memref::StoreOp::create(b, loc, out, result, ValueRange{bIdx, m, n});
      }
  return success();
}

LogicalResult HybridKernelLowering::write(gpu::GPUFuncOp func,
                                          int64_t stagesPerRing) {
  stages = stagesPerRing;
  consumers = consumersOf(kernelIR);
  element = op.getLhs().getType().getElementType();
  // Parameters: the tensor maps of A (the tokens), B.dense, B.sparse and
  // B.meta; the kind and slot tables; C; the epilogue's operands.
  auto tmaSpace = IntegerAttr::get(IntegerType::get(ctx, 64), 3);
  auto i32Type = b.getI32Type();
  struct MapSpec {
    StringRef name;
    Type element;
  };
  MapSpec maps[] = {{"A", element},
                    {"B.dense", element},
                    {"B.sparse", element},
                    {"B.meta", i32Type}};
  // Each operand's box as the kernel-level IR loads it (one box type per
  // operand, checked here): the TMA box of one part.
  llvm::StringMap<BoxParts> partsOf;
  LogicalResult boxes = success();
  kernelIR.walk([&](sck::LoadOp load) {
    BoxParts parts = BoxParts::of(load.getType(), load.getTransposed());
    auto [it, inserted] = partsOf.try_emplace(load.getOperand(), parts);
    if (!inserted && (it->second.rows != parts.rows ||
                      it->second.colsPerPart != parts.colsPerPart))
      boxes = load.emitError("hybrid-gemm-kernel: boxes of one operand of "
                             "different shapes");
  });
  if (failed(boxes))
    return failure();
  for (auto [i, spec] : llvm::enumerate(maps)) {
    auto found = partsOf.find(spec.name);
    if (found == partsOf.end())
      return kernelIR.emitError("hybrid-gemm-kernel: no box of ") << spec.name;
    const BoxParts &parts = found->second;
    auto mapType = nvgpu::TensorMapDescriptorType::get(
        ctx,
        MemRefType::get({1, parts.rows, parts.colsPerPart}, spec.element,
                        MemRefLayoutAttrInterface(), tmaSpace),
        parts.swizzled ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
                       : nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    tensorMaps.push_back(
        UnrealizedConversionCastOp::create(b, loc, mapType, func.getArgument(i))
            .getResult(0));
    operands[spec.name] = Operand{unsigned(i), spec.element};
  }
  kinds = func.getArgument(4);
  slots = func.getArgument(5);
  result = func.getArgument(6);
  for (auto [i, in] : llvm::enumerate(kernelIR.getArguments().drop_front()))
    memrefOf[in] = func.getArgument(7 + i);
  if (Block *body = sc::detail::epilogueBlock(op)) {
    SmallVector<Type> types = {b.getF32Type(), b.getIndexType(),
                               b.getIndexType(), b.getIndexType()};
    for (Value in : kernelIR.getArguments().drop_front())
      types.push_back(memrefOf[in].getType());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(func->getParentOfType<gpu::GPUModuleOp>().getBody());
    epilogueFn = func::FuncOp::create(
        b, loc, (func.getName() + "_epilogue").str(),
        b.getFunctionType(types, op.getType().getElementType()));
    epilogueFn.setPrivate();
    if (failed(sc::detail::buildEpilogueFunction(op, body, epilogueFn)))
      return failure();
  }

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The warpgroup from lane 0 (a shuffle): warp-uniform for ptxas, so the
  // role branches do not serialize wgmma.
  Value tid32 = arith::IndexCastOp::create(b, loc, i32Type, tid);
  Value wgU = gpu::ShuffleOp::create(b, loc, arith::DivUIOp::create(b, loc, tid32, i32(kWarpgroup)),
                                     i32(0), i32(32), gpu::ShuffleMode::IDX)
                  .getShuffleResult();
  wg = arith::IndexCastOp::create(b, loc, b.getIndexType(), wgU);
  cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  ctas = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  map.map(kernelIR.getArgument(0), memref::DimOp::create(b, loc, result, 0));

  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  // 128B-swizzled boxes want 1024-byte aligned shared memory. ptxas places
  // the dynamic-memory symbol before the mbarriers (static shared
  // variables), so the region starts at the first 1024-byte boundary at
  // least kBarrierBytes past it: at the symbol itself it would overlap the
  // barriers (measured: the faults of CTAs whose symbol fell on a boundary).
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem);
  Value from = add(base, index(kBarrierBytes));
  pad = add(rem(arith::SubIOp::create(b, loc, index(1024), rem(from, index(1024))),
                index(1024)),
            index(kBarrierBytes));
  smemBase = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  // The rings, one after another; their barriers set up by thread 0.
  int64_t offset = 0;
  auto barsType = nvgpu::MBarrierGroupType::get(ctx, workgroup, stages);
  // The weight rings' shared slots: laid out with the first, sized for the
  // largest.
  Value weightOwner;
  int64_t weightSlot = 0;
  for (auto ring : kernelIR.getBody().getOps<sck::RingOp>()) {
    int64_t slot = 0;
    for (Type t : ring.getType().getBoxes())
      slot += llvm::alignTo(BoxParts::of(cast<sck::BoxType>(t), false).bytes(), 1024);
    if (isWeightRing(ring))
      weightSlot = std::max(weightSlot, slot);
  }
  for (auto ring : kernelIR.getBody().getOps<sck::RingOp>()) {
    RingLayout layout;
    layout.base = offset;
    layout.owner = ring.getResult();
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
      BoxParts parts = BoxParts::of(box, transposed);
      layout.boxOffsets.push_back(layout.slotBytes);
      layout.boxParts.push_back(parts);
      layout.slotBytes += llvm::alignTo(parts.bytes(), 1024);
    }
    if (isWeightRing(ring) && weightOwner) {
      const RingLayout &owner = rings[weightOwner];
      layout.base = owner.base;
      layout.slotBytes = owner.slotBytes;
      layout.full = owner.full;
      layout.empty = owner.empty;
      layout.owner = weightOwner;
      rings[ring.getResult()] = layout;
      continue;
    }
    if (isWeightRing(ring)) {
      weightOwner = ring.getResult();
      layout.slotBytes = weightSlot;
    }
    offset += stages * layout.slotBytes;
    layout.full = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
    layout.empty = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
    rings[ring.getResult()] = layout;
  }
  {
    Value first = cmp(arith::CmpIPredicate::eq, tid, index(0));
    auto ifFirst = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
    // One arrival by the producer's expect_tx; one by each consumer warp
    // once done with the slot. Once a ring that owns its slots.
    for (auto &[ring, layout] : rings)
      for (int64_t s = 0; s < stages && layout.owner == ring; ++s) {
        nvgpu::MBarrierInitOp::create(b, loc, layout.full, index(1), index(s),
                                      Value());
        nvgpu::MBarrierInitOp::create(b, loc, layout.empty,
                                      index(4 * consumers), index(s), Value());
      }
  }
  gpu::BarrierOp::create(b, loc);
  if (failed(lowerBlock(kernelIR.getBody().front())))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return success();
}

std::string mlir::sc::hybridGemmLimitation(BatchMatmulOp op, StringRef chip) {
  if (chip != "sm_90a")
    return "the hybrid-tiled GEMM runs on sm_90a only (sparse wgmma), not " +
           chip.str();
  auto layout = dyn_cast<HybridTilesAttr>(op.getRhs().getType().getEncoding());
  if (!layout || !op.getRhs().getDefiningOp<AssembleHybridOp>())
    return "the hybrid-tiled weight must come from sc.assemble_hybrid";
  Type element = op.getLhs().getType().getElementType();
  if (!element.isF16() && !element.isBF16())
    return "f16 or bf16 operands only";
  if (op.getLhs().getType().getRank() != 3 ||
      ShapedType::isDynamic(op.getType().getDimSize(1)))
    return "tokens x [batch, M, K] with a static M";
  if (layout.getTile()[1] % 128 != 0)
    return "hybrid tiles of a multiple of 128 columns only";
  auto ref = op->getAttrOfType<FlatSymbolRefAttr>(BatchMatmulOp::getKernelAttrName());
  auto kernel = ref ? dyn_cast_or_null<func::FuncOp>(
                          SymbolTable::lookupNearestSymbolFrom(op, ref))
                    : func::FuncOp();
  if (!kernel || kernel.getBody().getOps<sck::RoleOp>().empty())
    return "no warp-specialized kernel-level IR (sc-lower-to-sck, "
           "sc-warp-specialize)";
  return "";
}

FailureOr<KernelLaunch> mlir::sc::buildHybridGemmKernel(
    BatchMatmulOp op, gpu::GPUModuleOp gpuModule, StringRef kernelName,
    const GemmBinding &binding, const HybridWeightBinding &weight) {
  std::string why = hybridGemmLimitation(op, "sm_90a");
  if (!why.empty())
    return op.emitError("sparcast-aot: ") << why;
  auto kernelIR = cast<func::FuncOp>(SymbolTable::lookupNearestSymbolFrom(
      op, op->getAttrOfType<FlatSymbolRefAttr>(BatchMatmulOp::getKernelAttrName())));
  MLIRContext *ctx = op.getContext();
  ctx->loadDialect<gpu::GPUDialect, nvgpu::NVGPUDialect, NVVM::NVVMDialect,
                   LLVM::LLVMDialect, memref::MemRefDialect, scf::SCFDialect,
                   arith::ArithDialect, func::FuncDialect>();
  // The slots sc-warp-specialize asked for (--ws-stages), else as many as
  // keep two CTAs an SM, else (where two slots take more than half an SM's
  // shared memory) as many as fit one CTA an SM, up to 8.
  int64_t asked = 0;
  for (auto ring : kernelIR.getBody().getOps<sck::RingOp>())
    asked = std::max<int64_t>(asked, ring.getStages());
  auto fits = [&](int64_t stages, int64_t limit) {
    return HybridKernelLowering::sharedBytes(kernelIR, stages) <= limit;
  };
  int64_t consumers = consumersOf(kernelIR), band = kBand * consumers;
  int64_t stages = asked;
  if (stages == 0) {
    int64_t limit =
        consumers == 1 && fits(2, kTwoCtaShared) ? kTwoCtaShared : kSharedLimit;
    stages = 8;
    while (stages > 2 && !fits(stages, limit))
      --stages;
  }
  if (!fits(stages, kSharedLimit))
    return op.emitError("sparcast-aot: the hybrid-tiled GEMM's rings need ")
           << HybridKernelLowering::sharedBytes(kernelIR, stages)
           << " bytes of shared memory at " << stages << " slots, more than "
           << kSharedLimit;
  int64_t shared = HybridKernelLowering::sharedBytes(kernelIR, stages);

  auto weightType = cast<RankedTensorType>(op.getRhs().getType());
  auto layout = cast<HybridTilesAttr>(weightType.getEncoding());
  int64_t tileRows = layout.getTile()[0], tileCols = layout.getTile()[1];
  int64_t m = op.getType().getDimSize(1), n = op.getType().getDimSize(2);
  int64_t k = layout.getCols();
  Type element = weightType.getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  // The token tile: the accumulator's columns.
  int64_t tokens = 0;
  kernelIR.walk([&](sck::ZeroOp zero) { tokens = zero.getType().getShape()[1]; });

  auto ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> params = {ptr, ptr, ptr, ptr};
  auto kindsType = cast<RankedTensorType>(
      op.getRhs().getDefiningOp<AssembleHybridOp>().getKinds().getType());
  auto slotsType = cast<RankedTensorType>(
      op.getRhs().getDefiningOp<AssembleHybridOp>().getSlots().getType());
  params.push_back(sc::detail::memrefOf(kindsType));
  params.push_back(sc::detail::memrefOf(slotsType));
  params.push_back(sc::detail::memrefOf(op.getType()));
  for (Value in : op.getEpilogueIns())
    params.push_back(sc::detail::memrefOf(cast<RankedTensorType>(in.getType())));
  OpBuilder b(ctx);
  gpu::GPUFuncOp func = sc::detail::createKernelFunction(
      b, op.getLoc(), gpuModule, kernelName, params, (consumers + 1) * kWarpgroup);
  // Two CTAs an SM: 128 registers a thread at launch, which setmaxnreg
  // then moves from the producer to the consumer (the roles' budgets,
  // sc-warp-specialize's for two CTAs an SM).
  bool twoCtas = consumers == 1 && shared <= kTwoCtaShared;
  if (twoCtas)
    func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(2));
  HybridKernelLowering lowering(op, kernelIR, b);
  if (failed(lowering.write(func, stages))) {
    func.erase();
    return failure();
  }

  // The launch: tensor maps of the tokens [K, M, batch] (boxes of 64 k by
  // the token tile), the dense tiles [tileCols, tileRows, count] (64 x 64),
  // the 2:4 values [tileCols / 2, tileRows, count] (64 x 64) and the
  // metadata [tileCols / 32, tileRows, count] (all of a row's words x 64
  // rows, unswizzled); the tables, C and the epilogue's operands.
  auto tma = [](std::string tensor, std::vector<LaunchDim> dims,
                std::vector<LaunchDim> strides, std::vector<int64_t> box,
                int64_t swizzle) {
    LaunchParam p;
    p.kind = LaunchParam::Kind::Tma;
    p.tensor = std::move(tensor);
    p.dims = std::move(dims);
    p.stridesBytes = std::move(strides);
    p.box = std::move(box);
    p.swizzleBytes = swizzle;
    return p;
  };
  auto of = [](int64_t v) { return LaunchDim::of(v); };
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.params.push_back(tma(binding.lhs,
                              {of(k), of(m), binding.batchOf(op.getType())},
                              {of(k * bytes), of(m * k * bytes)}, {64, tokens, 1},
                              128));
  launch.params.push_back(tma(weight.dense,
                              {of(tileCols), of(tileRows), weight.numDense},
                              {of(tileCols * bytes), of(tileRows * tileCols * bytes)},
                              {64, band, 1}, 128));
  launch.params.push_back(tma(weight.sparse,
                              {of(tileCols / 2), of(tileRows), weight.numSparse},
                              {of(tileCols / 2 * bytes),
                               of(tileRows * tileCols / 2 * bytes)},
                              {64, band, 1}, 128));
  launch.params.push_back(tma(weight.meta,
                              {of(tileCols / 32), of(tileRows), weight.numSparse},
                              {of(tileCols / 32 * 4), of(tileRows * tileCols / 32 * 4)},
                              {tileCols / 32, band, 1}, 0));
  for (const std::string &name : {weight.kinds, weight.slots, binding.result})
    launch.params.push_back(LaunchParam::memref(name));
  for (const std::string &name : binding.epilogueIns)
    launch.params.push_back(LaunchParam::memref(name));
  // One CTA a tile (a persistent loop then runs one tile a CTA too).
  launch.grid[0] = binding.batchOf(op.getType())
                       .times(llvm::divideCeil(m, tokens) * (n / band));
  launch.grid[1] = launch.grid[2] = of(1);
  launch.block[0] = (consumers + 1) * kWarpgroup;
  launch.sharedBytes = shared;
  launch.summary = llvm::formatv(
      "{0}: hybrid-tiled GEMM (tiles {1} x {2}), {6} weight rows x {3} tokens "
      "a CTA ({7} consumer(s)), {4} slots a ring, {5} bytes of shared memory",
      kernelName, tileRows, tileCols, tokens, stages, shared, band, consumers);
  return launch;
}
