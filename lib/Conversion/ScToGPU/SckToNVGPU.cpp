//===- SckToNVGPU.cpp - a Hopper GEMM's kernel ops, one pattern per op ----===//
//
// sc-convert-sck-to-nvgpu: the kernel-level ops of a warp-specialized
// Hopper GEMM (after sc-schedule-wgmma) inside a gpu.func, each lowered by
// a pattern of its own:
//
//   sck.ring            the CTA's shared memory and barriers, laid out
//                       before the ops are lowered (the kernel frame: ring
//                       slots with full/empty mbarriers, each consumer's
//                       staging tile and prefetch buffers)
//   sck.role            a warpgroup branch with its setmaxnreg; the
//                       producer's body runs on one thread
//   sck.tile_loop       the CTA's share of the tiles (persistent: CTA c
//                       takes tiles c, c + CTAs, ...; ping-pong consumers
//                       every other one), decoded in the loop's order
//   sck.tile_index      the walk's induction variable
//   sck.put [p]         wait for slot p mod stages to be free, expect_tx,
//                       the TMA loads of its boxes (CTA pairs: multicast)
//   sck.get [p]         wait for the slot to be full; its boxes are the slot
//   sck.zero, sck.mma   wgmma on the slot's 128B-swizzled boxes into two
//                       m64n128 accumulator halves (from a zero
//                       accumulator: wgmma that ignore theirs), one commit
//                       group, waiting until only it is in flight
//   sck.release [p]     the consumer warps' arrivals on the slot's empty
//                       barrier (CTA pairs: the other CTA's too)
//   sck.discard [p]     wait for the slot, free it unread
//   sck.mma_wait        wgmma.wait_group
//   sck.await_turn,     ping-pong turns: named barriers
//   sck.pass_turn
//   sck.prefetch        the epilogue operand's first two subtiles by TMA
//   sck.epilogue        each accumulator element through the region (a
//                       device function) into the staging tile, stored by
//                       TMA; the prefetched operand read from its buffers
//
// The kernel's arguments say what each is (`sck.operand`, WgmmaKernel.h);
// the shapes come from the ring's boxes, the accumulators and the result's
// memref type. Forms: ping-pong (64-row tiles, one consumer a tile),
// cooperative (128 rows, 64 a consumer) and transposed (out[b]^T = E[b]^T
// W^T: 128 columns n by M rows m a consumer) schedules, tiles of 64, 128 or
// 256 columns, f16/bf16 operands with an N-major or K-major rhs, flat rows,
// a persistent or grid walk, alone or in CTA pairs; IR of another form is
// a located error.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Conversion/Passes.h"
#include "sparcast/Conversion/ScToGPU/HybridKernel.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Conversion/ScToGPU/WgmmaKernel.h"
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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCCONVERTSCKTONVGPUPASS
#include "sparcast/Conversion/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
/// A consumer's rows (its wgmma accumulator, its staging tile), a k-tile's
/// depth, and the widest tile's columns.
constexpr int64_t kTileRows = 64, kTileDepth = 64, kMaxTileCols = 256;
/// The mbarrier try_wait's suspend-time hint.
constexpr int64_t kWaitTicks = 10000000;
/// A prefetched operand's box streams through two buffers a consumer, each
/// a subtile of 64 rows x 128 bytes.
constexpr int64_t kSubtileBytes = kTileRows * 128;
/// The transposed tile: E's two 64 x 64 boxes a slot (the tile's 128
/// columns n), its epilogue in chunks of 32 rows m (two 32 x 64 16-bit
/// staging boxes, stored 8 rows at a time), a prefetched f32 box through
/// two C buffers a consumer of four 32 x 32 boxes each.
constexpr int64_t kTransposedEBytes = 128 * kTileDepth * 2;
constexpr int64_t kChunkRows = 32, kChunkBytes = 4 * 32 * 32 * 4;
constexpr int64_t kTransposedStagingBytes = 2 * kChunkRows * 128;
/// A role's threads: the producer is warpgroup 2 (thread 256 issues its
/// loads), consumers 0 and 1.
constexpr int64_t kProducerThread = 256;
constexpr int64_t kWarpgroup = 128;
/// The discardable attribute marking a tile walk's loop while the
/// patterns run (tile_index and the turns read its induction variable).
constexpr llvm::StringLiteral kWalkAttrName = "sck.tile_walk";
} // namespace

int64_t WgmmaKernelForm::slotBytes() const {
  return transposed ? kTransposedEBytes + tileM * kTileDepth * 2
                    : (aRows * kTileDepth + kTileDepth * tileN) * 2;
}

int64_t WgmmaKernelForm::firstPartBytes() const {
  return transposed ? kTransposedEBytes : aRows * kTileDepth * 2;
}

int64_t WgmmaKernelForm::consumerBytes(int64_t outBits) const {
  if (transposed)
    return kTransposedStagingBytes + (prefetched ? 2 * kChunkBytes : 0);
  return kTileRows * 128 * outBits / 8 + (prefetched ? 2 * kSubtileBytes : 0);
}

//===----------------------------------------------------------------------===//
// The kernel-level IR the lowering takes
//===----------------------------------------------------------------------===//

