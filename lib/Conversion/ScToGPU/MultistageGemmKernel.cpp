//===- MultistageGemmKernel.cpp - sm_80's GEMM from its kernel-level IR ---===//
//
// The GEMM of sm_80 / sm_86 / sm_89 (A100, A10, L4, L40S), written from the
// kernel-level IR that sc-lower-to-sck leaves for the multistage schedule:
// every warp loads and computes (no TMA, wgmma or warp specialization on
// these chips).
//
//   sck.tile_loop (grid)  one CTA of 4 warps per 128 x 128 tile: block x
//                         the N tile, y the M tile, z the batch element
//   sck.load              the box's 16-byte chunks by cp.async into one
//                         stage of a ring of kMultistageStages in shared
//                         memory (rows padded by 16 bytes, so that
//                         ldmatrix's eight rows hit eight bank groups);
//                         chunks past M, N or K are zero-filled (source
//                         size 0)
//   scf.for over k-tiles  software pipelined: the loads of k-tile t + S - 1
//                         issued while k-tile t is computed
//   sck.mma               per 16-deep step, A's fragments by ldmatrix .x4,
//                         B's by ldmatrix .x4 (.trans for an N-major B),
//                         and mma.sync m16n8k16 with fp32 accumulation:
//                         each warp a 64 x 64 quarter of the tile
//   sck.epilogue          the region (a device function) on each
//                         accumulator element, two columns a store, rows
//                         and columns past the result skipped
//
// The IR's boxes, accumulator and loop counts must be the ones this kernel
// computes; other IR is a located error.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
// (Named apart from GemmKernelCommon.h's Hopper tile constants.)
constexpr int64_t kRows = kMultistageTileM, kCols = kMultistageTileN,
                  kDepth = kMultistageTileK, kStages = kMultistageStages;
constexpr int64_t kThreads = 128;
/// A warp's quarter of the tile: 4 m16 by 8 n8 mma tiles.
constexpr int64_t kWarpM = 64, kWarpN = 64, kMmaTilesM = 4, kMmaTilesN = 8;
/// Shared-memory rows padded by 16 bytes.
constexpr int64_t kPad = 16;

/// The pieces of the kernel-level IR the lowering follows.
struct MultistageIR {
  sck::TileLoopOp loop;
  sck::LoadOp loadA, loadB;
  sck::MmaOp mma;
  sck::EpilogueOp epilogue;
  /// B read K-major (the op's rhs transposed, [N, K]).
  bool kMajorB = false;
  /// A batched lhs times a shared rhs: A and C as the rows of all batch
  /// elements.
  bool flatRows = false;

  /// The ring in shared memory: every stage's A box (rows padded by
  /// kPad), then every stage's B box.
  static int64_t aRowBytes() { return kDepth * 2 + kPad; }
  static int64_t aStageBytes() { return kRows * aRowBytes(); }
  int64_t bRowBytes() const {
    return kMajorB ? aRowBytes() : kCols * 2 + kPad;
  }
  int64_t bStageBytes() const { return (kMajorB ? kCols : kDepth) * bRowBytes(); }
  int64_t sharedBytes() const { return kStages * (aStageBytes() + bStageBytes()); }
};

/// The IR of the form lowered, else a located error.
FailureOr<MultistageIR> matchMultistageIR(BatchMatmulOp op,
                                          func::FuncOp kernel) {
  MultistageIR ir;
  auto loops = kernel.getBody().front().getOps<sck::TileLoopOp>();
  if (!llvm::hasSingleElement(loops))
    return kernel.emitError("multistage-gemm-kernel: one tile loop at the "
                            "kernel function's top level");
  ir.loop = *loops.begin();
  if (ir.loop.getSchedule() != sck::TileSchedule::grid)
    return ir.loop.emitError()
           << "multistage-gemm-kernel: a grid tile loop (one CTA a tile), "
              "not "
           << sck::stringifyTileSchedule(ir.loop.getSchedule());
  SmallVector<sck::LoadOp> loads;
  SmallVector<sck::MmaOp> mmas;
  SmallVector<sck::EpilogueOp> epilogues;
  ir.loop.walk([&](Operation *inner) {
    if (auto load = dyn_cast<sck::LoadOp>(inner))
      loads.push_back(load);
    else if (auto mma = dyn_cast<sck::MmaOp>(inner))
      mmas.push_back(mma);
    else if (auto epilogue = dyn_cast<sck::EpilogueOp>(inner))
      epilogues.push_back(epilogue);
    else if (isa<sck::PutOp, sck::GetOp, sck::RoleOp, sck::PrefetchOp,
                 sck::MmaSparseOp, sck::SoftmaxOp>(inner))
      inner->emitError() << "multistage-gemm-kernel: no " << inner->getName()
                         << " in a multistage kernel";
  });
  if (loads.size() != 2 || mmas.size() != 1 || epilogues.size() != 1 ||
      loads[0].getOperand() != "A" || loads[1].getOperand() != "B")
    return ir.loop.emitError("multistage-gemm-kernel: a k-tile loop loading "
                             "A then B into one sck.mma, then one epilogue");
  ir.loadA = loads[0];
  ir.loadB = loads[1];
  ir.mma = mmas[0];
  ir.epilogue = epilogues[0];
  ir.kMajorB = ir.loadB.getTransposed();
  sck::BoxType a = ir.loadA.getType(), b = ir.loadB.getType();
  // (B's box is [k, n] either way; `transposed` says it is read K-major.)
  if (a.getShape() != ArrayRef<int64_t>{kRows, kDepth} ||
      b.getShape() != ArrayRef<int64_t>{kDepth, kCols} || ir.loadA.getTransposed() ||
      ir.mma.getAcc().getType().getShape() != ArrayRef<int64_t>{kRows, kCols} ||
      ir.epilogue.getTransposed())
    return ir.mma.emitError()
           << "multistage-gemm-kernel: the kernel multiplies " << kRows << "x"
           << kDepth << " by " << kDepth << "x" << kCols
           << " boxes into a " << kRows << "x" << kCols
           << " accumulator; the kernel-level IR asks for " << a << " by " << b
           << " into " << ir.mma.getAcc().getType();
  if (ir.kMajorB != op.getTransposeRhs())
    return ir.loadB.emitError("multistage-gemm-kernel: B read transposed "
                              "exactly when the op's rhs is");
  ir.flatRows = op.getLhs().getType().getRank() == 3 &&
                ir.loadA.getCoords().size() == 2;
  // The grid is the op's tiles (the flat rows' M tiles come from the batch
  // at launch).
  GemmShape shape(op);
  std::optional<int64_t> mTiles = getConstantIntValue(ir.loop.getMTiles());
  std::optional<int64_t> nTiles = getConstantIntValue(ir.loop.getNTiles());
  if (nTiles != llvm::divideCeil(shape.n, kCols) ||
      (!ir.flatRows && mTiles != llvm::divideCeil(shape.m, kRows)))
    return ir.loop.emitError()
           << "multistage-gemm-kernel: the kernel runs "
           << (ir.flatRows ? std::string("the flat rows'")
                           : std::to_string(llvm::divideCeil(shape.m, kRows)))
           << " x " << llvm::divideCeil(shape.n, kCols)
           << " tiles of 128 x 128; the kernel-level IR's tile loop differs";
  return ir;
}

/// Writes the kernel; `b` inside the gpu.func's entry block.
class MultistageGemmWriter : KernelArith {
public:
  MultistageGemmWriter(BatchMatmulOp op, const MultistageIR &ir, OpBuilder &b)
      : KernelArith(b, op.getLoc()), op(op), ir(ir), ctx(op.getContext()),
        shape(op) {}