namespace {
/// The pieces of the kernel-level IR the patterns and the frame read.
struct KernelIR {
  WgmmaKernelForm form;
  sck::RingOp ring;
  sck::RoleOp producer, consumer;
  sck::TileLoopOp producerLoop, consumerLoop;
  sck::EpilogueOp epilogue;
  sck::PrefetchOp prefetch;
  sck::ReduceSplitsOp reduce;
};

std::optional<KernelIR> matchKernelIR(Block &top, std::string &why) {
  KernelIR ir;
  WgmmaKernelForm &f = ir.form;
  for (Operation &inner : top) {
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
      (producer ? ir.producerLoop : ir.consumerLoop) = *loops.begin();
    } else if (isa<sck::TileLoopOp>(inner)) {
      why = "a tile loop outside roles (sc-warp-specialize did not run)";
      return std::nullopt;
    } else if (!isa<arith::ArithDialect>(inner.getDialect()) &&
               !isa<func::ReturnOp, gpu::ReturnOp, memref::DimOp,
                    UnrealizedConversionCastOp>(inner)) {
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
  f.cooperative = ir.consumer.getOrder() == sck::ConsumerOrder::cooperative;
  f.pairs = ir.consumerLoop.getCluster() == 2;
  f.aRows = f.cooperative ? 2 * kTileRows : kTileRows;
  f.transposed =
      sck::kernelSchedule(ir.consumer) == sck::KernelSchedule::transposed;
  f.persistent =
      ir.consumerLoop.getSchedule() == sck::TileSchedule::persistent;
  f.stages = ir.ring.getStages();
  // A's box (k-major, the consumers' rows) and B's (one k-tile of 256
  // columns); the transposed tile: W's (64 k x tileM m) and E's (128 n x
  // 64 k), both read transposed.
  ArrayRef<Type> boxes = ir.ring.getType().getBoxes();
  if (boxes.size() != 2) {
    why = "a ring of other than two boxes";
    return std::nullopt;
  }
  ArrayRef<int64_t> box0 = cast<sck::BoxType>(boxes[0]).getShape();
  ArrayRef<int64_t> box1 = cast<sck::BoxType>(boxes[1]).getShape();
  if (f.transposed) {
    f.tileM = box0.size() == 2 ? box0[1] : 0;
    std::optional<int64_t> nTiles =
        getConstantIntValue(ir.consumerLoop.getNTiles());
    if (f.cooperative || box0.size() != 2 || box0[0] != kTileDepth ||
        f.tileM % 8 != 0 || f.tileM < 8 || f.tileM > 256 ||
        box1 != ArrayRef<int64_t>{128, kTileDepth})
      why = "a transposed tile other than ping-pong consumers on 64 x M (W) "
            "and 128 x 64 (E) boxes, M a multiple of 8 up to 256";
    else if (f.pairs && (!nTiles || *nTiles % 2 != 0))
      why = "CTA pairs on the transposed tile with an odd number of N tiles";
  } else {
    f.tileN = box1.size() == 2 ? box1[1] : 0;
    if (box0 != ArrayRef<int64_t>{f.aRows, kTileDepth} || box1.size() != 2 ||
        box1[0] != kTileDepth ||
        (f.tileN != 64 && f.tileN != 128 && f.tileN != kMaxTileCols))
      why = "ring boxes other than 64x64 or, cooperative, 128x64 (A) and "
            "64x64, 64x128 or 64x256 (B)";
    // CTA pairs split B's box in four parts, two a CTA.
    else if (f.pairs && f.tileN != kMaxTileCols)
      why = "CTA pairs on a tile narrower than 256 columns";
  }
  if (!why.empty())
    return std::nullopt;
  // The consumers' epilogue, and the box of an operand it reads, if any:
  // in the result's orientation at the epilogue's tile, 16- or 32-bit. (A
  // CTA pair's tile past M computes nothing: its work is under a
  // condition.)
  SmallVector<sck::EpilogueOp> epilogues;
  SmallVector<sck::PrefetchOp> prefetches;
  SmallVector<sck::ReduceSplitsOp> reduces;
  ir.consumerLoop.walk([&](Operation *inner) {
    if (auto epilogue = dyn_cast<sck::EpilogueOp>(inner))
      epilogues.push_back(epilogue);
    else if (auto prefetch = dyn_cast<sck::PrefetchOp>(inner))
      prefetches.push_back(prefetch);
    else if (auto reduce = dyn_cast<sck::ReduceSplitsOp>(inner))
      reduces.push_back(reduce);
  });
  if (epilogues.size() != 1)
    why = "a tile loop with other than one epilogue";
  else if (prefetches.size() > 1)
    why = "more than one prefetched operand";
  else if (reduces.size() > 1)
    why = "more than one split-K reduction";
  else if (!reduces.empty() && (f.transposed || !prefetches.empty()))
    why = "split-K on the transposed tile or with a prefetched operand";
  if (!reduces.empty())
    ir.reduce = reduces.front();
  if (!why.empty())
    return std::nullopt;
  ir.epilogue = epilogues.front();
  f.flatRows = !f.transposed && ir.epilogue.getCoords().size() == 2;
  // Rows that are no TMA stride: B's boxes copied by the producer's
  // threads, C stored by the consumers' (the untransposed tile of one CTA).
  ir.producerLoop.walk([&](sck::LoadOp load) {
    f.bByThreads |= load.getOperand() == "B" && load.getByThreads();
    if (load.getOperand() != "B" && load.getByThreads())
      why = "a box of A loaded by threads";
  });
  f.directStores = ir.epilogue.getDirectStores();
  if (f.bByThreads && (f.transposed || f.pairs))
    why = "boxes loaded by threads on the transposed tile or in CTA pairs "
          "(which multicast B by TMA)";
  else if (f.directStores && f.transposed)
    why = "direct stores on the transposed tile";
  else if (f.directStores && (!prefetches.empty() || ir.epilogue.getSumRows()))
    why = "direct stores with a prefetched operand or summed rows";
  if (!why.empty())
    return std::nullopt;
  if (prefetches.empty())
    return ir;
  ir.prefetch = prefetches.front();
  f.prefetched = ir.prefetch.getType().getElementType();
  int64_t bits = f.prefetched.getIntOrFloatBitWidth();
  if (!ir.prefetch->hasOneUse() || *ir.prefetch->user_begin() != ir.epilogue ||
      ir.epilogue.getTransposed() != f.transposed ||
      ir.prefetch.getCoords()[0] != ir.epilogue.getCoords()[0] ||
      ir.prefetch.getCoords()[1] != ir.epilogue.getCoords()[1])
    why = "a prefetched box other than the epilogue's tile";
  else if (bits != 16 && bits != 32)
    why = "a prefetched box of other than 16- or 32-bit elements";
  else if (f.transposed && bits != 32)
    why = "a prefetched box of the transposed tile of other than f32";
  // Rows of whole 128-byte subtiles.
  else if (!f.transposed && f.tileN * bits / 8 % 128 != 0)
    why = "a prefetched box of other than whole 128-byte subtiles a row";
  if (!why.empty())
    return std::nullopt;
  return ir;
}
} // namespace

FailureOr<WgmmaKernelForm> mlir::sc::detail::matchWgmmaKernel(Operation *kernel) {
  std::string why;
  std::optional<KernelIR> ir =
      matchKernelIR(kernel->getRegion(0).front(), why);
  if (!ir)
    return kernel->emitError("sck-to-nvgpu does not lower ") << why;
  return ir->form;
}

//===----------------------------------------------------------------------===//
// The kernel frame: the CTA's shared memory, barriers and tile count
//===----------------------------------------------------------------------===//

namespace {
/// What every op's lowering reads, built once before the ring at the
/// kernel's top level: the operands' tensor maps, the thread's place, the
/// CTA's tiles, its shared memory (ring slots, then each consumer's
/// staging tile and prefetch buffers) and the mbarriers, initialized and
/// published to the CTA (or the CTA pair) before the roles start.
struct WgmmaFrame {
  WgmmaKernelForm form;
  /// Operand and result types: 16-bit operands, the result's element, the
  /// result's memref (static rows M and columns N), an m64n<N> accumulator
  /// half (N / 2 f32 a thread), and A's and B's TMA boxes in shared memory.
  Type elementType, outType;
  /// Bits of an element of a consumer's staging tile: the result's, or 0
  /// when its rows are summed (nothing staged).
  int64_t stagedBits = 0;
  MemRefType cType, boxA, boxB;
  Type accType;
  bool kMajorB = false;
  /// The tile loop's N tiles when constant (one: columns past N skipped).
  std::optional<int64_t> nTiles;
  int64_t group = 1;
  Value tmaA, tmaB, tmaC, tmaX, c;
  /// B's memref when the producer's threads copy its boxes, in pieces of
  /// `bPieceBytes` (4 or 8: what its rows' alignment allows).
  Value bMemref;
  int64_t bPieceBytes = 0;
  Value tid, wg, cta, ctas, smem, pad, smemBase, full, empty, xBars;
  /// The tile walk: units (pairs of tiles in CTA pairs) of the result, the
  /// CTA's count of tiles, its rank in its pair and the other's (i32).
  Value cGM, unitsM, unitsN, mine, rank, peer;
  /// The CTA's tiles c, c + CTAs, ... (`strided`: the persistent walk, and
  /// a grid over flat rows whose launch only estimates the tile count), or
  /// tiles perCta c .. perCta c + perCta - 1.
  bool strided = true;
  int64_t perCta = 1;
  /// The epilogue's device function (null: the accumulator converted).
  func::FuncOp epilogueFn;
  /// The tile loops of the producer role (the walk differs by role).
  DenseSet<Operation *> producerLoops;
  /// Split-K: the parts' partial sums (f32) and each tile's arrivals (i32).
  Value partials, arrivals;
};

/// Index arithmetic at one place (KernelArith's helpers).
struct Arith : KernelArith {
  Arith(OpBuilder &b, Location loc) : KernelArith(b, loc) {}
  using KernelArith::add, KernelArith::b, KernelArith::cmp, KernelArith::div,
      KernelArith::i32, KernelArith::index, KernelArith::loc, KernelArith::mul,
      KernelArith::rem, KernelArith::sub;
};

/// The tensor map type of a TMA box of `shape` elements of `element`.
nvgpu::TensorMapDescriptorType tensorMapType(MLIRContext *ctx,
                                             ArrayRef<int64_t> shape,
                                             Type element,
                                             nvgpu::TensorMapL2PromoKind l2) {
  auto tmaSpace = IntegerAttr::get(IntegerType::get(ctx, 64), 3);
  return nvgpu::TensorMapDescriptorType::get(
      ctx, MemRefType::get(shape, element, MemRefLayoutAttrInterface(), tmaSpace),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B, l2,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

/// The frame of `func`, whose kernel-level IR `ir` is at its top level,
/// built before the ring; a located error when an argument is missing.
FailureOr<WgmmaFrame> buildFrame(gpu::GPUFuncOp func, KernelIR ir) {
  MLIRContext *ctx = func.getContext();
  WgmmaFrame f;
  f.form = ir.form;
  const WgmmaKernelForm &form = ir.form;
  Location loc = ir.ring.getLoc();
  OpBuilder b(ir.ring);
  Arith a(b, loc);
  // Operands and result, by name.
  Value argA = namedKernelArgument(func, "A"), argB = namedKernelArgument(func, "B");
  f.c = namedKernelArgument(func, "C");
  Value argC = namedKernelArgument(func, "C.map");
  f.cType = f.c ? dyn_cast<MemRefType>(f.c.getType()) : MemRefType();
  if (!argA || !argB || (!argC && !form.directStores) || !f.cType ||
      f.cType.getRank() != 3 || ShapedType::isDynamic(f.cType.getDimSize(1)) ||
      ShapedType::isDynamic(f.cType.getDimSize(2)))
    return func.emitError("sck-to-nvgpu: a kernel of arguments named A, B "
                          "(tensor maps), C (the result's memref [B, M, N], M "
                          "and N static) and C.map (but with direct stores)");
  auto bType = dyn_cast<MemRefType>(argB.getType());
  if (form.bByThreads != static_cast<bool>(bType))
    return func.emitError("sck-to-nvgpu: B is a memref exactly when the "
                          "kernel-level IR loads its boxes by threads");
  if (bType) {
    int64_t rank = bType.getRank(), cols = bType.getShape().back();
    if ((rank != 2 && rank != 3) || ShapedType::isDynamic(cols) ||
        ShapedType::isDynamic(bType.getDimSize(rank - 2)) || cols % 2 != 0 ||
        bType.getElementTypeBitWidth() != 16)
      return func.emitError("sck-to-nvgpu: B's boxes copied by threads from "
                            "a 16-bit memref [(B,) K, N] of static K and even N");
    f.bMemref = argB;
    f.bPieceBytes = cols % 4 == 0 ? 8 : 4;
  }
  if (ir.reduce) {
    f.partials = namedKernelArgument(func, "C.partials");
    f.arrivals = namedKernelArgument(func, "C.arrivals");
    if (!f.partials || !f.arrivals)
      return func.emitError("sck-to-nvgpu: a split-K kernel of arguments "
                            "C.partials and C.arrivals");
  }
  f.elementType = cast<sck::BoxType>(ir.ring.getType().getBoxes()[0]).getElementType();
  f.outType = f.cType.getElementType();
  // (Nothing staged when rows are summed or stored directly.)
  f.stagedBits = ir.epilogue.getSumRows() || form.directStores
                     ? 0
                     : f.outType.getIntOrFloatBitWidth();
  f.nTiles = getConstantIntValue(ir.consumerLoop.getNTiles());
  f.group = ir.consumerLoop.getGroup();
  f.accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(form.transposed ? form.tileM / 2 : form.halfCols() / 2,
                             Float32Type::get(ctx)));
  for (Operation *user : ir.ring->getUsers())
    if (auto put = dyn_cast<sck::PutOp>(user))
      for (Value box : put.getBoxes())
        if (auto load = box.getDefiningOp<sck::LoadOp>();
            load && load.getOperand() == "B")
          f.kMajorB = load.getTransposed();
  f.producerLoops.insert(ir.producerLoop);
  // The boxes: [k, m] of A, [n, k] of B, with a leading 1 when batched
  // (the transposed tile: W's rows m, or a pair's half of them, of 64 k).
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  bool lhsBatched = false, rhsBatched = false;
  for (Operation *user : ir.ring->getUsers())
    if (auto put = dyn_cast<sck::PutOp>(user))
      for (Value box : put.getBoxes())
        if (auto load = box.getDefiningOp<sck::LoadOp>())
          (load.getOperand() == "A" ? lhsBatched : rhsBatched) =
              load.getCoords().size() == 3;
  int64_t aRows = !form.transposed ? form.aRows
                  : form.pairs     ? form.wHalfRows()
                                   : form.tileM;
  SmallVector<int64_t> aBox = lhsBatched && !form.flatRows
                                  ? SmallVector<int64_t>{1, aRows, kTileDepth}
                                  : SmallVector<int64_t>{aRows, kTileDepth};
  SmallVector<int64_t> bBox = rhsBatched ? SmallVector<int64_t>{1, kTileDepth, 64}
                                         : SmallVector<int64_t>{kTileDepth, 64};
  f.boxA = MemRefType::get(aBox, f.elementType, MemRefLayoutAttrInterface(), workgroup);
  f.boxB = MemRefType::get(bBox, f.elementType, MemRefLayoutAttrInterface(), workgroup);
  auto l2 = nvgpu::TensorMapL2PromoKind::L2PROMO_256B;
  f.tmaA = UnrealizedConversionCastOp::create(
               b, loc, tensorMapType(ctx, aBox, f.elementType, l2), argA)
               .getResult(0);
  if (!f.bMemref)
    f.tmaB = UnrealizedConversionCastOp::create(
                 b, loc, tensorMapType(ctx, bBox, f.elementType, l2), argB)
                 .getResult(0);
  // C's tensor map and the prefetched operand's: boxes of 64 rows x 128
  // bytes, 128B-swizzled, as the launch encodes them (the transposed
  // tile's: 8 rows of C, 32 x 32 f32 of the operand).
  auto rowsOf128Bytes = [&](Type element, Value pointer, int64_t rows) {
    // (Flat rows: C as one matrix of B x M rows.)
    SmallVector<int64_t> box = {rows, 128 * 8 / element.getIntOrFloatBitWidth()};
    if (!form.flatRows)
      box.insert(box.begin(), 1);
    return UnrealizedConversionCastOp::create(
               b, loc,
               tensorMapType(ctx, box, element,
                             nvgpu::TensorMapL2PromoKind::L2PROMO_NONE),
               pointer)
        .getResult(0);
  };
  if (argC)
    f.tmaC = rowsOf128Bytes(f.outType, argC, form.transposed ? 8 : kTileRows);
  if (ir.prefetch) {
    auto source = dyn_cast_or_null<BlockArgument>(
        kernelArgumentOf(ir.prefetch.getSource()));
    auto name = source ? func.getArgAttrOfType<StringAttr>(source.getArgNumber(),
                                                           kOperandAttrName)
                       : StringAttr();
    Value argX = name ? namedKernelArgument(func, (name.getValue() + ".map").str())
                      : Value();
    if (!argX)
      return ir.prefetch.emitError("sck-to-nvgpu: a prefetched operand of "
                                   "the kernel's arguments, with its tensor "
                                   "map (<name>.map)");
    f.tmaX = rowsOf128Bytes(form.prefetched, argX,
                            form.transposed ? kChunkRows : kTileRows);
  }

  f.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The warpgroup from lane 0 (a shuffle): warp-uniform for ptxas, so the
  // role branches do not serialize wgmma.
  Value tid32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), f.tid);
  Value wgRaw = arith::DivUIOp::create(b, loc, tid32, a.i32(128));
  Value wgU = gpu::ShuffleOp::create(b, loc, wgRaw, a.i32(0), a.i32(32),
                                     gpu::ShuffleMode::IDX)
                  .getShuffleResult();
  f.wg = arith::IndexCastOp::create(b, loc, b.getIndexType(), wgU);
  f.cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  f.ctas = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  // CTA pairs (a cluster of two, persistent) count their tiles in pairs of
  // M tiles (N tiles: the transposed tile), a pair's two CTAs walking the
  // same ones.
  Value batch = ir.consumerLoop.getBatches();
  f.cGM = ir.consumerLoop.getMTiles();
  Value cGN = ir.consumerLoop.getNTiles();
  Value unit = f.cta, units = f.ctas;
  f.unitsM = f.cGM;
  f.unitsN = cGN;
  if (form.pairs) {
    Value rank32 = NVVM::ClusterId::create(b, loc, b.getI32Type());
    f.rank = arith::IndexCastOp::create(b, loc, b.getIndexType(), rank32);
    f.peer = arith::SubIOp::create(b, loc, a.i32(1), rank32);
    if (form.transposed)
      f.unitsN = a.div(cGN, a.index(2));
    else
      f.unitsM = a.div(a.add(f.cGM, a.index(1)), a.index(2));
    unit = a.div(f.cta, a.index(2));
    units = a.div(f.ctas, a.index(2));
  }
  Value numTiles = a.mul(batch, a.mul(f.unitsM, f.unitsN));
  // Grid (as the launch counts them): a pair of tiles a CTA for ping-pong,
  // one for cooperative, the last CTA's possibly fewer.
  f.strided = form.persistent || form.flatRows;
  f.perCta = form.cooperative ? 1 : 2;
  if (f.strided) {
    Value left = a.sub(a.add(numTiles, units), a.add(unit, a.index(1)));
    Value any = a.cmp(arith::CmpIPredicate::ult, unit, numTiles);
    f.mine = arith::SelectOp::create(b, loc, any, a.div(left, units), a.index(0));
  } else {
    Value from = a.mul(f.cta, a.index(f.perCta));
    Value any = a.cmp(arith::CmpIPredicate::ult, from, numTiles);
    Value left = arith::SelectOp::create(b, loc, any, a.sub(numTiles, from),
                                         a.index(0));
    f.mine = arith::MinUIOp::create(b, loc, left, a.index(f.perCta));
  }

  auto smemType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                  MemRefLayoutAttrInterface(), workgroup);
  f.smem = gpu::DynamicSharedMemoryOp::create(b, loc, smemType);
  // 128B-swizzled boxes want 1024-byte aligned shared memory.
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, f.smem);
  f.pad = a.rem(a.sub(a.index(1024), a.rem(base, a.index(1024))), a.index(1024));
  f.smemBase = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  auto barsType = nvgpu::MBarrierGroupType::get(ctx, workgroup, form.stages);
  f.full = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
  f.empty = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
  if (ir.prefetch)
    f.xBars = nvgpu::MBarrierCreateOp::create(
        b, loc, nvgpu::MBarrierGroupType::get(ctx, workgroup, 4));
  {
    Value first = a.cmp(arith::CmpIPredicate::eq, f.tid, a.index(0));
    auto ifFirst = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
    auto slots = scf::ForOp::create(b, loc, a.index(0), a.index(form.stages),
                                    a.index(1));
    b.setInsertionPointToStart(slots.getBody());
    Value s = slots.getInductionVar();
    // The producer's TMA issue (and, B copied by threads, each of its
    // threads' copies).
    nvgpu::MBarrierInitOp::create(
        b, loc, f.full, a.index(1 + (form.bByThreads ? kWarpgroup : 0)), s,
        Value());
    // Lane 0 of each warp of the consumer that read the slot.
    // (Cooperative: both consumers read every slot.)
    // (CTA pairs: the other CTA's consumer warps too.)
    nvgpu::MBarrierInitOp::create(
        b, loc, f.empty,
        a.index((form.cooperative ? 8 : 4) * (form.pairs ? 2 : 1)), s, Value());
    // The prefetched box's buffers: one TMA arrival each.
    if (ir.prefetch) {
      b.setInsertionPointAfter(slots);
      for (int64_t x = 0; x < 4; ++x)
        nvgpu::MBarrierInitOp::create(b, loc, f.xBars, a.index(1), a.index(x),
                                      Value());
    }
  }
  publishBarrierInits(b, loc, func, form.pairs);
  return f;
}
} // namespace

//===----------------------------------------------------------------------===//
// What the patterns build with
//===----------------------------------------------------------------------===//

namespace {
/// Builds at `b`'s insertion point from the frame's values.
class Emitter : public KernelArith {
public:
  Emitter(OpBuilder &b, Location loc, const WgmmaFrame &f)
      : KernelArith(b, loc), f(f), form(f.form), ctx(b.getContext()) {}

  using KernelArith::add, KernelArith::b, KernelArith::cmp, KernelArith::div,
      KernelArith::i32, KernelArith::index, KernelArith::loc, KernelArith::mul,
      KernelArith::rem, KernelArith::sub;

  /// Ring position j -> slot and the parity its barrier's phase has when
  /// the slot is full (`free`: when it is empty again, one phase earlier).
  std::pair<Value, Value> ringPosition(Value j, bool free) {
    return ringSlotAndParity(j, form.stages, free);
  }

  /// Where ring slot `slot`'s two parts lie in shared memory: every slot's
  /// first part (A's box; the transposed tile: E's) comes before every
  /// slot's second (B's; W's).
  std::pair<Value, Value> slotParts(Value slot) {
    int64_t first = form.firstPartBytes(), second = form.slotBytes() - first;
    return {add(mul(slot, index(first)), f.pad),
            add(add(index(form.stages * first), mul(slot, index(second))), f.pad)};
  }

  /// Waits until ring position j's slot is full (`free`: empty again).
  void waitSlot(Value j, bool free) {
    auto [slot, parity] = ringPosition(j, free);
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, free ? f.empty : f.full,
                                           parity, index(kWaitTicks), slot);
  }

  /// Frees ring position j's slot: lane 0 of each of the warpgroup's warps
  /// arrives (and, CTA pairs, on the other CTA's barrier of that slot, whose
  /// loads write this slot too).
  void releaseSlot(Value j) {
    Value slot = ringPosition(j, /*free=*/false).first;
    releaseByLaneZero(f.tid, f.empty, slot, form.pairs ? f.peer : Value());
  }

  /// (b, m tile, n tile) of this CTA's tile i, in the walk's order: within
  /// a batch element, M tiles in groups of `group`, M fastest inside a
  /// group, then N. CTA pairs walk pairs of M tiles (units), the CTA of rank
  /// r taking M tile 2 pair + r (the transposed tile: N tiles).
  SmallVector<Value> decode(Value i) {
    Value group = index(f.group);
    Value unit = form.pairs ? div(f.cta, index(2)) : f.cta;
    Value units = form.pairs ? div(f.ctas, index(2)) : f.ctas;
    // Persistent: tile cta + i x CTAs; grid: tile CTA x (tiles a CTA) + i.
    Value t = f.strided ? add(unit, mul(i, units))
                        : add(mul(f.cta, index(f.perCta)), i);
    Value perBatch = mul(f.unitsN, f.unitsM);
    Value bIdx = div(t, perBatch);
    Value tb = rem(t, perBatch);
    Value perGroup = mul(group, f.unitsN);
    Value grp = div(tb, perGroup);
    Value inGrp = rem(tb, perGroup);
    Value firstM = mul(grp, group);
    Value rows = arith::MinUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, f.unitsM, firstM), group);
    Value mb = add(firstM, rem(inGrp, rows));
    Value nb = div(inGrp, rows);
    if (form.pairs && form.transposed)
      nb = add(mul(nb, index(2)), f.rank);
    else if (form.pairs)
      mb = add(mul(mb, index(2)), f.rank);
    return {bIdx, mb, nb};
  }

  Value descriptor(Value byteOffset) {
    return wgmmaDescriptor(f.smemBase, byteOffset);
  }

  /// The wgmma of one k-tile on ring slot `slot` into the two m64n128
  /// halves (`first`: ignoring the accumulators), as one commit group;
  /// waits until only it is in flight.
  std::pair<Value, Value> mmaOnSlot(Value slot, Value inL, Value inR, bool first);

  /// The transposed tile's TMA loads of W's box (`isW`) or E's at `at`
  /// into ring slot `slot`.
  void loadTransposedBox(bool isW, ArrayRef<Value> at, Value slot);

  /// This producer thread's share of B's box at `at` ([n0, k0(, b)]) into
  /// the slot part at `bBase` as TMA would lay it out, by cp.async; then
  /// the full barrier of `slot` hears of them once they land.
  void copyBoxByThreads(ArrayRef<Value> at, Value bBase, Value slot);

  /// The consumer's staging tile (and the prefetched box's buffers), past
  /// the ring.
  Value stageBase() {
    return add(add(f.pad, index(form.stages * form.slotBytes())),
               mul(f.wg, index(form.consumerBytes(f.stagedBits))));
  }

  /// Where this thread sits in its warpgroup, for the epilogues.
  struct WarpgroupThread {
    Value inWg, warp, lane, quad;
  };
  WarpgroupThread warpgroupThread() {
    WarpgroupThread t;
    t.inWg = rem(f.tid, index(128));
    t.warp = div(t.inWg, index(32));
    t.lane = rem(f.tid, index(32));
    t.quad = div(t.lane, index(4));
    return t;
  }
  /// The epilogues' thread 0 of the warpgroup and its named barrier (2 + wg).
  std::pair<Value, Value> electedAndBarrier(Value inWg) {
    Value elected = cmp(arith::CmpIPredicate::eq, inWg, index(0));
    Value wgBar = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                             add(f.wg, index(2)));
    return {elected, wgBar};
  }

  /// A tile's prefetched box: where it is read from ([n0, m0, g]; this
  /// consumer's 64 rows of it, cooperative), and the consumer's count of
  /// tiles before this one (`turn`: the buffers' phases run on).
  struct Prefetch {
    Value n0, m0, g, turn, stage;
  };
  /// The elected thread loads subtile `u` of the box into buffer u % 2.
  void loadSubtile(const Prefetch &x, int64_t u, Value elected);
  /// The transposed tile's epilogue chunks (32 rows m each).
  int64_t numChunks() const { return llvm::divideCeil(form.tileM, kChunkRows); }
  /// Where chunk `u` of the consumer's current tile streams: one of its
  /// two C buffers (`sel`) and the parity of that buffer's barrier.
  std::pair<Value, Value> chunkPlace(Value turn, int64_t u) {
    Value g = add(mul(turn, index(numChunks())), index(u));
    Value sel = rem(g, index(2));
    Value phase = rem(div(g, index(2)), index(2));
    return {sel, arith::IndexCastOp::create(b, loc, b.getI1Type(), phase)};
  }
  /// The elected thread loads chunk `u` of the prefetched box (four 32 x 32
  /// f32 boxes) into its C buffer.
  void loadChunk(const Prefetch &x, int64_t u, Value elected);
  /// The first two subtiles (chunks) into this consumer's buffers.
  void issuePrefetch(const Prefetch &x) {
    Value elected =
        cmp(arith::CmpIPredicate::eq, rem(f.tid, index(128)), index(0));
    if (form.transposed) {
      loadChunk(x, 0, elected);
      loadChunk(x, 1, elected);
      return;
    }
    loadSubtile(x, 0, elected);
    if (form.tileN * f.form.prefetched.getIntOrFloatBitWidth() / 8 > 128)
      loadSubtile(x, 1, elected);
  }

  /// The epilogue of the tile at [n0, m0(, b)] from the accumulator halves:
  /// `fn` (null: convert) on each element with, per epilogue operand, its
  /// memref or (null) the prefetched box's element, through the consumer's
  /// staging tile at `stageBase`. With `sumRows` (M), the elements' f32
  /// sums over the tile's rows below M are added into C[b, 0, n] instead.
  void writeEpilogue(ArrayRef<Value> tile, Value accL, Value accR,
                     func::FuncOp fn, ArrayRef<Value> ins, Value stageBase,
                     std::optional<Prefetch> x,
                     std::optional<int64_t> sumRows = std::nullopt);
  /// Adds a thread's per-column sums `sums` (columns `col`, `col` + 1 of
  /// the tile past `n0`) over the warp's rows into C[b, 0, n].
  void addColumnSums(ArrayRef<Value> sums, Value bIdx, Value n0, Value col);
  /// The transposed tile's epilogue: out[b][m][n] from accumulators whose
  /// registers run along m, chunk by chunk through 8-row staging boxes.
  void writeTransposedEpilogue(ArrayRef<Value> tile, Value accL, Value accR,
                               func::FuncOp fn, ArrayRef<Value> ins,
                               Value stageBase, std::optional<Prefetch> x);

  const WgmmaFrame &f;
  const WgmmaKernelForm &form;
  MLIRContext *ctx;