  LogicalResult write(gpu::GPUFuncOp func, func::FuncOp epilogueFn);

private:
  Value toI64(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  }
  Value pointer(Value address, unsigned space) {
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, space),
                                    toI64(address));
  }

  /// Where ring stage `stage`'s A and B boxes lie in shared memory.
  Value aStageAt(Value stage) {
    return add(smemBase, mul(stage, index(ir.aStageBytes())));
  }
  Value bStageAt(Value stage) {
    return add(add(smemBase, index(kStages * ir.aStageBytes())),
               mul(stage, index(ir.bStageBytes())));
  }

  /// sck.load of A / B at k-tile `kt` into ring stage `stage`: each thread
  /// copies its chunks.
  void lowerLoadA(Value stage, Value kt);
  void lowerLoadB(Value stage, Value kt);
  /// One 16-byte chunk: from `src` (a byte address of global memory) when
  /// `valid`, else zeros.
  void copyChunk(Value dst, Value src, Value valid, Value base);
  /// sck.mma on ring stage `stage`: two 16-deep steps of this warp's 4 x 8
  /// mma.sync tiles, `acc` (4 f32 a tile) updated.
  void lowerMma(Value stage, SmallVector<Value> &acc);
  Value mmaSync(ArrayRef<Value> a, ArrayRef<Value> bFrag, Value acc);
  SmallVector<Value> ldmatrix(Value address, bool transposed);
  /// sck.epilogue: the region on each element, stored two columns at once.
  void lowerEpilogue(ArrayRef<Value> acc, func::FuncOp epilogueFn,
                     gpu::GPUFuncOp func);

  BatchMatmulOp op;
  const MultistageIR &ir;
  MLIRContext *ctx;
  GemmShape shape;
  Type element;
  Value tid, lane, warpM, warpN, smemBase, aBase, bBase;
  Value batch, m0, n0, rowLimit, kTiles;
};
} // namespace

void MultistageGemmWriter::copyChunk(Value dst, Value src, Value valid,
                                     Value base) {
  // An invalid chunk reads nothing (source size 0) from a valid address.
  Value from = arith::SelectOp::create(b, loc, valid, src, base);
  Value size = arith::SelectOp::create(b, loc, valid, i32(16), i32(0));
  NVVM::CpAsyncOp::create(b, loc, pointer(dst, 3), pointer(from, 1), 16,
                          NVVM::LoadCacheModifierKind::CG, size);
}

// A's box: 128 rows of 32 (4 chunks of 8 elements), 4 chunks a thread.
void MultistageGemmWriter::lowerLoadA(Value stage, Value kt) {
  Value k0 = mul(kt, index(kDepth));
  Value stageBase = aStageAt(stage);
  for (int64_t i = 0; i < kRows * kDepth / 8 / kThreads; ++i) {
    Value chunk = add(tid, index(i * kThreads));
    Value row = div(chunk, index(kDepth / 8));
    Value col = mul(rem(chunk, index(kDepth / 8)), index(8));
    Value r = add(m0, row), k = add(k0, col);
    Value valid = arith::AndIOp::create(b, loc, ult(r, rowLimit),
                                        ult(k, index(shape.k)));
    // Element (r, k) of batch element `batch` (flat rows: r counts the
    // rows of all of them).
    Value rowIndex = r;
    if (shape.lhsBatched && !ir.flatRows)
      rowIndex = add(mul(batch, index(shape.m)), r);
    Value element = add(mul(rowIndex, index(shape.k)), k);
    Value src = add(aBase, mul(element, index(2)));
    Value dst = add(stageBase, add(mul(row, index(ir.aRowBytes())),
                                   mul(col, index(2))));
    copyChunk(dst, src, valid, aBase);
  }
}