private:
  Value subtileBuffer(Value stage, int64_t u) {
    return add(stage, index(kTileRows * 128 * f.stagedBits / 8 +
                            (u % 2) * kSubtileBytes));
  }
  Value subtileBarrier(int64_t u) {
    return add(mul(f.wg, index(2)), index(u % 2));
  }
  Value chunkBuffer(Value stage, Value sel) {
    return add(stage, add(index(kTransposedStagingBytes),
                          mul(sel, index(kChunkBytes))));
  }
};
} // namespace

std::pair<Value, Value> Emitter::mmaOnSlot(Value slot, Value inL, Value inR,
                                           bool first) {
  // Each half: its A descriptor, its B descriptor, and the steps (in 16-byte
  // descriptor units) to the next k16 of each.
  struct Half {
    Value descA, descB;
  };
  SmallVector<Half, 2> halves;
  int64_t aStep, bStep, n;
  NVVM::MMALayout aLayout, bLayout;
  if (form.transposed) {
    // E's two 64 x 64 boxes (8 KB apart) as A, read MN-major: a k16 step is
    // 16 rows of 128 bytes (128 units); W's box as B, K-major: 32 bytes
    // along its rows (2 units); n = the tile's rows m.
    auto [eOff, wOff] = slotParts(slot);
    Value descW = descriptor(wOff);
    halves = {{descriptor(eOff), descW},
              {descriptor(add(eOff, index(8192))), descW}};
    aStep = 128;
    bStep = 2;
    n = form.tileM;
    aLayout = NVVM::MMALayout::col;
    bLayout = NVVM::MMALayout::col;
  } else {
    // Cooperative: this consumer's 64 rows of A's box.
    auto [aOff, bOff] = slotParts(slot);
    if (form.cooperative)
      aOff = add(aOff, mul(f.wg, index(kTileRows * kTileDepth * 2)));
    Value descA = descriptor(aOff);
    // B's halves of up to 128 columns: two 64 x 64 boxes each, 16 KB
    // apart (a tile of 128 columns or fewer: one half).
    halves = {{descA, descriptor(bOff)}};
    if (form.halves() == 2)
      halves.push_back({descA, descriptor(add(bOff, index(16384)))});
    // A k16 step: 32 bytes along A's rows (2 units); of B: 16 rows of 128
    // bytes (128 units) N-major, 32 bytes along its rows (2 units) K-major
    // (layout col).
    bool kMajorB = f.kMajorB;
    aStep = 2;
    bStep = kMajorB ? 2 : 128;
    n = form.halfCols();
    aLayout = NVVM::MMALayout::row;
    bLayout = kMajorB ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  }
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  auto type = f.elementType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
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
          b, loc, f.accType, acc, a, bd, NVVM::MMAShapeAttr::get(ctx, 64, n, 16),
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

void Emitter::loadTransposedBox(bool isW, ArrayRef<Value> at, Value slot) {
  auto [eBase, wBase] = slotParts(slot);
  if (!isW) {
    // E's box [n0, k, b]: two 64 x 64 boxes (columns n0, n0 + 64) 8 KB
    // apart, each read MN-major by one of the two wgmma halves.
    for (int64_t part = 0; part < 2; ++part) {
      SmallVector<Value> partAt(at);
      partAt[0] = add(partAt[0], index(64 * part));
      Value view = memref::ViewOp::create(b, loc, f.boxB, f.smem,
                                          add(eBase, index(8192 * part)),
                                          ValueRange());
      nvgpu::TmaAsyncLoadOp::create(b, loc, view, f.full, f.tmaB, partAt, slot,
                                    Value(), Value());
    }
    return;
  }
  // W's box [k, m0] after every slot's E part: tileM rows of 64 k
  // (K-major). CTA pairs: rank r loads rows r (tileM - half) .. + half and
  // multicasts them (the halves overlap by what rounding to 8 rows adds).
  SmallVector<Value> rowAt(at);
  Value mask;
  if (form.pairs) {
    Value from = mul(f.rank, index(form.tileM - form.wHalfRows()));
    rowAt[1] = add(rowAt[1], from);
    wBase = add(wBase, mul(from, index(kTileDepth * 2)));
    mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(), 3);
  }
  Value view = memref::ViewOp::create(b, loc, f.boxA, f.smem, wBase, ValueRange());
  nvgpu::TmaAsyncLoadOp::create(b, loc, view, f.full, f.tmaA, rowAt, slot, mask,
                                Value());
}

void Emitter::copyBoxByThreads(ArrayRef<Value> at, Value bBase, Value slot) {
  auto type = cast<MemRefType>(f.bMemref.getType());
  int64_t rank = type.getRank();
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  // Thread t of the warpgroup copies the piece at column (t mod P) x E of
  // rows t / P, t / P + 128 / P, ... (P pieces of E elements a box row):
  // a warp reads 32 neighbouring pieces of a row.
  int64_t pieceElems = f.bPieceBytes / 2;
  int64_t piecesARow = form.tileN / pieceElems;
  int64_t rowsAPass = kWarpgroup / piecesARow;
  Value t = rem(f.tid, index(kWarpgroup));
  Value col = mul(rem(t, index(piecesARow)), index(pieceElems));
  Value n = add(at[0], col);
  Value colInB = cmp(arith::CmpIPredicate::ult, n, index(cols));
  Value source = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, f.bMemref);
  Value first = add(rank == 3 ? mul(at[2], index(rows * cols)) : index(0), n);
  // In shared memory: 64-column part col / 64, 128-byte rows whose 16-byte
  // chunks are swizzled by the row mod 8 (TMA's 128B swizzle).
  Value inRow = mul(rem(col, index(64)), index(2));
  Value chunk = div(inRow, index(16));
  Value part = add(add(arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                  f.smemBase),
                       bBase),
                   add(mul(div(col, index(64)), index(8192)),
                       rem(inRow, index(16))));
  auto global = LLVM::LLVMPointerType::get(ctx, 1);
  auto shared = LLVM::LLVMPointerType::get(ctx, 3);
  auto pointer = [&](Value address, Type type) -> Value {
    Value wide = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
    return LLVM::IntToPtrOp::create(b, loc, type, wide);
  };
  auto rowLoop = scf::ForOp::create(b, loc, div(t, index(piecesARow)),
                                    index(kTileDepth), index(rowsAPass));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(rowLoop.getBody());
    Value r = rowLoop.getInductionVar();
    Value k = add(at[1], r);
    Value valid = arith::AndIOp::create(
        b, loc, colInB, cmp(arith::CmpIPredicate::ult, k, index(rows)));
    Value from = add(source, mul(add(first, mul(k, index(cols))), index(2)));
    // Past B's rows or columns: nothing read (source size 0), zeros
    // written, from an address inside B.
    from = arith::SelectOp::create(b, loc, valid, from, source);
    Value size = arith::SelectOp::create(b, loc, valid, i32(f.bPieceBytes), i32(0));
    Value swizzled = arith::XOrIOp::create(b, loc, chunk, rem(r, index(8)));
    Value to = add(part, add(mul(r, index(128)), mul(swizzled, index(16))));
    NVVM::CpAsyncOp::create(b, loc, pointer(to, shared), pointer(from, global),
                            f.bPieceBytes, NVVM::LoadCacheModifierKind::CA, size);
  }
  Value barrier = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(), f.full, slot);
  NVVM::CpAsyncMBarrierArriveOp::create(
      b, loc, LLVM::IntToPtrOp::create(b, loc, shared, barrier), /*noinc=*/true);
}

void Emitter::loadChunk(const Prefetch &x, int64_t u, Value elected) {
  auto ifElected = scf::IfOp::create(b, loc, elected, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifElected.getThenRegion().front());
  Value sel = chunkPlace(x.turn, u).first;
  Value bar = add(mul(f.wg, index(2)), sel);
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, f.xBars, index(kChunkBytes),
                                          bar, Value());
  auto boxType = MemRefType::get({1, kChunkRows, 32}, b.getF32Type(),
                                 MemRefLayoutAttrInterface(),
                                 f.boxA.getMemorySpace());
  for (int64_t bx = 0; bx < 4; ++bx) {
    Value view = memref::ViewOp::create(
        b, loc, boxType, f.smem, add(chunkBuffer(x.stage, sel), index(4096 * bx)),
        ValueRange());
    nvgpu::TmaAsyncLoadOp::create(
        b, loc, view, f.xBars, f.tmaX,
        ValueRange{add(x.n0, index(32 * bx)), add(x.m0, index(kChunkRows * u)), x.g},
        bar, Value(), Value());
  }
}

void Emitter::loadSubtile(const Prefetch &x, int64_t u, Value elected) {
  int64_t xBytes = form.prefetched.getIntOrFloatBitWidth() / 8;
  auto ifElected = scf::IfOp::create(b, loc, elected, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifElected.getThenRegion().front());
  Value bar = subtileBarrier(u);
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, f.xBars, index(kSubtileBytes),
                                          bar, Value());
  Type element = form.prefetched;
  auto boxType = MemRefType::get({1, kTileRows, 128 / xBytes}, element,
                                 MemRefLayoutAttrInterface(),
                                 f.boxA.getMemorySpace());
  Value view = memref::ViewOp::create(
      b, loc, boxType, f.smem,
      subtileBuffer(x.stage, u), ValueRange());
  Value n = add(x.n0, index(u * 128 / xBytes));
  nvgpu::TmaAsyncLoadOp::create(b, loc, view, f.xBars, f.tmaX,
                                ValueRange{n, x.m0, x.g}, bar, Value(), Value());
}

void Emitter::addColumnSums(ArrayRef<Value> sums, Value bIdx, Value n0,
                            Value col) {
  // The warp's eight quads hold the same columns: a butterfly over them,
  // then the first quad's lanes add the two columns (N is even).
  auto [inWg, warp, lane, quad] = warpgroupThread();
  SmallVector<Value> total;
  for (Value sum : sums)
    total.push_back(sumOverLanes(sum, {4, 8, 16}));
  Value n = add(n0, col);
  Value inC = arith::AndIOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, quad, index(0)),
      cmp(arith::CmpIPredicate::ult, n, index(f.cType.getDimSize(2))));
  auto ifAdd = scf::IfOp::create(b, loc, inC, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifAdd.getThenRegion().front());
  for (auto [e, sum] : llvm::enumerate(total))
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, sum, f.c,
                                ValueRange{bIdx, index(0), add(n, index(e))});
}

void Emitter::writeEpilogue(ArrayRef<Value> tile, Value accL, Value accR,
                            func::FuncOp fn, ArrayRef<Value> ins,
                            Value stageBase, std::optional<Prefetch> x,
                            std::optional<int64_t> sumRows) {
  // (Flat rows: m0 a row of all batch elements', no batch coordinate.)
  Value n0 = tile[0], m0 = tile[1], bIdx = form.flatRows ? Value() : tile[2];
  // Cooperative: this consumer's 64 rows of the tile.
  if (form.cooperative)
    m0 = add(m0, mul(f.wg, index(kTileRows)));
  Type outType = f.outType;
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
                                   f.boxA.getMemorySpace());
  Value stage = memref::ViewOp::create(b, loc, stageType, f.smem, stageBase,
                                       ValueRange());
  SmallVector<int64_t> boxShape = {kTileRows, boxCols};
  if (!form.flatRows)
    boxShape.insert(boxShape.begin(), 1);
  auto boxType = MemRefType::get(boxShape, outType, MemRefLayoutAttrInterface(),
                                 f.boxA.getMemorySpace());
  int64_t rowsPerItem = sumRows ? *sumRows : f.cType.getDimSize(1);
  Value mLast = form.flatRows
                    ? arith::SubIOp::create(
                          b, loc,
                          mul(memref::DimOp::create(b, loc, f.c, 0),
                              index(rowsPerItem)),
                          index(1))
                    : index(rowsPerItem - 1);
  int64_t nLast = f.cType.getDimSize(2) - 1;
  // A prefetched box streams through the consumer's two buffers: subtile
  // u (columns [u C, u C + C), C = 128 bytes of elements) in buffer u % 2,
  // its (u / 2)-th fill of the tile (an even count a tile: the parity
  // starts over each tile).
  int64_t xBytes = x ? form.prefetched.getIntOrFloatBitWidth() / 8 : 0;
  int64_t subCols = xBytes ? 128 / xBytes : 0;
  int64_t numSub = xBytes ? form.tileN / subCols : 0;
  Type xType = form.prefetched;
  Value subtile;
  Value accs[2] = {accL, accR};
  // Summed rows: the rows this thread holds that lie in the result (the
  // clamped ones are computed twice, and added once).
  Value rowInC[2];
  if (sumRows)
    for (int64_t r = 0; r < 2; ++r)
      rowInC[r] = cmp(arith::CmpIPredicate::ult,
                      add(add(m0, rowRel0), index(8 * r)), index(*sumRows));
  Type valueType = fn ? fn.getResultTypes()[0] : outType;
  // The (b, m) of this thread's two rows, clamped into the result: what
  // lies past it is computed on its last row and dropped by the store.
  // Flat rows: row r is row r mod M of batch element r / M.
  // Direct stores: the rows that lie in the result.
  std::pair<Value, Value> rowOf[2];
  Value rowStored[2];
  for (int64_t r = 0; r < 2; ++r) {
    Value row = add(add(m0, rowRel0), index(8 * r));
    rowStored[r] = cmp(arith::CmpIPredicate::ule, row, mLast);
    Value m = arith::MinUIOp::create(b, loc, row, mLast);
    rowOf[r] = form.flatRows ? std::pair(div(m, index(rowsPerItem)),
                                       rem(m, index(rowsPerItem)))
                           : std::pair(bIdx, m);
  }
  // With one N tile (n0 = 0), columns from N on are never stored: their
  // epilogue and staging are skipped (a prefetched box streams through
  // every subtile, so not with one).
  int64_t liveCols =
      f.nTiles == 1 && !xBytes ? nLast + 1 : form.tileN;
  int64_t halfCols = form.halfCols();
  bool direct = form.directStores;
  for (int64_t half = 0; half < form.halves() && 128 * half < liveCols;
       ++half) {
    // TMA has read the staging tile (the previous half's stores).
    if (!direct) {
      {
        auto ifElected = scf::IfOp::create(b, loc, elected, false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifElected.getThenRegion().front());
        NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
      }
      NVVM::BarrierOp::create(b, loc, Type(), wgBar, wgCount, nullptr, Value());
    }
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
                      rem(add(mul(x->turn, index(fills)), index(u / 2)), index(2)))
                      .getResult();
        nvgpu::MBarrierTryWaitParityOp::create(b, loc, f.xBars, parity,
                                               index(kWaitTicks), bar);
        subtile = memref::ViewOp::create(
            b, loc,
            MemRefType::get({kSubtileBytes / xBytes}, xType,
                            MemRefLayoutAttrInterface(), f.boxA.getMemorySpace()),
            f.smem, subtileBuffer(stageBase, u), ValueRange());
      }
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
      SmallVector<Value> columnSums(2, zero);
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
        auto stagingOffset = [&]() {
          int64_t q = 8 * g / boxCols;
          Value cInBox = add(index(8 * g % boxCols), colPair);
          Value bytes = mul(cInBox, index(outBytes));
          Value chunk = arith::XOrIOp::create(b, loc, div(bytes, index(16)), quad);
          Value rowRel = add(rowRel0, index(8 * r));
          return add(add(index(q * kTileRows * 128), mul(rowRel, index(128))),
                     add(mul(chunk, index(16)), rem(bytes, index(16))));
        };
        // The pair's columns clamped as a pair (N is even): the first at
        // most N - 2, so the two stay neighbours and the epilogue's loads
        // of them can merge into one.
        Value pairN = arith::MinUIOp::create(
            b, loc, add(add(n0, colPair), index(128 * half + 8 * g)),
            index(nLast - 1));
        SmallVector<Value> values;
        for (int64_t e = 0; e < 2; ++e) {
          Value v = LLVM::ExtractValueOp::create(b, loc, accs[half], reg + e);
          if (fn) {
            // At indices clamped into the result: what lies past it is
            // computed on its last row or columns and dropped by the store.
            auto [bOfRow, m] = rowOf[r];
            SmallVector<Value> args = {v, bOfRow, m, add(pairN, index(e))};
            // Per operand its memref, or (null) the box's element.
            for (Value in : ins)
              args.push_back(in ? in
                                : vector::ExtractOp::create(b, loc, xPair, e)
                                      .getResult());
            v = func::CallOp::create(b, loc, fn, args).getResult(0);
          } else if (outType != v.getType()) {
            v = arith::TruncFOp::create(b, loc, outType, v);
          }
          values.push_back(v);
        }
        if (sumRows) {
          for (auto [e, v] : llvm::enumerate(values)) {
            Value wide = v.getType().isF32()
                             ? v
                             : arith::ExtFOp::create(b, loc, b.getF32Type(), v);
            wide = arith::SelectOp::create(b, loc, rowInC[r], wide, zero);
            columnSums[e] = arith::AddFOp::create(b, loc, columnSums[e], wide);
          }
          continue;
        }
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, valueType), values);
        if (direct) {
          // The pair into C where its row and columns lie in it (N is
          // even: both columns or neither).
          Value n = add(add(n0, colPair), index(128 * half + 8 * g));
          Value inC = arith::AndIOp::create(
              b, loc, rowStored[r],
              cmp(arith::CmpIPredicate::ule, n, index(nLast)));
          auto ifInC = scf::IfOp::create(b, loc, inC, false);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&ifInC.getThenRegion().front());
          auto [bOfRow, m] = rowOf[r];
          vector::StoreOp::create(b, loc, pair, f.c, ValueRange{bOfRow, m, n},
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(2 * outBytes));
          continue;
        }
        vector::StoreOp::create(b, loc, pair, stage,
                                ValueRange{div(stagingOffset(), index(outBytes))},
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(2 * outBytes));
      }
      if (sumRows)
        addColumnSums(columnSums, bIdx, n0,
                      add(colPair, index(128 * half + 8 * g)));
      // Every thread has read subtile u: subtile u + 2 goes into its buffer.
      if (xBytes && (col + 8) % subCols == 0 && col / subCols + 2 < numSub) {
        NVVM::BarrierOp::create(b, loc, Type(), wgBar, wgCount, nullptr, Value());
        loadSubtile(*x, col / subCols + 2, elected);
      }
    }
    // Stored directly: nothing staged, nothing prefetched.
    if (direct)
      continue;
    // The stores are visible to TMA, then the elected thread sends them.
    // (Summed rows: nothing staged; the barrier still orders the reads of
    // the prefetch buffers before the next tile's fill.)
    if (!sumRows)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    NVVM::BarrierOp::create(b, loc, Type(), wgBar, wgCount, nullptr, Value());
    if (sumRows)
      continue;
    auto ifElected = scf::IfOp::create(b, loc, elected, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifElected.getThenRegion().front());
    for (int64_t q = 0;
         q < halfCols / boxCols && 128 * half + q * boxCols < liveCols; ++q) {
      Value box = memref::ViewOp::create(
          b, loc, boxType, f.smem, add(stageBase, index(q * kTileRows * 128)),
          ValueRange());
      Value n = add(n0, index(128 * half + q * boxCols));
      SmallVector<Value> at = {n, m0};
      if (!form.flatRows)
        at.push_back(bIdx);
      nvgpu::TmaAsyncStoreOp::create(b, loc, box, f.tmaC, at, Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
}

void Emitter::writeTransposedEpilogue(ArrayRef<Value> tile, Value accL,
                                      Value accR, func::FuncOp fn,
                                      ArrayRef<Value> ins, Value stageBase,
                                      std::optional<Prefetch> x) {
  Value n0 = tile[0], m0 = tile[1], bIdx = tile[2];
  Type outType = f.outType;
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
  auto space = f.boxA.getMemorySpace();
  Value stage = memref::ViewOp::create(
      b, loc,
      MemRefType::get({kTransposedStagingBytes / 2}, outType,
                      MemRefLayoutAttrInterface(), space),
      f.smem, stageBase, ValueRange());
  Value buffers;
  if (x)
    buffers = memref::ViewOp::create(
        b, loc,
        MemRefType::get({form.consumerBytes(outType.getIntOrFloatBitWidth()) / 4},
                        b.getF32Type(),
                        MemRefLayoutAttrInterface(), space),
        f.smem, stageBase, ValueRange());
  auto boxType = MemRefType::get({1, 8, 64}, outType,
                                 MemRefLayoutAttrInterface(), space);
  Value mLast = index(f.cType.getDimSize(1) - 1);
  Value nLast = index(f.cType.getDimSize(2) - 1);
  // The row (m within 8) of register i's element and its byte in a
  // swizzled 128-byte row: chunk `c16` of 16 bytes, `within` it.
  auto swizzled = [&](Value row, Value c16, Value within) {
    Value chunk = arith::XOrIOp::create(b, loc, c16, row);
    return add(add(mul(row, index(128)), mul(chunk, index(16))), within);
  };
  int64_t groups = form.tileM / 8;
  Value accs[2] = {accL, accR};
  for (int64_t u = 0; u < numChunks(); ++u) {
    int64_t groupsIn = std::min<int64_t>(4, groups - 4 * u);
    Value sel;
    if (x) {
      auto [s, parity] = chunkPlace(x->turn, u);
      sel = s;
      nvgpu::MBarrierTryWaitParityOp::create(b, loc, f.xBars, parity,
                                             index(kWaitTicks),
                                             add(mul(f.wg, index(2)), sel));
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
          Value xElement;
          if (x) {
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
            xElement = memref::LoadOp::create(b, loc, buffers,
                                              ValueRange{div(offset, index(4))});
          }
          if (fn) {
            // At indices clamped into the result: what lies past it is
            // computed on its last row or column and dropped by the store.
            Value m = arith::MinUIOp::create(
                b, loc, add(m0, add(index(8 * gt), row)), mLast);
            Value n = arith::MinUIOp::create(
                b, loc, add(n0, add(index(64 * h), nInBox)), nLast);
            SmallVector<Value> args = {v, bIdx, m, n};
            // Per operand its memref, or (null) the box's element.
            for (Value in : ins)
              args.push_back(in ? in : xElement);
            v = func::CallOp::create(b, loc, fn, args).getResult(0);
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
            b, loc, boxType, f.smem, add(stageBase, index(4096 * h + 1024 * gg)),
            ValueRange());
        nvgpu::TmaAsyncStoreOp::create(
            b, loc, box, f.tmaC,
            ValueRange{add(n0, index(64 * h)), add(m0, index(8 * (4 * u + gg))), bIdx},
            Value());
      }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    if (x && u + 2 < numChunks())
      loadChunk(*x, u + 2, elected);
  }
}


//===----------------------------------------------------------------------===//
// The patterns
//===----------------------------------------------------------------------===//

namespace {
template <typename Op> using WgmmaPattern = FramePattern<Op, WgmmaFrame>;

/// The loop of the tile walk `op` is in (its induction variable: the
/// tile's index in the CTA's walk).
scf::ForOp tileWalk(Operation *op) {
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (loop->hasAttr(kWalkAttrName))
      return loop;
  return scf::ForOp();
}

/// The consumer's count of its tiles before the walk's current one
/// (ping-pong: it takes every other tile of the CTA).
Value consumerTurn(Emitter &e, scf::ForOp walk) {
  Value i = walk.getInductionVar();
  return e.form.cooperative ? i : e.div(i, e.index(2));
}

/// The ring is the frame's (its slots at the aligned start of shared
/// memory): its users read the frame.
struct RingToFrame : WgmmaPattern<sck::RingOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::RingOp ring, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    rewriter.replaceOp(ring, frame.pad);
    return success();
  }
};