// B's box: 32 rows k of 128 columns n (16 chunks a row; N-major), or 128
// rows n of 32 k (K-major); 4 chunks a thread either way.
void MultistageGemmWriter::lowerLoadB(Value stage, Value kt) {
  Value k0 = mul(kt, index(kDepth));
  Value stageBase = bStageAt(stage);
  int64_t chunksARow = ir.kMajorB ? kDepth / 8 : kCols / 8;
  Value batchOffset = shape.rhsBatched ? mul(batch, index(shape.k * shape.n))
                                       : index(0);
  for (int64_t i = 0; i < kDepth * kCols / 8 / kThreads; ++i) {
    Value chunk = add(tid, index(i * kThreads));
    Value row = div(chunk, index(chunksARow));
    Value col = mul(rem(chunk, index(chunksARow)), index(8));
    Value k = ir.kMajorB ? add(k0, col) : add(k0, row);
    Value n = ir.kMajorB ? add(n0, row) : add(n0, col);
    Value valid = arith::AndIOp::create(b, loc, ult(k, index(shape.k)),
                                        ult(n, index(shape.n)));
    Value inBatch = ir.kMajorB ? add(mul(n, index(shape.k)), k)
                               : add(mul(k, index(shape.n)), n);
    Value src = add(bBase, mul(add(batchOffset, inBatch), index(2)));
    Value dst = add(stageBase, add(mul(row, index(ir.bRowBytes())),
                                   mul(col, index(2))));
    copyChunk(dst, src, valid, bBase);
  }
}

SmallVector<Value> MultistageGemmWriter::ldmatrix(Value address,
                                                  bool transposed) {
  return loadMatrixX4(b, loc, pointer(address, 3), transposed);
}

// mma.sync m16n8k16, fp32 accumulation, the accumulator (a struct of 4
// f32) tied in and out.
Value MultistageGemmWriter::mmaSync(ArrayRef<Value> a, ArrayRef<Value> bFrag,
                                    Value acc) {
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
             LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getResult(0);
}

void MultistageGemmWriter::lowerMma(Value stage, SmallVector<Value> &acc) {
  Value aStage = aStageAt(stage), bStage = bStageAt(stage);
  // Lane L addresses row L % 16 of a 16-row block, at column 8 (L / 16):
  // ldmatrix .x4 then gives A's fragment registers in mma order.
  Value laneRow = rem(lane, index(16)), laneHalf = div(lane, index(16));
  // B: lanes 8q .. 8q + 7 address matrix q: k rows 8 (q % 2) .., n
  // columns 8 (q / 2) .. (N-major, read transposed) or n rows 8 (q / 2)
  // .., k columns 8 (q % 2) (K-major).
  Value q = div(lane, index(8)), r8 = rem(lane, index(8));
  Value kOfLane = mul(rem(q, index(2)), index(8));
  Value nOfLane = mul(div(q, index(2)), index(8));
  for (int64_t step = 0; step < kDepth / 16; ++step) {
    SmallVector<SmallVector<Value>> aFrags, bFrags;
    for (int64_t mi = 0; mi < kMmaTilesM; ++mi) {
      Value row = add(add(warpM, index(mi * 16)), laneRow);
      Value col = add(index(step * 16), mul(laneHalf, index(8)));
      aFrags.push_back(ldmatrix(
          add(aStage, add(mul(row, index(ir.aRowBytes())), mul(col, index(2)))),
          /*transposed=*/false));
    }
    for (int64_t pair = 0; pair < kMmaTilesN / 2; ++pair) {
      Value n = add(add(warpN, index(pair * 16)), nOfLane);
      Value k = add(index(step * 16), kOfLane);
      Value address =
          ir.kMajorB
              ? add(bStage, add(mul(add(n, r8), index(ir.bRowBytes())), mul(k, index(2))))
              : add(bStage, add(mul(add(k, r8), index(ir.bRowBytes())), mul(n, index(2))));
      SmallVector<Value> regs = ldmatrix(address, /*transposed=*/!ir.kMajorB);
      bFrags.push_back({regs[0], regs[1]});
      bFrags.push_back({regs[2], regs[3]});
    }
    for (int64_t mi = 0; mi < kMmaTilesM; ++mi)
      for (int64_t nj = 0; nj < kMmaTilesN; ++nj) {
        Value &tile = acc[mi * kMmaTilesN + nj];
        tile = mmaSync(aFrags[mi], bFrags[nj], tile);
      }
  }
}