/// A role: its warpgroups' branch, their register budget; the producer's
/// loads issued by one thread, the consumers waiting for their last TMA
/// stores (shared memory must outlive them).
struct RoleToWarpgroup : WgmmaPattern<sck::RoleOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::RoleOp role, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = role.getLoc();
    Emitter e(rewriter, loc, frame);
    bool producer = role.getKind() == sck::RoleKind::producer;
    Value cond = e.cmp(producer ? arith::CmpIPredicate::eq
                                : arith::CmpIPredicate::ne,
                       frame.wg, e.index(2));
    auto ifRole = scf::IfOp::create(rewriter, loc, cond, false);
    rewriter.setInsertionPointToStart(&ifRole.getThenRegion().front());
    NVVM::SetMaxRegisterOp::create(rewriter, loc, role.getRegs(),
                                   producer
                                       ? NVVM::SetMaxRegisterAction::decrease
                                       : NVVM::SetMaxRegisterAction::increase);
    Operation *end = ifRole.getThenRegion().front().getTerminator();
    // (B copied by threads: every producer thread walks the ring, thread
    // 256 alone issuing TMA.)
    if (producer && !frame.form.bByThreads) {
      Value leader = e.cmp(arith::CmpIPredicate::eq, frame.tid,
                           e.index(kProducerThread));
      auto ifLeader = scf::IfOp::create(rewriter, loc, leader, false);
      end = ifLeader.getThenRegion().front().getTerminator();
    }
    rewriter.inlineBlockBefore(&role.getBody().front(), end);
    if (!producer) {
      rewriter.setInsertionPoint(end);
      Value elected = e.cmp(arith::CmpIPredicate::eq,
                            e.rem(frame.tid, e.index(128)), e.index(0));
      auto ifElected = scf::IfOp::create(rewriter, loc, elected, false);
      rewriter.setInsertionPointToStart(&ifElected.getThenRegion().front());
      NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, 0, UnitAttr());
    }
    rewriter.eraseOp(role);
    return success();
  }
};

/// The CTA's share of the tiles: the producer walks them all, ping-pong
/// consumer w every other one from w, cooperative consumers all (64 rows
/// each); each decoded into the loop's (b, m tile, n tile).
struct TileLoopToWalk : WgmmaPattern<sck::TileLoopOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::TileLoopOp loop, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = loop.getLoc();
    Emitter e(rewriter, loc, frame);
    bool everyTile =
        frame.producerLoops.contains(loop) || frame.form.cooperative;
    auto walk = scf::ForOp::create(rewriter, loc,
                                   everyTile ? e.index(0) : frame.wg,
                                   frame.mine, e.index(everyTile ? 1 : 2));
    walk->setAttr(kWalkAttrName, rewriter.getUnitAttr());
    rewriter.setInsertionPointToStart(walk.getBody());
    SmallVector<Value> tile = e.decode(walk.getInductionVar());
    rewriter.inlineBlockBefore(&loop.getBody().front(),
                               walk.getBody()->getTerminator(), tile);
    rewriter.eraseOp(loop);
    return success();
  }
};

struct TileIndexToWalk : WgmmaPattern<sck::TileIndexOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::TileIndexOp index, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    scf::ForOp walk = tileWalk(index);
    if (!walk)
      return index.emitError("sck-to-nvgpu: a tile index outside a tile walk");
    rewriter.replaceOp(index, walk.getInductionVar());
    return success();
  }
};

/// Ping-pong turns: named barrier 5 - w waits for the other consumer's
/// MMAs of the tile before (not before the CTA's first tile), 4 + w hands
/// over (not after its last).
template <typename TurnOp>
struct TurnToNamedBarrier : WgmmaPattern<TurnOp> {
  using WgmmaPattern<TurnOp>::WgmmaPattern;
  LogicalResult
  matchAndRewrite(TurnOp turn, typename TurnOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const WgmmaFrame &f = this->frame;
    scf::ForOp walk = tileWalk(turn);
    if (!walk)
      return turn.emitError("sck-to-nvgpu: a turn outside a tile walk");
    Location loc = turn.getLoc();
    Emitter e(rewriter, loc, f);
    Value i = walk.getInductionVar();
    bool await = std::is_same_v<TurnOp, sck::AwaitTurnOp>;
    Value go = await ? e.cmp(arith::CmpIPredicate::ugt, i, e.index(0))
                     : e.cmp(arith::CmpIPredicate::ult, e.add(i, e.index(1)),
                             f.mine);
    auto ifTurn = scf::IfOp::create(rewriter, loc, go, false);
    rewriter.setInsertionPointToStart(&ifTurn.getThenRegion().front());
    Value count = e.i32(256);
    Value id = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI32Type(),
        await ? e.sub(e.index(5), f.wg) : e.add(e.index(4), f.wg));
    if (await)
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, count, nullptr, Value());
    else
      NVVM::BarrierArriveOp::create(rewriter, loc, id, count);
    rewriter.eraseOp(turn);
    return success();
  }
};

/// A put: wait for the slot to be free, expect its bytes, TMA-load its
/// boxes (B in 64-column parts; CTA pairs: this CTA's parts multicast to
/// both).
struct PutToTmaLoads : WgmmaPattern<sck::PutOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::PutOp put, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!put.getPosition())
      return put.emitError("sck-to-nvgpu: a put at a named ring position "
                           "(sc-schedule-wgmma)");
    const WgmmaKernelForm &form = frame.form;
    Location loc = put.getLoc();
    Emitter e(rewriter, loc, frame);
    Value j = adaptor.getPosition();
    e.waitSlot(j, /*free=*/true);
    Value slot = e.ringPosition(j, /*free=*/true).first;
    // (CTA pairs on the transposed tile: both halves of W land in each
    // CTA, the rows they share twice. B copied by threads: A's box only.)
    int64_t txBytes =
        form.transposed && form.pairs
            ? kTransposedEBytes + 2 * form.wHalfRows() * kTileDepth * 2
        : form.bByThreads ? form.firstPartBytes()
                          : form.slotBytes();
    // B copied by threads: every producer thread is here; the TMA issue is
    // thread 256's.
    std::optional<OpBuilder::InsertionGuard> afterIssue;
    if (form.bByThreads) {
      Value leader = e.cmp(arith::CmpIPredicate::eq, frame.tid,
                           e.index(kProducerThread));
      auto ifLeader = scf::IfOp::create(rewriter, loc, leader, false);
      afterIssue.emplace(rewriter);
      rewriter.setInsertionPointToStart(&ifLeader.getThenRegion().front());
    }
    nvgpu::MBarrierArriveExpectTxOp::create(rewriter, loc, frame.full,
                                            e.index(txBytes), slot, Value());
    SmallVector<Value> byThreads;
    for (Value boxValue : put.getBoxes()) {
      auto load = boxValue.getDefiningOp<sck::LoadOp>();
      if (!load || (load.getOperand() != "A" && load.getOperand() != "B"))
        return put.emitError("sck-to-nvgpu: a put of loads of A and B");
      if (load.getTransposed() && load.getOperand() != "B" && !form.transposed)
        return load.emitError("sck-to-nvgpu: a transposed box of A");
      SmallVector<Value> at = llvm::map_to_vector(
          load.getCoords(), [&](Value v) { return rewriter.getRemappedValue(v); });
      bool isA = load.getOperand() == "A";
      if (form.transposed) {
        e.loadTransposedBox(isA, at, slot);
        continue;
      }
      if (load.getByThreads() != (!isA && form.bByThreads))
        return load.emitError("sck-to-nvgpu: B's boxes all loaded by threads "
                              "or all by TMA");
      if (load.getByThreads()) {
        if (load.getTransposed())
          return load.emitError("sck-to-nvgpu: a box loaded by threads from "
                                "an N-major B only");
        byThreads = at;
        continue;
      }
      // B's 64-column parts (tileN / 64): along its first coordinate (n,
      // N-major), or its second (a K-major rhs: the box read transposed, k
      // first).
      unsigned nCoord = load.getTransposed() ? 1 : 0;
      auto [aBase, bBase] = e.slotParts(slot);
      Value base = isA ? aBase : bBase;
      // CTA pairs: this CTA loads B's parts 2 r and 2 r + 1 into both CTAs
      // (multicast; each full barrier expects the whole slot).
      bool shared = !isA && form.pairs;
      int64_t parts = isA ? 1 : shared ? 2 : form.tileN / 64;
      Value mask = shared ? arith::ConstantIntOp::create(
                                rewriter, loc, rewriter.getI16Type(), 3)
                                .getResult()
                          : Value();
      for (int64_t k = 0; k < parts; ++k) {
        Value part = shared ? e.add(e.mul(frame.rank, e.index(2)), e.index(k))
                            : e.index(k);
        Value view = memref::ViewOp::create(
            rewriter, loc, isA ? frame.boxA : frame.boxB, frame.smem,
            e.add(base, e.mul(part, e.index(8192))), ValueRange());
        SmallVector<Value> partAt = at;
        if (!isA)
          partAt[nCoord] = e.add(partAt[nCoord], e.mul(part, e.index(64)));
        nvgpu::TmaAsyncLoadOp::create(rewriter, loc, view, frame.full,
                                      isA ? frame.tmaA : frame.tmaB, partAt,
                                      slot, mask, Value());
      }
    }
    afterIssue.reset();
    if (!byThreads.empty())
      e.copyBoxByThreads(byThreads, e.slotParts(slot).second, slot);
    erasePutAndItsLoads(rewriter, put);
    return success();
  }
};

/// A get: wait for the slot to be full; its boxes are the slot.
struct GetToFullWait : WgmmaPattern<sck::GetOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::GetOp get, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!get.getPosition())
      return get.emitError("sck-to-nvgpu: a get at a named ring position "
                           "(sc-schedule-wgmma)");
    Emitter e(rewriter, get.getLoc(), frame);
    e.waitSlot(adaptor.getPosition(), /*free=*/false);
    // What the producer's threads copied (the generic proxy) is seen by
    // wgmma (the async proxy) after a proxy fence.
    if (frame.form.bByThreads)
      NVVM::FenceProxyOp::create(
          rewriter, get.getLoc(), NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(getContext(), NVVM::SharedSpace::shared_cta));
    Value slot = e.ringPosition(adaptor.getPosition(), /*free=*/false).first;
    rewriter.replaceOp(get, SmallVector<Value>(get.getNumResults(), slot));
    return success();
  }
};

/// A zero accumulator is never materialized: the MMA from it has wgmma
/// that ignore their accumulator.
struct ZeroToUndef : WgmmaPattern<sck::ZeroOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ZeroOp zero, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Value undef = LLVM::UndefOp::create(rewriter, zero.getLoc(), frame.accType);
    rewriter.replaceOpWithMultiple(zero, {{undef, undef}});
    return success();
  }
};

struct MmaToWgmma : WgmmaPattern<sck::MmaOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::MmaOp mma, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    auto got = mma.getA().getDefiningOp<sck::GetOp>();
    if (!got || mma.getB().getDefiningOp<sck::GetOp>() != got)
      return mma.emitError("sck-to-nvgpu: an mma of the boxes of one get");
    Emitter e(rewriter, mma.getLoc(), frame);
    ValueRange acc = adaptor.getAcc();
    bool first = static_cast<bool>(mma.getAcc().getDefiningOp<sck::ZeroOp>());
    auto [l, r] = e.mmaOnSlot(adaptor.getA().front(), acc[0], acc[1], first);
    rewriter.replaceOpWithMultiple(mma, {{l, r}});
    return success();
  }
};

struct ReleaseToArrive : WgmmaPattern<sck::ReleaseOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ReleaseOp release, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!release.getPosition())
      return release.emitError("sck-to-nvgpu: a release at a named ring "
                               "position (sc-schedule-wgmma)");
    Emitter e(rewriter, release.getLoc(), frame);
    e.releaseSlot(adaptor.getPosition());
    rewriter.eraseOp(release);
    return success();
  }
};

struct DiscardToWaitAndArrive : WgmmaPattern<sck::DiscardOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::DiscardOp discard, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Emitter e(rewriter, discard.getLoc(), frame);
    e.waitSlot(adaptor.getPosition(), /*free=*/false);
    e.releaseSlot(adaptor.getPosition());
    // The warp meets again before the next slot: lanes 1-31 must not spin
    // on it while lane 0, which frees this one, waits to be scheduled
    // (only fair scheduling of diverged lanes would run it;
    // compute-sanitizer does not promise that: racecheck hung).
    NVVM::SyncWarpOp::create(rewriter, discard.getLoc(), e.i32(-1));
    rewriter.eraseOp(discard);
    return success();
  }
};

/// Where the tile's prefetched box is read from, in the walk `op` is in.
FailureOr<Emitter::Prefetch> prefetchOf(Emitter &e, sck::PrefetchOp prefetch,
                                        Operation *op,
                                        ConversionPatternRewriter &rewriter) {
  scf::ForOp walk = tileWalk(op);
  if (!walk || prefetch.getCoords().size() != 3)
    return op->emitError("sck-to-nvgpu: a prefetched box at [n0, m0, g] in a "
                         "consumer's tile walk");
  auto at = [&](unsigned i) {
    return rewriter.getRemappedValue(prefetch.getCoords()[i]);
  };
  Emitter::Prefetch x;
  x.n0 = at(0);
  x.m0 = at(1);
  // Cooperative: this consumer's 64 rows of it.
  if (e.form.cooperative)
    x.m0 = e.add(x.m0, e.mul(e.f.wg, e.index(kTileRows)));
  x.g = at(2);
  x.turn = consumerTurn(e, walk);
  x.stage = e.stageBase();
  return x;
}

/// The first two subtiles (chunks) of the box into the consumer's
/// buffers, under the tile's MMAs; the box is its first buffer.
struct PrefetchToTmaLoads : WgmmaPattern<sck::PrefetchOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::PrefetchOp prefetch, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!frame.tmaX)
      return prefetch.emitError("sck-to-nvgpu: a prefetch the kernel frame "
                                "has no tensor map for");
    Emitter e(rewriter, prefetch.getLoc(), frame);
    FailureOr<Emitter::Prefetch> x = prefetchOf(e, prefetch, prefetch, rewriter);
    if (failed(x))
      return failure();
    e.issuePrefetch(*x);
    rewriter.replaceOp(prefetch, x->stage);
    return success();
  }
};

/// Split-K's fixup for one consumer warpgroup's rows of a tile (its
/// epilogue meets only its own warpgroup): word r of thread t of part p,
/// warpgroup w of the tile, lies at ((p x W + w) x words + r) x 128 + t
/// (coalesced, read back by the same thread of the last part).
struct WarpgroupFixup {
  Emitter &e;
  const WgmmaFrame &f;
  /// The accumulator's halves and their words a thread.
  int64_t halves, wordsPerHalf;
  /// Warpgroups a tile, this one's place in it, its thread and barrier.
  int64_t perTile;
  Value w, inWg, elected, wgBar;

  WarpgroupFixup(Emitter &e, const WgmmaFrame &f)
      : e(e), f(f), halves(f.form.halves()),
        wordsPerHalf(f.form.halfCols() / 2),
        perTile(f.form.cooperative ? 2 : 1),
        w(f.form.cooperative ? f.wg : e.index(0)),
        inWg(e.warpgroupThread().inWg) {
    std::tie(elected, wgBar) = e.electedAndBarrier(inWg);
  }

  Value wordAt(Value part, int64_t h, int64_t r) {
    Value slot = e.add(e.mul(part, e.index(perTile)), w);
    Value word = e.index(h * wordsPerHalf + r);
    return e.add(e.mul(e.add(e.mul(slot, e.index(halves * wordsPerHalf)), word),
                       e.index(kWarpgroup)),
                 inWg);
  }

  /// This thread's words of the part's accumulator, then a fence.
  void storePart(ArrayRef<Value> acc, Value part) {
    for (int64_t h = 0; h < halves; ++h)
      for (int64_t r = 0; r < wordsPerHalf; ++r)
        memref::StoreOp::create(
            e.b, e.loc, LLVM::ExtractValueOp::create(e.b, e.loc, acc[h], r),
            f.partials, ValueRange{wordAt(part, h, r)});
    NVVM::MembarOp::create(e.b, e.loc, gpuScope());
  }

  /// Once every thread has fenced its stores, thread 0 counts the
  /// warpgroup's arrival; whether it completed the tile's `splits` parts,
  /// told to every thread by the barrier's OR (nvvm.barrier reduces on
  /// barrier 0 only: the warpgroup's is named).
  Value arriveLast(Value tile, Value splits) {
    NVVM::BarrierOp::create(e.b, e.loc, Type(), wgBar, e.i32(kWarpgroup),
                            nullptr, Value());
    Type i32 = e.b.getI32Type();
    auto count = scf::IfOp::create(e.b, e.loc, i32, elected,
                                   /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(count.thenBlock());
      Value counter = e.add(e.mul(tile, e.index(perTile)), w);
      Value before = memref::AtomicRMWOp::create(
          e.b, e.loc, arith::AtomicRMWKind::addi, e.i32(1), f.arrivals,
          ValueRange{counter});
      Value lastPart = arith::SubIOp::create(
          e.b, e.loc, arith::IndexCastOp::create(e.b, e.loc, i32, splits),
          e.i32(1));
      Value last = e.cmp(arith::CmpIPredicate::eq, before, lastPart);
      scf::YieldOp::create(e.b, e.loc,
                           ValueRange{arith::ExtUIOp::create(e.b, e.loc, i32, last)});
      e.b.setInsertionPointToStart(count.elseBlock());
      scf::YieldOp::create(e.b, e.loc, ValueRange{e.i32(0)});
    }
    Value any = NVVM::InlinePtxOp::create(
                    e.b, e.loc, TypeRange{i32},
                    ValueRange{wgBar, count.getResult(0)}, ValueRange(),
                    "{ .reg .pred p, q; setp.ne.u32 p, $2, 0; "
                    "bar.red.or.pred q, $1, 128, p; selp.u32 $0, 1, 0, q; }",
                    Value())
                    .getResult(0);
    return e.cmp(arith::CmpIPredicate::ne, any, e.i32(0));
  }