// Accumulator register r of mma tile (mi, nj): row g + 8 (r / 2), column
// 2 (lane % 4) + r % 2 of the tile (g = lane / 4).
void MultistageGemmWriter::lowerEpilogue(ArrayRef<Value> acc,
                                         func::FuncOp epilogueFn,
                                         gpu::GPUFuncOp func) {
  Type out = op.getType().getElementType();
  Value c = func.getArgument(2);
  Value g = div(lane, index(4));
  Value pairCol = mul(rem(lane, index(4)), index(2));
  for (int64_t mi = 0; mi < kMmaTilesM; ++mi)
    for (int64_t half = 0; half < 2; ++half) {
      Value r = add(add(m0, add(warpM, index(mi * 16 + 8 * half))), g);
      // Flat rows: row r of batch element r / M.
      Value bIdx = ir.flatRows ? div(r, index(shape.m)) : batch;
      Value m = ir.flatRows ? rem(r, index(shape.m)) : r;
      auto rowIn = scf::IfOp::create(b, loc, ult(r, rowLimit), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&rowIn.getThenRegion().front());
      for (int64_t nj = 0; nj < kMmaTilesN; ++nj) {
        Value n = add(add(n0, add(warpN, index(nj * 8))), pairCol);
        // N is a multiple of 8: both columns of the pair are in or out.
        auto colIn = scf::IfOp::create(b, loc, ult(n, index(shape.n)), false);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(&colIn.getThenRegion().front());
        SmallVector<Value> values;
        for (int64_t e = 0; e < 2; ++e) {
          Value v = LLVM::ExtractValueOp::create(
              b, loc, acc[mi * kMmaTilesN + nj], 2 * half + e);
          Value col = e ? add(n, index(1)) : n;
          SmallVector<Value> args = {v, bIdx, m, col};
          for (unsigned i = 3; i < func.getNumArguments(); ++i)
            args.push_back(func.getArgument(i));
          values.push_back(func::CallOp::create(b, loc, epilogueFn, args).getResult(0));
        }
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, out), values);
        SmallVector<Value> at = {m, n};
        if (op.getType().getRank() == 3)
          at.insert(at.begin(), bIdx);
        vector::StoreOp::create(b, loc, pair, c, at, /*nontemporal=*/false,
                                llvm::MaybeAlign(2 * out.getIntOrFloatBitWidth() / 8));
      }
    }
}