  /// After a fence, the sum of parts first .. first + splits - 1 in part
  /// order (the same whichever part came last), as `count` halves.
  SmallVector<Value> sumParts(Value first, Value splits, size_t count) {
    NVVM::MembarOp::create(e.b, e.loc, gpuScope());
    Value zero = arith::ConstantOp::create(e.b, e.loc, e.b.getF32FloatAttr(0.0f));
    SmallVector<Value> zeros;
    for (size_t h = 0; h < count; ++h) {
      Value z = LLVM::UndefOp::create(e.b, e.loc, f.accType);
      for (int64_t r = 0; r < wordsPerHalf; ++r)
        z = LLVM::InsertValueOp::create(e.b, e.loc, z, zero, r);
      zeros.push_back(z);
    }
    auto parts = scf::ForOp::create(e.b, e.loc, e.index(0), splits, e.index(1),
                                    zeros);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(parts.getBody());
    Value part = e.add(first, parts.getInductionVar());
    SmallVector<Value> totals(parts.getRegionIterArgs());
    for (int64_t h = 0; h < halves; ++h)
      for (int64_t r = 0; r < wordsPerHalf; ++r) {
        Value v = memref::LoadOp::create(e.b, e.loc, f.partials,
                                         ValueRange{wordAt(part, h, r)});
        Value prior = LLVM::ExtractValueOp::create(e.b, e.loc, totals[h], r);
        totals[h] = LLVM::InsertValueOp::create(
            e.b, e.loc, totals[h], arith::AddFOp::create(e.b, e.loc, prior, v), r);
      }
    scf::YieldOp::create(e.b, e.loc, totals);
    return SmallVector<Value>(parts.getResults());
  }

  NVVM::MemScopeKindAttr gpuScope() {
    return NVVM::MemScopeKindAttr::get(e.b.getContext(), NVVM::MemScopeKind::GPU);
  }
};

/// Split-K's reduction (sck.reduce_splits) where the kernel runs more than
/// one part: the part stored, its arrival counted, and in the last part of
/// the tile the sum of every part; with one part, the accumulator itself.
struct ReduceSplitsToFixup : WgmmaPattern<sck::ReduceSplitsOp> {
  using FramePattern::FramePattern;
  LogicalResult
  matchAndRewrite(sck::ReduceSplitsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Location loc = op.getLoc();
    Emitter e(rewriter, loc, frame);
    SmallVector<Value> acc(adaptor.getAcc());
    Value splits = adaptor.getSplits().front();
    Value tile = adaptor.getTile().front();
    WarpgroupFixup fixup(e, frame);
    SmallVector<Type> types(acc.size(), frame.accType);
    types.push_back(rewriter.getI1Type());
    auto several = scf::IfOp::create(
        rewriter, loc, types, e.cmp(arith::CmpIPredicate::ugt, splits, e.index(1)),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(several.elseBlock());
    SmallVector<Value> whole(acc);
    whole.push_back(arith::ConstantIntOp::create(rewriter, loc, 1, 1));
    scf::YieldOp::create(rewriter, loc, whole);
    rewriter.setInsertionPointToStart(several.thenBlock());
    Value first = e.mul(tile, splits);
    fixup.storePart(acc, e.add(first, adaptor.getSplit().front()));
    Value last = fixup.arriveLast(tile, splits);
    auto sum = scf::IfOp::create(rewriter, loc, TypeRange(types).drop_back(),
                                 last, /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(sum.thenBlock());
    scf::YieldOp::create(rewriter, loc, fixup.sumParts(first, splits, acc.size()));
    rewriter.setInsertionPointToStart(sum.elseBlock());
    scf::YieldOp::create(rewriter, loc, acc);
    rewriter.setInsertionPointAfter(sum);
    SmallVector<Value> sumAndLast(sum.getResults());
    sumAndLast.push_back(last);
    scf::YieldOp::create(rewriter, loc, sumAndLast);
    SmallVector<Value> results(several.getResults());
    rewriter.replaceOpWithMultiple(
        op, {ValueRange(results).drop_back(), ValueRange(results).take_back()});
    return success();
  }
};

/// The epilogue: its region as the kernel's device function on every
/// accumulator element, staged in shared memory, stored by TMA.
struct EpilogueToTmaStores : WgmmaPattern<sck::EpilogueOp> {
  using FramePattern::FramePattern;

  /// The region as device function <kernel>_epilogue (acc, b, m, n, per
  /// operand its memref or the box's element) -> the element it yields
  /// (the result's, but for summed rows).
  FailureOr<func::FuncOp> buildFunction(sck::EpilogueOp epilogue,
                                        ArrayRef<Value> ins,
                                        ConversionPatternRewriter &rewriter) const {
    auto kernel = epilogue->getParentOfType<gpu::GPUFuncOp>();
    auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
    MLIRContext *ctx = getContext();
    SmallVector<Type> types = {Float32Type::get(ctx)};
    types.append(3, IndexType::get(ctx));
    for (auto [in, memref] : llvm::zip(epilogue.getIns(), ins))
      types.push_back(memref ? memref.getType()
                             : cast<sck::BoxType>(in.getType()).getElementType());
    Type element = epilogue.getSumRows() ? epilogue.getYieldedType()
                                         : frame.outType;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    auto fn = func::FuncOp::create(
        rewriter, epilogue.getLoc(), (kernel.getName() + "_epilogue").str(),
        rewriter.getFunctionType(types, {element}));
    fn.setPrivate();
    SymbolTable(module).insert(fn);
    if (failed(sc::detail::buildEpilogueFunction(
            epilogue.getLoc(), element,
            BatchMatmulOp::kNumEpilogueLeadingArgs,
            &epilogue.getBody().front(), fn, std::nullopt)))
      return failure();
    return fn;
  }

  LogicalResult
  matchAndRewrite(sck::EpilogueOp epilogue, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    const WgmmaKernelForm &form = frame.form;
    std::optional<int64_t> sumRows = epilogue.getSumRows();
    if (sumRows && (form.transposed || form.flatRows))
      return epilogue.emitError("sck-to-nvgpu: summed rows in a tile of "
                                "untransposed rows of one batch element");
    size_t coords = epilogue.getCoords().size();
    if (epilogue.getResult() != "C" || epilogue.getTransposed() != form.transposed ||
        coords != (form.flatRows ? 2u : 3u))
      return epilogue.emitError("sck-to-nvgpu: the epilogue of ")
             << (form.transposed ? "a transposed" : "an untransposed")
             << " tile of C, at [n0, m0, b] (flat rows: [n0, r0])";
    // Per operand its memref, or null for the prefetched box.
    SmallVector<Value> ins;
    sck::PrefetchOp prefetch;
    for (Value in : epilogue.getIns()) {
      if (auto p = in.getDefiningOp<sck::PrefetchOp>()) {
        prefetch = p;
        ins.push_back(Value());
        continue;
      }
      Value memref = kernelArgumentOf(in);
      if (!memref)
        return epilogue.emitError("sck-to-nvgpu: an epilogue operand that is "
                                  "neither a box nor the kernel's");
      ins.push_back(memref);
    }
    func::FuncOp fn;
    if (!epilogue.getBody().empty()) {
      FailureOr<func::FuncOp> built = buildFunction(epilogue, ins, rewriter);
      if (failed(built))
        return failure();
      fn = *built;
    }
    Location loc = epilogue.getLoc();
    Emitter e(rewriter, loc, frame);
    std::optional<Emitter::Prefetch> x;
    if (prefetch) {
      FailureOr<Emitter::Prefetch> at =
          prefetchOf(e, prefetch, epilogue, rewriter);
      if (failed(at))
        return failure();
      x = *at;
    }
    SmallVector<Value> tile = llvm::map_to_vector(
        adaptor.getCoords(), [](ValueRange v) { return v.front(); });
    ValueRange acc = adaptor.getAcc();
    Value stage = x ? x->stage : e.stageBase();
    if (form.transposed)
      e.writeTransposedEpilogue(tile, acc[0], acc[1], fn, ins, stage, x);
    else
      e.writeEpilogue(tile, acc[0], acc[1], fn, ins, stage, x, sumRows);
    rewriter.eraseOp(epilogue);
    return success();
  }
};

/// A read of an epilogue operand in the tile (the index a prefetch's
/// batch element comes from): a load from the kernel's memref.
struct ExtractToLoad : OpConversionPattern<tensor::ExtractOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::ExtractOp extract, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Value memref = kernelArgumentOf(extract.getTensor());
    if (!memref)
      return failure();
    rewriter.replaceOpWithNewOp<memref::LoadOp>(extract, memref,
                                                adaptor.getIndices());
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// The conversion
//===----------------------------------------------------------------------===//

LogicalResult mlir::sc::detail::convertSckToNVGPU(gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  std::string why;
  std::optional<KernelIR> ir = matchKernelIR(kernel.getBody().front(), why);
  if (!ir)
    return kernel.emitError("sck-to-nvgpu does not lower ") << why;
  if (ir->form.stages < 2)
    return ir->ring.emitError("sck-to-nvgpu: a ring of its stages (2 or "
                              "more), not as many as fit");
  FailureOr<WgmmaFrame> frame = buildFrame(kernel, *ir);
  if (failed(frame))
    return failure();
  TypeConverter converter;
  // A ring is its shared-memory offset, a box its slot (a prefetched one:
  // its first buffer), an accumulator its two m64n128 halves.
  addSharedMemoryTypeConversions(converter);
  Type accType = frame->accType;
  converter.addConversion([accType](sck::AccType, SmallVectorImpl<Type> &out) {
    out.append(2, accType);
    return success();
  });
  ConversionTarget target(*ctx);
  addKernelConversionLegality(target);
  target.addDynamicallyLegalOp<tensor::ExtractOp>([](tensor::ExtractOp op) {
    return !kernelArgumentOf(op.getTensor());
  });
  RewritePatternSet patterns(ctx);
  patterns.add<RingToFrame, RoleToWarpgroup, TileLoopToWalk, TileIndexToWalk,
               TurnToNamedBarrier<sck::AwaitTurnOp>,
               TurnToNamedBarrier<sck::PassTurnOp>, PutToTmaLoads,
               GetToFullWait, ZeroToUndef, MmaToWgmma, ReleaseToArrive,
               DiscardToWaitAndArrive, PrefetchToTmaLoads, ReduceSplitsToFixup,
               EpilogueToTmaStores>(converter, ctx, *frame);
  patterns.add<ExtractToLoad, MmaWaitToWgmmaWait>(converter, ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  // No CSE here (LLVM merges the duplicates later, in place): hoisted to
  // the first of them, each box's slot offset moved ahead of the first
  // TMA issue, and x @ w^T + r measured 2-3 % slower (docs/decisions.md).
  if (failed(applyKernelConversion(kernel, target, std::move(patterns),
                                   /*cse=*/false)))
    return failure();
  kernel.walk([](scf::ForOp loop) { loop->removeAttr(kWalkAttrName); });
  return success();
}

namespace {
struct ScConvertSckToNVGPUPass
    : sc::impl::ScConvertSckToNVGPUPassBase<ScConvertSckToNVGPUPass> {
  void runOnOperation() final {
    getOperation()->getContext()->loadDialect<
        arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
        LLVM::LLVMDialect, memref::MemRefDialect, NVVM::NVVMDialect,
        nvgpu::NVGPUDialect, scf::SCFDialect, vector::VectorDialect>();
    WalkResult result = getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      bool hasSckOps = false;
      kernel.walk([&](Operation *op) {
        hasSckOps |= isa<sck::SckDialect>(op->getDialect());
      });
      if (!hasSckOps)
        return WalkResult::advance();
      // The hybrid-tiled GEMM's kernel has patterns of its own.
      bool hybrid = sck::kernelSchedule(kernel) == sck::KernelSchedule::hybrid;
      LogicalResult converted = hybrid ? convertHybridSckToNVGPU(kernel)
                                       : convertSckToNVGPU(kernel);
      return failed(converted) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