LogicalResult MultistageGemmWriter::write(gpu::GPUFuncOp func,
                                          func::FuncOp epilogueFn) {
  element = op.getLhs().getType().getElementType();
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = rem(tid, index(32));
  Value warp = div(tid, index(32));
  warpM = mul(div(warp, index(2)), index(kWarpM));
  warpN = mul(rem(warp, index(2)), index(kWarpN));
  // sck.tile_loop: block x the N tile, y the M tile, z the batch element.
  n0 = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), index(kCols));
  m0 = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y), index(kRows));
  batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  // Rows: M, or (flat rows) B x M of the lhs's rows.
  rowLimit = ir.flatRows
                 ? mul(memref::DimOp::create(b, loc, func.getArgument(0), 0),
                       index(shape.m))
                 : index(shape.m);
  kTiles = index(llvm::divideCeil(shape.k, kDepth));
  auto alignedBase = [&](Value memref) {
    return memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref)
        .getResult();
  };
  aBase = alignedBase(func.getArgument(0));
  bBase = alignedBase(func.getArgument(1));
  auto smemType = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  smemBase = alignedBase(gpu::DynamicSharedMemoryOp::create(b, loc, smemType));

  auto loadStage = [&](Value stage, Value kt) {
    lowerLoadA(stage, kt);
    lowerLoadB(stage, kt);
  };
  // The first S - 1 k-tiles in flight, a commit group each (empty past
  // the last k-tile, so that every iteration waits for the same count).
  for (int64_t s = 0; s + 1 < kStages; ++s) {
    auto any = scf::IfOp::create(b, loc, ult(index(s), kTiles), false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&any.getThenRegion().front());
      loadStage(index(s), index(s));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(4, b.getF32Type()));
  Value zero = LLVM::ZeroOp::create(b, loc, accType);
  SmallVector<Value> init(kMmaTilesM * kMmaTilesN, zero);
  auto kLoop = scf::ForOp::create(b, loc, index(0), kTiles, index(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = kLoop.getBody();
    if (!body->empty())
      body->back().erase();
    b.setInsertionPointToEnd(body);
    Value kt = kLoop.getInductionVar();
    // k-tile t's copies have landed (at most S - 2 groups pending), and
    // every warp is done with the stage the next loads overwrite.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, kStages - 2);
    gpu::BarrierOp::create(b, loc);
    Value next = add(kt, index(kStages - 1));
    auto any = scf::IfOp::create(b, loc, ult(next, kTiles), false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&any.getThenRegion().front());
      loadStage(rem(next, index(kStages)), next);
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    SmallVector<Value> acc(kLoop.getRegionIterArgs());
    lowerMma(rem(kt, index(kStages)), acc);
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  lowerEpilogue(SmallVector<Value>(kLoop.getResults()), epilogueFn, func);
  gpu::ReturnOp::create(b, loc);
  return success();
}

FailureOr<KernelLaunch>
mlir::sc::detail::buildMultistageGemmKernel(BatchMatmulOp op,
                                            gpu::GPUModuleOp gpuModule,
                                            StringRef kernelName,
                                            const GemmBinding &binding) {
  MLIRContext *ctx = op.getContext();
  ctx->loadDialect<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                   LLVM::LLVMDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                   scf::SCFDialect, vector::VectorDialect>();
  FailureOr<func::FuncOp> kernel = kernelIRFunction(op);
  if (failed(kernel))
    return failure();
  if (!*kernel)
    return op.emitError("multistage-gemm-kernel: the op has no kernel-level "
                        "IR (sc-lower-to-sck)");
  FailureOr<MultistageIR> ir = matchMultistageIR(op, *kernel);
  if (failed(ir))
    return failure();
  if (binding.rhsSourceK || binding.rhsSourceRowElems)
    return op.emitError("internal error: the multistage kernel reads the "
                        "rhs itself, not a view of another tensor");
  GemmShape shape(op);
  OpBuilder b(ctx);
  // The kernel-level IR's epilogue region (the op's, as sc-lower-to-sck
  // copied it).
  FailureOr<std::pair<gpu::GPUFuncOp, func::FuncOp>> kernelFunc =
      createMemrefGemmKernel(op, gpuModule, kernelName, kThreads,
                             epilogueBlock(op), b);
  if (failed(kernelFunc))
    return failure();
  gpu::GPUFuncOp func = kernelFunc->first;
  func::FuncOp epilogueFn = kernelFunc->second;
  MultistageGemmWriter writer(op, *ir, b);
  if (failed(writer.write(func, epilogueFn)))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = kThreads;
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(shape.n, kCols));
  if (ir->flatRows) {
    LaunchDim rows = binding.batchOf(op.getLhs().getType()).times(shape.m);
    launch.grid[1] = rows.symbol.empty()
                         ? LaunchDim::of(llvm::divideCeil(rows.constant, kRows))
                         : LaunchDim{0, rows.symbol, rows.factor, kRows};
    launch.grid[2] = LaunchDim::of(1);
  } else {
    launch.grid[1] = LaunchDim::of(llvm::divideCeil(shape.m, kRows));
    launch.grid[2] = op.getType().getRank() == 3
                         ? binding.batchOf(op.getType())
                         : LaunchDim::of(1);
  }
  launch.sharedBytes = ir->sharedBytes();
  launch.params = memrefGemmParams(binding);
  launch.summary =
      llvm::formatv("{0}: {1}x{2}x{3} {4}, multistage (sm_80/86/89): 128x128 "
                    "tiles of 4 warps, {5}-stage cp.async ring (k-tiles of "
                    "{6}), ldmatrix + mma.sync m16n8k16 (fp32 accumulation), "
                    "B {7}{8}, {9} B shared memory",
                    kernelName, shape.m, shape.n, shape.k,
                    op.getLhs().getType().getElementType(),
                    kStages, kDepth, ir->kMajorB ? "K-major" : "N-major",
                    ir->flatRows ? ", rows of all batch elements" : "",
                    launch.sharedBytes)
          .str();
  return launch;
}
