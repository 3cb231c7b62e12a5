//===- AttentionKernel.cpp - sc.attention to a Hopper kernel ---------------===//
//
// Flash-attention forward, written with the OpBuilder (the steps in
// AttentionSteps.cpp) in the shape the op's kernel-level IR decided (its
// ring stages, roles' registers, consumers and boxes are read from it; IR
// of another form is a located error). A CTA has a producer warpgroup and
// one or two consumer warpgroups, each consumer a 64-row query tile of one
// (batch element, head); two consumers share every key block (two
// candidates of one request, paired by the kernel of
// PairCandidatesKernel.cpp, or the two halves of a 128-row query block):
//
//   producer (one thread): TMA loads of the Q tiles, then of K and V of
//   each key block into a ring slot (all blocks, or the kept ones of a
//   block mask, read from BSR tables), K and V on barriers of their own
//   and freed apart
//   each consumer, per key block t: S = Q K^T by wgmma (K read K-major);
//   online softmax on the S registers in fp32 (scale * log2(e) folded in,
//   exp2, running row maximum and sum, O rescaled lazily); P kept in
//   registers as wgmma A fragments; O += P V by wgmma (V read N-major).
//   The blocks are software pipelined (Q K^T (t) and P V (t - 1) issued
//   together, the softmax of t under P V (t - 1)); two consumers take
//   turns for their wgmma phases (named barriers)
//   O / row sum -> the consumer's Q tile (dead by then) -> TMA store.
//
// A target attention of one consumer a candidate chains its heads (the
// kernel-level IR's `chained` tile loop): resident CTAs each walk every
// C-th candidate (C CTAs), head by head, the consumer's pipeline running
// on from one to the next (a head's first Q K^T with the head before's last
// P V), O staged in a tile of its own (the Q tile then holds the next
// head's Q).
//
// Keys and values are read at batch index[b] when the op is indexed (IKBO
// type II: nothing is broadcast) and at b otherwise. 4-D tensor maps
// [batch, heads, rows, head dim] zero-fill rows past the sequence, whose
// scores are masked to -inf (and whose outputs TMA does not store).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/AttentionKernel.h"
#include "AttentionKernelWriter.h"
#include "GemmKernelCommon.h"
#include "KernelBuilder.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::sc;
using mlir::sc::detail::AttentionKernelWriter;
using mlir::sc::detail::AttentionShape;
using mlir::sc::detail::AttentionSteps;
using mlir::sc::detail::RowState;
using mlir::sc::detail::SoftmaxStep;
using Mode = AttentionShape::Mode;

/// The mbarrier try_wait's suspend-time hint.
static constexpr int64_t kWaitTicks = 10000000;

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

Value AttentionKernelWriter::loadIndex(Value table, Value i) {
  return toIndex(memref::LoadOp::create(b, loc, table, ValueRange{i}));
}

void AttentionSteps::ifThen(Value cond, function_ref<void()> body) {
  auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&op.getThenRegion().front());
  body();
}

SmallVector<Value>
AttentionSteps::ifElse(Value cond, TypeRange types,
                              function_ref<SmallVector<Value>()> thenBody,
                              function_ref<SmallVector<Value>()> elseBody) {
  auto op = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    for (auto [region, body] :
         {std::pair<Region *, function_ref<SmallVector<Value>()>>{
              &op.getThenRegion(), thenBody},
          {&op.getElseRegion(), elseBody}}) {
      Block &block = region->front();
      // scf.if's builder gives result-less regions their yield.
      if (!block.empty())
        block.back().erase();
      b.setInsertionPointToEnd(&block);
      scf::YieldOp::create(b, loc, body());
    }
  }
  return op.getResults();
}

SmallVector<Value> AttentionSteps::forLoop(
    Value from, Value to, ValueRange init,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto loop = scf::ForOp::create(b, loc, from, to, index(1), init);
  {
    OpBuilder::InsertionGuard g(b);
    Block *block = loop.getBody();
    if (!block->empty())
      block->back().erase();
    b.setInsertionPointToEnd(block);
    scf::YieldOp::create(
        b, loc, body(loop.getInductionVar(), loop.getRegionIterArgs()));
  }
  return loop.getResults();
}

std::pair<Value, Value> AttentionKernelWriter::ringPosition(Value j,
                                                            bool free) {
  return ringSlotAndParity(j, s.stages, free);
}

void AttentionKernelWriter::wait(Value barriers, Value at, Value parity) {
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity, ticks, at);
}

void AttentionKernelWriter::arrive(Value barriers, Value at) {
  nvgpu::MBarrierArriveOp::create(b, loc, nvgpu::MBarrierTokenType::get(ctx),
                                  barriers, at);
}

void AttentionKernelWriter::laneZeroArrive(Value barriers, Value at) {
  ifThen(laneZero, [&] { arrive(barriers, at); });
}

void AttentionSteps::namedBarrier(Value id, Value count) {
  NVVM::BarrierOp::create(b, loc, Type(), id, count, nullptr, Value());
}

void AttentionSteps::warpSync() {
  NVVM::SyncWarpOp::create(b, loc, i32(-1));
}

//===----------------------------------------------------------------------===//
// The CTA and its tiles
//===----------------------------------------------------------------------===//

void AttentionKernelWriter::writeParameters(gpu::GPUFuncOp func,
                                            const AttentionParams &params) {
  auto map = [&](unsigned at, Type type) {
    return UnrealizedConversionCastOp::create(b, loc, type,
                                              func.getArgument(at))
        .getResult(0);
  };
  tmaQ = map(0, tmaQType);
  tmaK = map(1, tmaKType);
  tmaV = map(2, tmaVType);
  tmaO = map(3, tmaOType);
  auto arg = [&](int at) { return at < 0 ? Value() : func.getArgument(at); };
  idx = arg(params.index);
  pairs = arg(params.pairs);
  order = arg(params.order);
  tables = arg(params.tables);
  tilesXArg = arg(params.tilesX);
  Value queryLenArg = arg(params.queryLen), keyLenArg = arg(params.keyLen);
  v.keyLen = keyLenArg ? keyLenArg : index(s.keyLen);
  queryLen = queryLenArg ? queryLenArg : index(s.queryLen);
}

Value AttentionKernelWriter::userOf(Value candidate) {
  return s.indexed ? loadIndex(idx, candidate) : candidate;
}

Value AttentionKernelWriter::tileOfRow(Value row) {
  // Heaviest query blocks first (a query tile is one mask block here): CTAs
  // start in grid order, so the last ones to start, which set the
  // kernel's tail, are the lightest.
  if (!s.staticMask)
    return row;
  auto type = MemRefType::get({static_cast<int64_t>(s.order.size())},
                              b.getI32Type());
  Value table = memref::GetGlobalOp::create(b, loc, type, kernelName + "_order");
  return loadIndex(table, row);
}

// What the CTA computes: consumer 0 (1) takes batch element bA (bB), query
// tile tileA (tileB), both reading keys of request rA; noB when consumer 1
// has nothing to do; run is false for a CTA with nothing to do (past the
// batch, or a partner run by its pair's CTA).
void AttentionKernelWriter::assignTile(Value tileX, Value tileY, Value &runs) {
  if (s.mode == Mode::Pairs) {
    // CTA x runs candidate x when the pairing kernel made it lead (its
    // entry p + 1 names the partner, of the same request; 0: alone) and
    // nothing when x is some other candidate's partner (-1). Grouped, x is
    // a position of the order, whose pairs table is by position: its
    // candidate is order[x].
    Value nB = memref::DimOp::create(b, loc, idx, 0);
    Value inB = ult(tileX, nB);
    Value xc = select(inB, tileX, index(0));
    Value xg = s.grouped ? loadIndex(order, xc) : tileX;
    bA = xg;
    Value pairOf = memref::LoadOp::create(b, loc, pairs, ValueRange{xc});
    Value leads = cmp(arith::CmpIPredicate::sge, pairOf, i32(0));
    runs = andi(inB, leads);
    Value partner = toIndex(arith::SubIOp::create(b, loc, pairOf, i32(1)));
    Value partnerIn = ult(partner, nB);
    Value hasPartner = cmp(arith::CmpIPredicate::sgt, pairOf, i32(0));
    Value hasB = andi(andi(hasPartner, partnerIn), runs);
    noB = notI1(hasB);
    bB = select(hasB, partner, bA);
    tileA = tileY;
    tileB = tileY;
    rA = userOf(s.grouped ? xg : xc);
    return;
  }
  bA = tileX;
  bB = tileX;
  runs = boolean(true);
  Value yTile = tileOfRow(tileY);
  if (s.mode == Mode::Split) {
    tileA = mul(yTile, index(2));
    tileB = add(tileA, index(1));
    noB = notI1(ult(mul(tileB, index(64)), queryLen));
  } else {
    tileA = yTile;
    tileB = yTile;
    noB = boolean(true);
  }
  rA = userOf(bA);
}

// nkb, the key blocks tile A's query block walks: its kept blocks (from
// firstKb in the mask's table), or ceil(keys / block).
void AttentionKernelWriter::keyBlocks() {
  if (!s.runtimeTables && !s.staticMask) {
    nkb = ceilDiv(v.keyLen, index(s.blockN));
    return;
  }
  Value qBlock = div(mul(tileA, index(64)), index(s.blockN));
  Value qBlock1 = add(qBlock, index(1));
  if (s.runtimeTables) {
    // Tables the runtime built for this call's lengths: offsets, then key
    // blocks.
    Value firstRel = loadIndex(tables, qBlock);
    Value lastRel = loadIndex(tables, qBlock1);
    nkb = sub(lastRel, firstRel);
    Value nqb = ceilDiv(queryLen, index(s.blockN));
    firstKb = add(add(nqb, index(1)), firstRel);
    return;
  }
  // BSR tables compiled into the module.
  auto table = [&](StringRef suffix, size_t size) {
    auto type = MemRefType::get({static_cast<int64_t>(size)}, b.getI32Type());
    return memref::GetGlobalOp::create(b, loc, type, kernelName + suffix.str())
        .getResult();
  };
  maskOffsets = table("_offsets", s.offsets.size());
  maskIndices = table("_indices", s.indices.size());
  firstKb = loadIndex(maskOffsets, qBlock);
  nkb = sub(loadIndex(maskOffsets, qBlock1), firstKb);
}

Value AttentionKernelWriter::keyBlockOf(Value t) {
  if (!s.runtimeTables && !s.staticMask)
    return t;
  return loadIndex(s.runtimeTables ? tables : maskIndices, add(firstKb, t));
}

// CTA c of C takes candidate tiles c, c + C, ... each head by head: item i
// is candidate tile c + C (i / heads), head i % heads.
std::pair<Value, Value> AttentionKernelWriter::chainItem(Value item) {
  Value tile = add(cta, mul(div(item, cH), ctas));
  return {tile, rem(item, cH)};
}

// Candidate tile t = x + X y -> (batch element, query tile); grouped, x is
// a position in the grouping kernel's order, which names the candidate.
std::pair<Value, Value> AttentionKernelWriter::chainTile(Value tile) {
  Value position = rem(tile, chainX);
  Value row = div(tile, chainX);
  return {s.grouped ? loadIndex(order, position) : position, row};
}

// Tile `tile` -> (x, y, head), x fastest, as a launch would number its
// CTAs; then what the tile computes and its key blocks.
void AttentionKernelWriter::decodeChainedTile(Value tile, Value &runs) {
  if (s.grouped) {
    h = div(tile, chainTiles);
    std::tie(x, y) = chainTile(rem(tile, chainTiles));
  } else {
    Value tilesX = s.dynamicBatch ? tilesXArg : index(s.tilesX);
    x = rem(tile, tilesX);
    Value yh = div(tile, tilesX);
    y = rem(yh, index(s.tilesY));
    h = div(yh, index(s.tilesY));
  }
  assignTile(x, y, runs);
  keyBlocks();
}

void AttentionKernelWriter::writeBarrierInits() {
  ifThen(eq(tid, index(0)), [&] {
    // Every consumer warp releases a slot's K and its V.
    Value releases = index(4 * s.consumers);
    forLoop(index(0), index(s.stages), {}, [&](Value slotIndex, ValueRange) {
      nvgpu::MBarrierInitOp::create(b, loc, full, index(1), slotIndex, Value());
      nvgpu::MBarrierInitOp::create(b, loc, fullV, index(1), slotIndex, Value());
      nvgpu::MBarrierInitOp::create(b, loc, empty, releases, slotIndex, Value());
      nvgpu::MBarrierInitOp::create(b, loc, emptyV, releases, slotIndex, Value());
      return SmallVector<Value>();
    });
    nvgpu::MBarrierInitOp::create(b, loc, qbar, index(1), index(0), Value());
    if (s.chained)
      nvgpu::MBarrierInitOp::create(b, loc, qfree, index(4 * s.consumers),
                                    index(0), Value());
  });
}

void AttentionKernelWriter::write(gpu::GPUModuleOp gpuModule, StringRef name,
                                  const AttentionParams &params) {
  kernelName = name.str();
  module = gpuModule;
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto f32Struct = [&](int64_t n) -> Type {
    return LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(n, Float32Type::get(ctx)));
  };
  v.accS = f32Struct(s.blockN / 2);
  v.accO = f32Struct(s.headDim / 2);
  barsType = nvgpu::MBarrierGroupType::get(ctx, workgroup, s.stages);
  qbarType = nvgpu::MBarrierGroupType::get(ctx, workgroup, 1);
  auto mapType = [&](int64_t rows, nvgpu::TensorMapL2PromoKind promo) {
    return s.tensorMapType(ctx, rows, promo);
  };
  tmaQType = mapType(64, nvgpu::TensorMapL2PromoKind::L2PROMO_256B);
  tmaKType = mapType(s.blockN, nvgpu::TensorMapL2PromoKind::L2PROMO_256B);
  tmaVType = mapType(64, nvgpu::TensorMapL2PromoKind::L2PROMO_256B);
  tmaOType = mapType(64, nvgpu::TensorMapL2PromoKind::L2PROMO_NONE);
  box64 = MemRefType::get({1, 1, 64, 64}, s.elementType,
                          MemRefLayoutAttrInterface(), workgroup);
  boxK = MemRefType::get({1, 1, s.blockN, 64}, s.elementType,
                         MemRefLayoutAttrInterface(), workgroup);
  smemType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                             MemRefLayoutAttrInterface(), workgroup);

  b.setInsertionPointToEnd(module.getBody());
  if (s.staticMask) {
    // The mask's BSR tables and the query blocks' order, constants of the
    // module.
    for (auto [suffix, values] :
         {std::pair<StringRef, ArrayRef<int32_t>>{"_offsets", s.offsets},
          {"_indices", s.indices},
          {"_order", s.order}}) {
      auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                        b.getI32Type());
      memref::GlobalOp::create(
          b, loc, kernelName + suffix.str(), b.getStringAttr("private"),
          MemRefType::get(type.getShape(), b.getI32Type()),
          DenseIntElementsAttr::get(type, values), /*constant=*/true,
          IntegerAttr());
    }
  }
  SmallVector<Type> paramTypes = llvm::map_to_vector(
      params.list, [](const KernelParam &param) { return param.type; });
  gpu::GPUFuncOp func = createKernelFunction(
      b, loc, module, kernelName, paramTypes, 128 * (s.consumers + 1));
  // One consumer: two CTAs share an SM (one covers the other's waits), so
  // 128 registers a thread at launch; the consumer gets more from the
  // producer by setmaxnreg.
  if (s.ctasPerSM > 1)
    func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(s.ctasPerSM));
  writeParameters(func, params);
  ticks = index(kWaitTicks);

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The role from lane 0 (a shuffle), so ptxas sees it warp-uniform:
  // consumers 0 .. W-1, then the producer, a warpgroup each.
  Value tid32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), tid);
  Value role = arith::DivUIOp::create(b, loc, tid32, i32(128));
  w = toIndex(gpu::ShuffleOp::create(b, loc, role, i32(0), i32(32),
                                     gpu::ShuffleMode::IDX)
                  .getShuffleResult());
  if (!s.chained) {
    x = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    y = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    h = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    assignTile(x, y, run);
  } else {
    // CTA c of C takes candidate tiles (x, y; t = x + X y) c, c + C, ...
    // of the T, each head by head (cItems items), so the CTAs running at
    // once read the keys of a few neighbouring requests, which then stay
    // in L2. (T + C - 1 - c) / C tiles: c < C, so nothing wraps.
    run = boolean(true);
    cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    ctas = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    cH = index(s.heads);
    chainX = s.dynamicBatch ? tilesXArg : index(s.tilesX);
    chainTiles = mul(chainX, index(s.tilesY));
    Value mine = div(sub(sub(add(chainTiles, ctas), index(1)), cta), ctas);
    cItems = mul(mine, cH);
    chainAny = cmp(arith::CmpIPredicate::ugt, mine, index(0));
  }
  ifThen(run, [&] {
    smem = gpu::DynamicSharedMemoryOp::create(b, loc, smemType);
    v.base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem);
    // The region starts at the first 1024-byte boundary (128B-swizzled
    // tiles) at least 256 bytes past the v.base: ptxas places the
    // dynamic-memory symbol first among the static shared variables, so
    // the mbarriers lie just past it.
    Value from = add(v.base, index(256));
    pad = add(rem(sub(index(1024), rem(from, index(1024))), index(1024)),
              index(256));
    v.smemBase = arith::IndexCastOp::create(b, loc, b.getI64Type(), v.base);
    // Per ring slot: full says its key block landed, fullV its value
    // block; empty that every consumer warp is done with the keys, emptyV
    // with the values. The pipelined consumer is done with K (t) in the
    // middle of iteration t but with V (t) only at the end of t + 1.
    full = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
    fullV = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
    empty = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
    emptyV = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
    qbar = nvgpu::MBarrierCreateOp::create(b, loc, qbarType);
    if (s.chained)
      qfree = nvgpu::MBarrierCreateOp::create(b, loc, qbarType);
    else
      keyBlocks();
    writeBarrierInits();
    gpu::BarrierOp::create(b, loc);
    auto roles = scf::IfOp::create(b, loc, eq(w, index(s.consumers)),
                                   /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&roles.getThenRegion().front());
    writeProducer();
    b.setInsertionPointToStart(&roles.getElseRegion().front());
    writeConsumer();
  });
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// The producer
//===----------------------------------------------------------------------===//

// Q's TMA loads (expecting their bytes on qbar) for consumer 0's query tile
// tileA of batch element bA and consumer 1's (tileB, bB), head `head`.
void AttentionKernelWriter::loadQ(Value tileQA, Value batchA, Value tileQB,
                                  Value batchB, Value head) {
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, loc, qbar, index(s.consumers * s.qBytes), index(0), Value());
  for (int64_t wg = 0; wg < s.consumers; ++wg)
    for (int64_t c = 0; c < s.dChunks(); ++c) {
      Value box = memref::ViewOp::create(
          b, loc, box64, smem, add(pad, index(wg * s.qBytes + c * 8192)),
          ValueRange());
      Value row = mul(wg ? tileQB : tileQA, index(64));
      nvgpu::TmaAsyncLoadOp::create(
          b, loc, box, qbar, tmaQ,
          ValueRange{index(c * 64), row, head, wg ? batchB : batchA}, index(0),
          Value(), Value());
    }
}

void AttentionKernelWriter::writeProducer() {
  // The producer gives its registers to the consumers.
  NVVM::SetMaxRegisterOp::create(b, loc, s.producerRegs,
                                 NVVM::SetMaxRegisterAction::decrease);
  ifThen(eq(tid, mul(index(s.consumers), index(128))), [&] {
    nvgpu::TmaPrefetchOp::create(b, loc, tmaK, Value());
    nvgpu::TmaPrefetchOp::create(b, loc, tmaV, Value());
    // O's too: the stores at the CTA's end then do not wait for it.
    nvgpu::TmaPrefetchOp::create(b, loc, tmaO, Value());
    // The request's key/value blocks into the ring: K once every consumer
    // is done with the slot's keys, V once with its values. `nextQ` loads
    // the chained walk's next item's Q within this one's blocks.
    auto keyValueLoop = [&](Value ringBase, function_ref<void(Value)> nextQ) {
      forLoop(index(0), nkb, {}, [&](Value t, ValueRange) {
        Value position = add(t, ringBase);
        auto [ringSlot, parity] = ringPosition(position, /*free=*/true);
        wait(empty, ringSlot, parity);
        loadKeyValue(position, t, parity);
        if (nextQ)
          nextQ(t);
        return SmallVector<Value>();
      });
    };
    if (!s.chained) {
      loadQ(tileA, bA, tileB, bB, h);
      keyValueLoop(index(0), nullptr);
      return;
    }
    // The CTA's items, each its candidate tile's and head's own decode;
    // `done` counts items (Q's barrier phases), `ring` the ring position.
    forLoop(index(0), cItems, {index(0), index(0)},
            [&](Value item, ValueRange carried) -> SmallVector<Value> {
              Value ring = carried[0], done = carried[1];
              auto [itemTile, itemHead] = chainItem(item);
              Value tileRun;
              decodeChainedTile(add(itemTile, mul(itemHead, chainTiles)),
                                tileRun);
              // The first item's Q before its key blocks; each next
              // item's a block into the one before (once the consumer has
              // that one's Q in its registers), not after the last: the
              // ring keeps the producer only two blocks ahead of the
              // consumer, too little to hide Q's trip from memory.
              ifThen(eq(item, index(0)), [&] { loadQ(tileA, bA, tileB, bB, h); });
              keyValueLoop(ring, [&](Value t) {
                Value at = arith::MinUIOp::create(b, loc, sub(nkb, index(1)),
                                                  index(1));
                Value here = eq(t, at);
                Value nextItem = add(item, index(1));
                Value load = andi(here, ult(nextItem, cItems));
                ifThen(load, [&] {
                  wait(qfree, index(0),
                       arith::IndexCastOp::create(b, loc, b.getI1Type(),
                                                  rem(done, index(2))));
                  auto [nextTile, nextHead] = chainItem(nextItem);
                  auto [nextX, nextY] = chainTile(nextTile);
                  loadQ(nextY, nextX, nextY, nextX, nextHead);
                });
              });
              return {add(ring, nkb), add(done, index(1))};
            });
  });
}

//===----------------------------------------------------------------------===//
// The consumers
//===----------------------------------------------------------------------===//

void AttentionKernelWriter::writeConsumer() {
  NVVM::SetMaxRegisterOp::create(b, loc, s.consumerRegs,
                                 NVVM::SetMaxRegisterAction::increase);
  if (!s.chained) {
    // Consumer w's batch element and query tile.
    Value isW0 = eq(w, index(0));
    bW = select(isW0, bA, bB);
    q0 = mul(select(isW0, tileA, tileB), index(64));
  }
  v.wgBar = arith::IndexCastOp::create(b, loc, b.getI32Type(), add(w, index(1)));
  Value inWg = rem(tid, index(128));
  elected = eq(inWg, index(0));
  // O is staged for its TMA store in the consumer's own Q tile: Q is dead
  // after the last Q K^T, and its 16 KB buy a third ring slot.
  Value qOff = add(pad, mul(w, index(s.qBytes)));
  stageAt = qOff;
  // This thread's rows of the 64-row tile (wgmma fragment layout): r0 and
  // r0 + 8, and its column pair 2 (lane % 4) in every group of 8.
  Value warp = div(inWg, index(32));
  lane = rem(tid, index(32));
  laneZero = eq(lane, index(0));
  Value warpRow = mul(warp, index(16));
  v.q2 = mul(rem(lane, index(4)), index(2));
  if (!s.qInRegs)
    qDesc = descriptor(qOff);
  // This lane's row of the four 8 x 8 matrices of ldmatrix / stmatrix .x4
  // (matrixRowPointer): its byte offset in the tile, its 16-byte chunk and
  // its swizzle.
  Value lmM = div(lane, index(8));
  Value lmRow = add(add(warpRow, rem(lane, index(8))),
                    mul(rem(lmM, index(2)), index(8)));
  v.lmHi = div(lmM, index(2));
  v.lmRowB = mul(lmRow, index(128));
  v.lmSw = rem(lmRow, index(8));
  v.scale2 = f32(s.scale2);
  v.negInf = f32(-std::numeric_limits<double>::infinity());
  // Lazy rescaling: a row keeps its running maximum until a block's
  // maximum exceeds it by more than 8 (log2 units): p = exp2(s - m) then
  // stays below 2^8, exact in f16/bf16 range and fp32 sums, and O is
  // rescaled only when some row of the warp moved its maximum.
  v.lazyBound = f32(8.0);
  v.zeroF = f32(0.0);
  oZero = LLVM::ZeroOp::create(b, loc, v.accO);
  if (s.chained)
    writeChainedConsumerBody();
  else
    writeGridConsumerBody();
}

// A consumer's tile once its Q is in: which consumers run, their turns.
// Both consumers read the one request's blocks (ring positions ringBase
// ..). Consumer 0 always has a tile, consumer 1 when noB is false; an idle
// consumer still waits for and frees every slot, so the producer never
// stalls on it.
void AttentionKernelWriter::consumerTileSetup(Value ringBase) {
  jBase = ringBase;
  active = notI1(andi(eq(w, index(1)), noB));
  // Turns: when both consumers run (they wait for the same K/V blocks),
  // their wgmma phases (Q K^T, P V) alternate through named barriers 3 + w
  // (wait for my turn) and 4 - w (give the other its turn), so one
  // consumer's softmax runs while the other's wgmma does. Consumer 0 goes
  // first; consumer 1 does not hand back after its last P V. From lane 0
  // (a shuffle), as the role: the named barriers then sit on branches
  // ptxas knows to be warp-uniform (bar.sync is .aligned).
  Value turnsAny = arith::ExtUIOp::create(b, loc, b.getI32Type(), notI1(noB));
  Value turnsLane = gpu::ShuffleOp::create(b, loc, turnsAny, i32(0), i32(32),
                                           gpu::ShuffleMode::IDX)
                        .getShuffleResult();
  turns = arith::TruncIOp::create(b, loc, b.getI1Type(), turnsLane);
  myTurn = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                      add(index(3), w));
  hisTurn = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                       sub(index(4), w));
  turnCount = i32(256);
  isW0t = eq(w, index(0));
  nkbLast = sub(nkb, index(1));
}

// Past the consumers' Q tiles, slot after slot: the keys, then the values.
Value AttentionKernelWriter::keysAt(Value ringSlot) {
  return add(add(pad, index(s.ringOff)), mul(ringSlot, index(s.slotBytes)));
}

Value AttentionKernelWriter::valuesAt(Value ringSlot) {
  return add(keysAt(ringSlot), index(s.kBytes));
}

void AttentionKernelWriter::keyBlockIn(Value t) {
  position = add(jBase, t);
  auto [ringSlot, parity] = ringPosition(position, /*free=*/false);
  slot = ringSlot;
  wait(full, slot, parity);
  kb = keyBlockOf(t);
  kOff = keysAt(slot);
}

void AttentionKernelWriter::myTurnBegins() {
  ifThen(turns, [&] { namedBarrier(myTurn, turnCount); });
}

void AttentionKernelWriter::handTurnOver(Value when) {
  ifThen(when, [&] {
    NVVM::BarrierArriveOp::create(b, loc, hisTurn, turnCount);
  });
}

// Block 0: its Q K^T and softmax (one wgmma turn; consumer 0's first turn
// needs no wait).
RowState AttentionKernelWriter::pipelinedPrologue() {
  keyBlockIn(index(0));
  Value kDesc = descriptor(kOff);
  ifThen(andi(turns, notI1(isW0t)), [&] { namedBarrier(myTurn, turnCount); });
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  Value sFinal = qk(kDesc);
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  handTurnOver(turns);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  // This warp is done with K (0).
  laneZeroArrive(empty, slot);
  SoftmaxStep step = softmax(sFinal, kb, freshRows(), s.skipUnmovedMaxima);
  return {step.mNew0, step.mNew8, step.lNew0, step.lNew8, step.p};
}

// A row's first block: its running maximum and sum start over.
RowState AttentionKernelWriter::freshRows() {
  Value mInit = f32(-1.0e30);
  return {mInit, mInit, v.zeroF, v.zeroF, {}};
}

// Block t of the pipelined loop: its Q K^T issued with block t - 1's P V
// (P of t - 1 in rows.p, O in `o`), the softmax of t under that P V, K (t)
// and V (t - 1) freed. For a chained item's first block, t - 1 is the item
// before's last block and the rows start over (`fresh`).
std::pair<Value, SoftmaxStep>
AttentionKernelWriter::pipelinedBlock(Value t, Value o, const RowState &rows,
                                      bool fresh) {
  keyBlockIn(t);
  // Block t - 1's slot: its V.
  auto [slotP, parityP] = ringPosition(sub(position, index(1)), /*free=*/false);
  Value vOff = valuesAt(slotP);
  Value kDesc = descriptor(kOff);
  Value vDesc = descriptor(vOff);
  // V (t - 1) is waited for here, not between the wgmma: a wait loop there
  // puts the P V on a path ptxas takes as divergent.
  wait(fullV, slotP, parityP);
  myTurnBegins();
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  Value sFinal = qk(kDesc);
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  Value oPV = pv(rows.p, o, vDesc);
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  handTurnOver(turns);
  // S (t) is done, so is this warp with K (t); the softmax runs while
  // P V (t - 1) does.
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
  laneZeroArrive(empty, slot);
  // Skipping unmoved maxima pays everywhere but on pairs of candidates;
  // guessing that no maximum moves pays with 64-key blocks
  // (docs/decisions.md, "softmax instruction choices").
  SoftmaxStep step =
      fresh ? softmax(sFinal, kb, freshRows(), s.skipUnmovedMaxima)
      : s.speculativeSoftmax ? speculativeSoftmax(sFinal, kb, rows)
                             : softmax(sFinal, kb, rows, s.skipUnmovedMaxima);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  // P (t - 1) stays in its registers until P V (t - 1) is done (so P (t)
  // gets registers of its own).
  keepP(rows.p);
  laneZeroArrive(emptyV, slotP);
  return {oPV, step};
}

// Blocks 1 .. nkb - 1, from block 0's rows and O zero: O before the last
// P V and the rows after the last block.
std::pair<Value, RowState>
AttentionKernelWriter::pipelinedLoop(const RowState &first) {
  SmallVector<Value> init = {oZero, first.m0, first.m8, first.l0, first.l8};
  llvm::append_range(init, first.p);
  SmallVector<Value> results =
      forLoop(index(1), nkb, init, [&](Value t, ValueRange carried) {
        RowState rows{carried[1], carried[2], carried[3], carried[4],
                      SmallVector<Value>(carried.drop_front(5))};
        auto [oPV, step] = pipelinedBlock(t, carried[0], rows, /*fresh=*/false);
        SmallVector<Value> next = {rescale(oPV, step), step.mNew0, step.mNew8,
                                   step.lNew0, step.lNew8};
        llvm::append_range(next, step.p);
        return next;
      });
  return {results[0],
          RowState{results[1], results[2], results[3], results[4],
                   SmallVector<Value>(ArrayRef<Value>(results).drop_front(5))}};
}

// The last block's P V (P in `pl`, O in `oL`).
Value AttentionKernelWriter::pipelinedLastPV(Value oL, ArrayRef<Value> pl) {
  auto [slotL, parityL] = ringPosition(add(jBase, nkbLast), /*free=*/false);
  Value vOff = valuesAt(slotL);
  Value vDesc = descriptor(vOff);
  wait(fullV, slotL, parityL);
  myTurnBegins();
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  Value oFin = pv(pl, oL, vDesc);
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // Consumer 1 does not hand back after its last turn.
  handTurnOver(andi(turns, isW0t));
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  laneZeroArrive(emptyV, slotL);
  return oFin;
}

// O's TMA stores from the staging tile at `at` to (batch, head, rows row
// ..).
void AttentionKernelWriter::storeO(Value at, Value head, Value row,
                                   Value batch) {
  for (int64_t c = 0; c < s.dChunks(); ++c) {
    Value box = memref::ViewOp::create(b, loc, box64, smem,
                                       add(at, index(c * 8192)), ValueRange());
    nvgpu::TmaAsyncStoreOp::create(
        b, loc, box, tmaO, ValueRange{index(c * 64), row, head, batch}, Value());
  }
}

// The staging tile's writes made visible to TMA, then stored by the
// elected thread.
void AttentionKernelWriter::fenceAndStore(Value at, Value head, Value row,
                                          Value batch, bool waitForReads) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  namedBarrier(v.wgBar, i32(128));
  ifThen(elected, [&] {
    storeO(at, head, row, batch);
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    // The staging tile must outlive the stores' reads of it, not their
    // writes: the CTA (and its shared memory) may go once they are read.
    if (waitForReads)
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
  });
}

// An idle consumer frees K and V of every block once both landed (V's wait
// also orders its release after the active consumer's of the slot's
// previous values: the producer waited for those). Waits stay
// warp-uniform: a lane spinning on a barrier while the rest of its warp
// spins on another hung under racecheck.
void AttentionKernelWriter::drainSlots() {
  forLoop(index(0), nkb, {}, [&](Value t, ValueRange) {
    Value ringSlot, parity;
    std::tie(ringSlot, parity) = ringPosition(add(jBase, t), /*free=*/false);
    wait(full, ringSlot, parity);
    wait(fullV, ringSlot, parity);
    ifThen(laneZero, [&] {
      arrive(empty, ringSlot);
      arrive(emptyV, ringSlot);
    });
    // The warp meets again before the next slot: lanes 1-31 must not spin
    // ahead on later slots while lane 0, which frees this one, waits to be
    // scheduled.
    warpSync();
    return SmallVector<Value>();
  });
}

void AttentionKernelWriter::writeGridConsumerBody() {
  wait(qbar, index(0), boolean(false));
  // Q K^T reads Q from registers (loaded once a tile), so only K comes
  // from shared memory, except in the pairs kernel, where it does not pay.
  if (s.qInRegs)
    qFragments = loadQFragments(stageAt);
  consumerTileSetup(index(0));
  ifElse(
      active, {},
      [&]() -> SmallVector<Value> {
        RowState first = pipelinedPrologue();
        auto [oL, end] = pipelinedLoop(first);
        Value oEnd = pipelinedLastPV(oL, end.p);
        finish(oEnd, end.l0, end.l8, stageAt);
        fenceAndStore(stageAt, h, q0, bW, /*waitForReads=*/true);
        return {};
      },
      [&]() -> SmallVector<Value> {
        drainSlots();
        return {};
      });
}

// The chained item `item`'s O (oEnd, row sums lEnd0 / lEnd8) into the
// consumer's O staging tile once TMA has read the item before's out of it,
// then out by TMA to the item's place (waiting for TMA to have read it
// when it is the CTA's last).
void AttentionKernelWriter::stagedFinish(Value item, Value oEnd, Value lEnd0,
                                         Value lEnd8, bool last) {
  auto [itemTile, head] = chainItem(item);
  auto [batch, queryTile] = chainTile(itemTile);
  Value row = mul(queryTile, index(64));
  ifThen(elected, [&] {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
  });
  finish(oEnd, lEnd0, lEnd8, oStageAt);
  fenceAndStore(oStageAt, head, row, batch, /*waitForReads=*/last);
}

// Chained heads: the consumer's items (each candidate of its share head by
// head), the pipeline running on from one to the next: the state one item
// leaves to the next is O before its last P V, the row sums and the last
// P. An item's first block goes with the item before's last P V
// (chainedPrologue), whose O is then normalized and stored.
void AttentionKernelWriter::writeChainedConsumerBody() {
  oStageAt = add(pad, add(index(s.oStageOff), mul(w, index(s.qBytes))));
  // The CTA's first tile (candidate tile, head 0): the key blocks are the
  // same for every item, so they are read once.
  Value tileRun;
  decodeChainedTile(cta, tileRun);
  SmallVector<Type> stateTypes = {v.accO, b.getF32Type(), b.getF32Type()};
  stateTypes.append(s.pRegs(), b.getI32Type());
  // Item hIdx: its ring position (every item has the same key blocks) and
  // Q's phase; Q once in, into registers, and the warp's part of the Q
  // tile freed for the next item's.
  auto startItem = [&](Value hIdx) {
    Value ring = mul(hIdx, nkb);
    wait(qbar, index(0),
         arith::IndexCastOp::create(b, loc, b.getI1Type(), rem(hIdx, index(2))));
    if (s.qInRegs)
      qFragments = loadQFragments(stageAt);
    warpSync();
    laneZeroArrive(qfree, index(0));
    consumerTileSetup(ring);
  };
  auto state = [&](Value o, Value l0, Value l8, ArrayRef<Value> p) {
    SmallVector<Value> values = {o, l0, l8};
    llvm::append_range(values, p);
    return values;
  };
  ifThen(andi(tileRun, chainAny), [&] {
    startItem(index(0));
    SmallVector<Value> first = ifElse(
        active, stateTypes,
        [&]() -> SmallVector<Value> {
          auto [oL, end] = pipelinedLoop(pipelinedPrologue());
          return state(oL, end.l0, end.l8, end.p);
        },
        [&]() -> SmallVector<Value> {
          drainSlots();
          Value undefP = LLVM::UndefOp::create(b, loc, b.getI32Type());
          return state(LLVM::UndefOp::create(b, loc, v.accO), v.zeroF, v.zeroF,
                       SmallVector<Value>(s.pRegs(), undefP));
        });
    SmallVector<Value> last = forLoop(
        index(1), cItems, first, [&](Value hIdx, ValueRange carried) {
          startItem(hIdx);
          Value hPrev = sub(hIdx, index(1));
          return ifElse(
              active, stateTypes,
              [&]() -> SmallVector<Value> {
                RowState rows = chainedPrologue(
                    carried[0], carried[1], carried[2],
                    SmallVector<Value>(carried.drop_front(3)), hPrev);
                auto [oL, end] = pipelinedLoop(rows);
                return state(oL, end.l0, end.l8, end.p);
              },
              [&]() -> SmallVector<Value> {
                drainSlots();
                return SmallVector<Value>(carried);
              });
        });
    // The last item's last P V, its O normalized and stored.
    Value hIdx = sub(cItems, index(1));
    consumerTileSetup(mul(hIdx, nkb));
    ifThen(active, [&] {
      Value oEnd = pipelinedLastPV(
          last[0], ArrayRef<Value>(last).drop_front(3));
      stagedFinish(hIdx, oEnd, last[1], last[2], /*last=*/true);
    });
  });
}

// A chained item's first block (t = 0), issued with the item before's
// last P V (P in pc, O in oC, its V at ring position jBase - 1) in one
// wgmma group; once that P V is done, the item before's O is normalized
// (its row sums lC0 / lC8) and stored.
RowState AttentionKernelWriter::chainedPrologue(Value oC, Value lC0, Value lC8,
                                                ArrayRef<Value> pc,
                                                Value hPrev) {
  RowState previous{Value(), Value(), lC0, lC8, SmallVector<Value>(pc)};
  auto [oEnd, step] = pipelinedBlock(index(0), oC, previous, /*fresh=*/true);
  stagedFinish(hPrev, oEnd, lC0, lC8, /*last=*/false);
  return {step.mNew0, step.mNew8, step.lNew0, step.lNew8, step.p};
}

//===----------------------------------------------------------------------===//
// The op's kernel
//===----------------------------------------------------------------------===//

namespace {
/// What the kernel-level IR of an attention op decided (its sc.kernel_ir
/// function after sc-lower-to-sck{attention=1} and sc-warp-specialize):
/// the key/value ring's stages (0: as many as the kernel takes) and the
/// roles' registers.
struct AttentionIRRoles {
  int64_t stages = 0;
  int64_t producerRegs, consumerRegs;
  /// The scores' scale the IR's online softmax applies (its sck.softmax
  /// ops'), if it has one.
  std::optional<float> scale;
  /// Without kernel-level IR, the split sc-warp-specialize would choose.
  AttentionIRRoles(int64_t consumers, int64_t ctasPerSM) {
    sck::RoleRegisters defaults =
        sck::defaultRoleRegisters(consumers, ctasPerSM);
    producerRegs = defaults.producer;
    consumerRegs = defaults.consumer;
  }
};
} // namespace

/// Reads `op`'s kernel-level IR, if any, into `roles`; a tiling, schedule
/// or consumer count other than this kernel's (64-row query tiles, Q in
/// 64 x 64 boxes, K read transposed and V as stored in key blocks of
/// `blockN`, one CTA per tile) is refused rather than silently not
/// followed.
static LogicalResult readAttentionKernelIR(AttentionOp op,
                                           AttentionConfigAttr config,
                                           int64_t headDim,
                                           AttentionIRRoles &roles) {
  int64_t consumers = config.getConsumers(), blockN = config.getKeyBlock();
  FailureOr<func::FuncOp> kernel = sc::detail::kernelIRFunction(op);
  if (failed(kernel) || !*kernel)
    return failed(kernel) ? failure() : success();
  // A tile's query rows: two 64-row halves with two consumers (of a
  // 128-row query block, or two candidates of one request), else one.
  int64_t halves = consumers;
  // Pairs of candidates come from the table the pairing kernel makes: the
  // kernel-level IR must take it too.
  if (config.getWalk() == AttentionWalk::pairs &&
      llvm::none_of(llvm::seq<unsigned>(0, kernel->getNumArguments()),
                    [&](unsigned i) {
                      return static_cast<bool>(
                          kernel->getArgAttr(i, "sck.candidate_pairs"));
                    }))
    return kernel->emitError()
           << "the attention kernel pairs candidates of one request; the "
              "kernel-level IR takes no pairs table (sck.candidate_pairs)";
  int64_t qLoads = 0;
  Operation *tileLoop = nullptr;
  WalkResult walk = kernel->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (isa<sck::TileLoopOp>(inner) && !tileLoop)
      tileLoop = inner;
    if (auto load = dyn_cast<sck::LoadOp>(inner);
        load && load.getOperand() == "Q" && tileLoop &&
        tileLoop->isAncestor(load))
      ++qLoads;
    bool chained = config.getWalk() == AttentionWalk::chained;
    sck::TileSchedule schedule =
        chained ? sck::TileSchedule::chained : sck::TileSchedule::grid;
    if (auto loop = dyn_cast<sck::TileLoopOp>(inner);
        loop && loop.getSchedule() != schedule) {
      loop.emitError()
          << (chained ? "the attention kernel chains heads"
                      : "the attention kernel runs one CTA per tile")
          << "; the kernel-level IR asks for a "
          << sck::stringifyTileSchedule(loop.getSchedule()) << " tile loop";
      return WalkResult::interrupt();
    }
    if (auto load = dyn_cast<sck::LoadOp>(inner)) {
      StringRef name = load.getOperand();
      SmallVector<int64_t> want =
          name == "Q" ? SmallVector<int64_t>{64, 64}
          : name == "K" ? SmallVector<int64_t>{64, blockN}
                        : SmallVector<int64_t>{blockN, headDim};
      bool transposed = name == "K";
      if (load.getType().getShape() != ArrayRef<int64_t>(want) ||
          load.getTransposed() != transposed) {
        load.emitError() << "the attention kernel loads " << name << " in "
                         << want[0] << "x" << want[1] << " boxes"
                         << (transposed ? " read transposed" : "")
                         << "; the kernel-level IR asks for "
                         << load.getType()
                         << (load.getTransposed() ? " read transposed" : "");
        return WalkResult::interrupt();
      }
    }
    if (auto softmax = dyn_cast<sck::SoftmaxOp>(inner)) {
      // The keys it masks past: the op's key length (a constant when
      // static).
      int64_t keyLen = op.getKey().getType().getDimSize(2);
      std::optional<int64_t> keys = getConstantIntValue(softmax.getKeys());
      if (keys && *keys != keyLen) {
        softmax.emitError() << "the attention kernel masks keys past "
                            << (ShapedType::isDynamic(keyLen)
                                    ? std::string("the key length")
                                    : std::to_string(keyLen))
                            << "; the kernel-level IR's online softmax masks "
                               "past "
                            << *keys;
        return WalkResult::interrupt();
      }
      float scale = softmax.getScale().convertToFloat();
      if (roles.scale && *roles.scale != scale) {
        softmax.emitError() << "the attention kernel applies one scale; the "
                               "kernel-level IR's online softmax steps use "
                            << *roles.scale << " and " << scale;
        return WalkResult::interrupt();
      }
      roles.scale = scale;
    }
    if (auto ring = dyn_cast<sck::RingOp>(inner)) {
      // The key/value ring (the Q ring is one buffer per consumer here).
      for (Type box : ring.getType().getBoxes())
        if (cast<sck::BoxType>(box).getShape() ==
            ArrayRef<int64_t>{blockN, headDim})
          roles.stages = ring.getStages();
    }
    auto role = dyn_cast<sck::RoleOp>(inner);
    if (!role)
      return WalkResult::advance();
    if (role.getKind() == sck::RoleKind::producer) {
      roles.producerRegs = role.getRegs();
      return WalkResult::advance();
    }
    if (static_cast<int64_t>(role.getCount()) != consumers) {
      role.emitError() << "the attention kernel runs " << consumers
                       << " consumer warpgroup(s) for this op; the "
                          "kernel-level IR asks for "
                       << role.getCount();
      return WalkResult::interrupt();
    }
    if (consumers == 2 && role.getOrder() &&
        *role.getOrder() != sck::ConsumerOrder::turns) {
      role.emitError() << "the attention kernel's two consumers take turns "
                          "on query tiles sharing their K/V; the "
                          "kernel-level IR asks for order '"
                       << sck::stringifyConsumerOrder(*role.getOrder()) << "'";
      return WalkResult::interrupt();
    }
    roles.consumerRegs = role.getRegs();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // Q boxes of one tile loop (a warp-specialized kernel has two copies of
  // the loop, the producer's holding the loads).
  if (tileLoop && qLoads != halves * (headDim / 64))
    return tileLoop->emitError()
           << "the attention kernel's tile is " << halves
           << " x 64 query rows (" << halves * (headDim / 64)
           << " Q boxes); the kernel-level IR loads " << qLoads;
  return success();
}


bool mlir::sc::attentionKernelTakesF16Value(AttentionOp op) {
  return getAttentionConfig(op).getPInF16();
}

/// The kernel's shape for `op` (failure with a located error when the
/// kernel cannot run it).
static FailureOr<AttentionShape> attentionShape(AttentionOp op,
                                                const AttentionBinding &binding,
                                                StringRef chip) {
  RankedTensorType qType = op.getQuery().getType();
  RankedTensorType kType = op.getKey().getType();
  RankedTensorType vType = op.getValue().getType();
  Type elementType = qType.getElementType();
  if (chip != "sm_90a")
    return op.emitError() << "the attention kernel needs sm_90a (TMA and "
                             "wgmma), got "
                          << chip;
  if (!elementType.isF16() && !elementType.isBF16())
    return op.emitError() << "the attention kernel takes f16 or bf16, got "
                          << elementType;
  if (kType.getElementType() != elementType ||
      vType.getElementType() != elementType ||
      op.getType().getElementType() != elementType)
    return op.emitError() << "the attention kernel needs Q, K, V and the "
                             "result of one element type";
  AttentionShape s;
  s.elementType = elementType;
  s.heads = qType.getDimSize(1);
  s.queryLen = qType.getDimSize(2);
  s.headDim = qType.getDimSize(3);
  s.keyLen = kType.getDimSize(2);
  if (ShapedType::isDynamic(s.heads) || ShapedType::isDynamic(s.headDim))
    return op.emitError() << "the attention kernel needs static heads and "
                             "head dim";
  // Dynamic lengths are passed to the kernel as values.
  s.dynamicQuery = ShapedType::isDynamic(s.queryLen);
  s.dynamicKey = ShapedType::isDynamic(s.keyLen);
  // With dynamic lengths a log-linear mask's tables are built by the
  // runtime at launch (the op verifier admits only log-linear masks there).
  s.runtimeTables = (s.dynamicQuery || s.dynamicKey) && op.getMaskAttr();
  if (s.headDim != 64 && s.headDim != 128)
    return op.emitError() << "the attention kernel takes head dims 64 and "
                             "128, got "
                          << s.headDim;
  if (vType.getDimSize(3) != s.headDim)
    return op.emitError() << "the attention kernel needs the value dim equal "
                             "to the head dim";
  s.indexed = static_cast<bool>(op.getIndex());
  auto mask = dyn_cast_if_present<BlockMaskAttrInterface>(op.getMaskAttr());
  AttentionConfigAttr config = getAttentionConfig(op);
  std::string unfit = attentionConfigLimitation(op, config);
  if (!unfit.empty())
    return op.emitError() << "the attention's kernel configuration " << config
                          << " cannot run it: " << unfit;
  // Consumers per CTA. Two warpgroups share every K/V block when their
  // 64-row query tiles read the same keys: two candidates of one request
  // (pairs), or two tiles of one query block of 128 rows (split). Else one,
  // and two CTAs an SM (one covers the other's waits).
  s.consumers = config.getConsumers();
  s.ctasPerSM = s.consumers == 1 ? 2 : 1;
  if (config.getWalk() == AttentionWalk::pairs) {
    s.mode = Mode::Pairs;
    if (binding.pairs.empty())
      return op.emitError() << "internal error: the attention kernel pairs "
                               "candidates but was given no pairs table";
  } else if (s.consumers == 2) {
    s.mode = Mode::Split;
  }
  // Chained heads (target attention of one consumer a candidate): resident
  // CTAs (two an SM), CTA c of C walking the (candidate, query tile) pairs
  // c, c + C, ... head by head, so that a tile's fill and drain, its Q
  // latency and a CTA's start come once per CTA (docs/decisions.md,
  // "target attention").
  s.chained = config.getWalk() == AttentionWalk::chained;
  // Candidates in request order (GroupCandidatesKernel.h): the chained
  // walk's position x runs candidate order[x]; the pairs kernel's CTA x
  // runs position x (its pairs table is by position).
  s.grouped = !binding.order.empty();
  if (s.grouped && !s.chained && s.mode != Mode::Pairs)
    return op.emitError() << "internal error: a candidate order for an "
                             "attention kernel that neither chains heads "
                             "nor pairs candidates";
  s.tilesX = qType.getDimSize(0);
  s.dynamicBatch = ShapedType::isDynamic(s.tilesX);
  if (s.chained)
    s.tilesY = llvm::divideCeil(s.queryLen, config.getTileRows());
  // Key blocks: the mask's blocks, else 128 keys with two consumers (wider
  // S wgmma), 64 with one (two CTAs per SM).
  s.blockN = config.getKeyBlock();
  if (mask && s.blockN != 64 && s.blockN != 128)
    return op.emitError() << "the attention kernel takes mask blocks of 64 "
                             "or 128 tokens, got "
                          << s.blockN;
  if (mask && !s.runtimeTables) {
    // BSR tables of the kept key blocks, compiled into the module; query
    // blocks heaviest first (ties keep their order: neighbours share keys
    // in L2).
    s.staticMask = true;
    int64_t numQueryBlocks = llvm::divideCeil(s.queryLen, s.blockN);
    int64_t numKeyBlocks = llvm::divideCeil(s.keyLen, s.blockN);
    mask.getBlockTables(numQueryBlocks, numKeyBlocks, s.offsets, s.indices);
    s.order.resize(numQueryBlocks);
    std::iota(s.order.begin(), s.order.end(), 0);
    llvm::sort(s.order, [&](int32_t a, int32_t b) {
      int32_t keptA = s.offsets[a + 1] - s.offsets[a];
      int32_t keptB = s.offsets[b + 1] - s.offsets[b];
      return keptA != keptB ? keptA > keptB : a < b;
    });
  }
  // Per consumer its Q tile (which then stages O), then the ring.
  s.qBytes = s.dChunks() * 8192;
  s.kBytes = s.dChunks() * s.blockN * 128;
  s.slotBytes = 2 * s.kBytes;
  s.ringOff = s.consumers * s.qBytes;
  // Ring slots: in iteration t the pipelined loop frees K (t) after its
  // Q K^T and V (t - 1) at the end, so with two slots K (t + 1) loads
  // during iteration t and V (t + 1) from its end (needed in t + 2). Three
  // with two consumers (their turns stretch an iteration); with one, two,
  // so that two CTAs fit an SM (81 KB for d = 128).
  s.stages = s.consumers == 2 ? 3 : 2;
  AttentionIRRoles roles(s.consumers, s.ctasPerSM);
  if (failed(readAttentionKernelIR(op, config, s.headDim, roles)))
    return failure();
  // setmaxnreg moves registers between the roles: the total is what the
  // CTA got at launch (two CTAs an SM with one consumer).
  int64_t launchRegs = sck::launchRegisters(s.consumers + 1, s.ctasPerSM);
  if (roles.producerRegs + s.consumers * roles.consumerRegs >
      (s.consumers + 1) * launchRegs)
    return op.emitError() << "the kernel-level IR asks for a producer of "
                          << roles.producerRegs << " registers and "
                          << s.consumers << " consumer(s) of "
                          << roles.consumerRegs << "; the CTA has "
                          << s.consumers + 1 << " x " << launchRegs;
  s.producerRegs = roles.producerRegs;
  s.consumerRegs = roles.consumerRegs;
  if (roles.stages > 0) {
    // One consumer runs two CTAs an SM: each gets half the shared memory.
    int64_t perCta = s.ctasPerSM == 1 ? 227 * 1024 : 113 * 1024;
    int64_t fit = (perCta - s.ringOff - (s.chained ? s.consumers * s.qBytes : 0) -
                   sc::detail::kSmemAlignReserve) /
                  s.slotBytes;
    if (roles.stages > fit)
      return op.emitError() << "the kernel-level IR asks for "
                            << roles.stages << " key/value ring slots; "
                            << fit << " fit in shared memory"
                            << (s.consumers == 2 ? "" : " (two CTAs an SM)");
    s.stages = roles.stages;
  }
  // Chained heads: O goes out through a staging tile of its own past the
  // ring, by TMA (the Q tile holds the next head's Q; from registers, O's
  // scattered stores cost more than chaining saved).
  s.oStageOff = s.ringOff + s.stages * s.slotBytes;
  // The scale the kernel-level IR's softmax applies (the op's, as
  // sc-lower-to-sck copied it), so the kernel computes what the IR does.
  s.scale2 = static_cast<double>(roles.scale.value_or(op.getScaleOrDefault())) *
             1.4426950408889634;
  s.maskTail = s.dynamicKey || s.keyLen % s.blockN != 0;
  // bf16 with P in f16 (the configuration's p_in_f16): P rounded to f16
  // (8x finer than bf16, its rounding was most of the bf16 error) needs V
  // in f16 too (wgmma takes one type for both operands): the entry
  // converts V once before the kernel (buildConvertKernel).
  s.pType = attentionKernelTakesF16Value(op) ? Float16Type::get(op.getContext())
                                             : elementType;
  // Q K^T reads Q from registers except in the pairs kernel, where it does
  // not pay. Skipping unmoved maxima pays everywhere but on pairs; guessing
  // that no maximum moves pays with 64-key blocks (with 128 the scores, the
  // guessed P and O do not fit the registers).
  s.qInRegs = s.mode != Mode::Pairs;
  s.skipUnmovedMaxima = s.mode != Mode::Pairs;
  s.speculativeSoftmax = s.mode != Mode::Pairs && s.blockN == 64;
  return s;
}

/// The query's (and the result's) batch dim as the launch knows it.
static LaunchDim queryBatch(AttentionOp op, const AttentionBinding &binding) {
  int64_t batch = op.getQuery().getType().getDimSize(0);
  return ShapedType::isDynamic(batch) ? LaunchDim::sym(binding.batchSymbol)
                                      : LaunchDim::of(batch);
}

/// The launch parameter of a log-linear mask's BSR tables, which the
/// runtime builds at each call for its lengths, in the mask's blocks (the
/// kernel's key blocks may be halves of them).
static LaunchParam logLinearTablesParam(AttentionOp op, const AttentionShape &s,
                                        const AttentionBinding &binding) {
  auto logLinear = cast<LogLinearMaskAttr>(op.getMaskAttr());
  LaunchParam p;
  p.kind = LaunchParam::Kind::LogLinearTables;
  p.queryLen = s.dynamicQuery ? LaunchDim::sym(binding.queryLenSymbol)
                              : LaunchDim::of(s.queryLen);
  p.keyLen = s.dynamicKey ? LaunchDim::sym(binding.keyLenSymbol)
                          : LaunchDim::of(s.keyLen);
  p.maskBlock = logLinear.getMaskBlockSize();
  p.localWidth = logLinear.getLocalWidth();
  p.anchors = static_cast<int64_t>(logLinear.getAnchors());
  p.causal = logLinear.getCausal();
  return p;
}

/// The kernel's parameters, in order: the tensor maps of Q, K, V and O,
/// the index, the pairs table and the order, the dynamic lengths, the
/// runtime's BSR tables, the chained walk's dynamic batch.
static sc::detail::AttentionParams
attentionParams(AttentionOp op, const AttentionShape &s,
                const AttentionBinding &binding) {
  MLIRContext *ctx = op.getContext();
  Type pointer = LLVM::LLVMPointerType::get(ctx);
  Type indices = MemRefType::get({ShapedType::kDynamic},
                                 IntegerType::get(ctx, 32));
  Type indexType = IndexType::get(ctx);
  LaunchDim batch = queryBatch(op, binding);
  int64_t keys = op.getKey().getType().getDimSize(0);
  LaunchDim keyBatch = ShapedType::isDynamic(keys)
                           ? LaunchDim::sym(binding.keyBatchSymbol)
                           : LaunchDim::of(keys);
  int64_t heads = s.heads, headDim = s.headDim, eltBytes = 2;
  sc::detail::AttentionParams params;
  // [batch, heads, rows, head dim]; rows (and so the outer strides) may be
  // a dynamic length.
  auto map = [&](const std::string &tensor, int64_t rows,
                 const std::string &rowsSymbol, LaunchDim batchDim,
                 int64_t boxRows) {
    LaunchParam p;
    p.kind = LaunchParam::Kind::Tma;
    p.tensor = tensor;
    auto rowsTimes = [&](int64_t f) {
      return ShapedType::isDynamic(rows) ? LaunchDim::sym(rowsSymbol, f)
                                         : LaunchDim::of(rows * f);
    };
    p.dims = {LaunchDim::of(headDim), rowsTimes(1), LaunchDim::of(heads),
              batchDim};
    p.stridesBytes = {LaunchDim::of(headDim * eltBytes),
                      rowsTimes(headDim * eltBytes),
                      rowsTimes(heads * headDim * eltBytes)};
    p.box = {64, boxRows, 1, 1};
    return p;
  };
  params.add({pointer, map(binding.query, s.queryLen,
                                 binding.queryLenSymbol, batch, 64)});
  params.add({pointer, map(binding.key, s.keyLen, binding.keyLenSymbol,
                                 keyBatch, s.blockN)});
  params.add({pointer, map(binding.value, s.keyLen, binding.keyLenSymbol,
                                 keyBatch, 64)});
  params.add({pointer, map(binding.result, s.queryLen,
                                 binding.queryLenSymbol, batch, 64)});
  if (s.indexed)
    params.index = params.add({indices, LaunchParam::memref(binding.index)});
  if (s.mode == Mode::Pairs)
    params.pairs = params.add({indices, LaunchParam::memref(binding.pairs)});
  if (s.grouped)
    params.order = params.add({indices, LaunchParam::memref(binding.order)});
  auto length = [&](const std::string &symbol) {
    LaunchParam p;
    p.kind = LaunchParam::Kind::Dim;
    p.dim = LaunchDim::sym(symbol);
    return params.add({indexType, p});
  };
  if (s.dynamicQuery)
    params.queryLen = length(binding.queryLenSymbol);
  if (s.dynamicKey)
    params.keyLen = length(binding.keyLenSymbol);
  if (s.runtimeTables) {
    params.tables =
        params.add({indices, logLinearTablesParam(op, s, binding)});
  }
  if (s.chained && s.dynamicBatch) {
    LaunchParam tilesX;
    tilesX.kind = LaunchParam::Kind::Dim;
    tilesX.dim = batch;
    params.tilesX = params.add({indexType, tilesX});
  }
  return params;
}


/// Kernel `name` lowered op by op from `op`'s scheduled kernel-level IR
/// (the grid walks), its parameters the writer's.
static LogicalResult lowerKernelIR(AttentionOp op, const AttentionShape &s,
                                   gpu::GPUModuleOp gpuModule, StringRef name,
                                   const sc::detail::AttentionParams &params) {
  FailureOr<func::FuncOp> kernel = sc::detail::kernelIRFunction(op);
  if (failed(kernel))
    return failure();
  if (!*kernel)
    return op.emitError() << "no kernel-level IR to lower (run "
                             "sc-lower-to-sck{attention=1}, "
                             "sc-warp-specialize, sc-schedule-attention)";
  Location loc = op.getLoc();
  OpBuilder b(op.getContext());
  b.setInsertionPointToEnd(gpuModule.getBody());
  SmallVector<Type> paramTypes = llvm::map_to_vector(
      params.list,
      [](const sc::detail::KernelParam &param) { return param.type; });
  gpu::GPUFuncOp func = sc::detail::createKernelFunction(b, loc, gpuModule, name,
                                             paramTypes, 128 * (s.consumers + 1));
  if (s.ctasPerSM > 1)
    func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(s.ctasPerSM));
  // The kernel-level function's arguments: the batch count (the chained
  // walk's tile count reads it; one tile a CTA does not), the index, the
  // pairs table, the candidate order, the dynamic lengths and the
  // runtime's tables, in that order.
  auto ret = gpu::ReturnOp::create(b, loc);
  b.setInsertionPoint(ret);
  IRMapping mapping;
  Block &body = kernel->getBody().front();
  unsigned next = 0;
  Value batches = s.dynamicBatch && s.chained
                      ? func.getArgument(params.tilesX)
                      : arith::ConstantIndexOp::create(
                            b, loc, s.dynamicBatch ? 0 : s.tilesX)
                            .getResult();
  mapping.map(body.getArgument(next++), batches);
  auto asTensor = [&](int at) {
    Value in = body.getArgument(next++);
    mapping.map(in, UnrealizedConversionCastOp::create(b, loc, in.getType(),
                                                       func.getArgument(at))
                        .getResult(0));
  };
  if (s.indexed)
    asTensor(params.index);
  if (s.mode == Mode::Pairs)
    asTensor(params.pairs);
  if (s.grouped) {
    if (next >= body.getNumArguments() ||
        !kernel->getArgAttr(next, "sck.candidate_order"))
      return kernel->emitError() << "the attention's candidates are grouped "
                                    "by request but its kernel-level IR "
                                    "takes no candidate order";
    asTensor(params.order);
  }
  if (s.dynamicQuery)
    mapping.map(body.getArgument(next++), func.getArgument(params.queryLen));
  Value keyLen;
  if (s.dynamicKey) {
    keyLen = func.getArgument(params.keyLen);
    mapping.map(body.getArgument(next++), keyLen);
  } else {
    keyLen = arith::ConstantIndexOp::create(b, loc, s.keyLen);
  }
  if (s.runtimeTables)
    asTensor(params.tables);
  if (next != body.getNumArguments())
    return kernel->emitError() << "the attention kernel's kernel-level IR "
                                  "takes other arguments than its kernel";
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  return sc::detail::convertAttentionSckToNVGPU(func, s, keyLen);
}

/// The multistage kernel of sm_80 / sm_86 / sm_89 (`chip`): one CTA of
/// four warps a (batch element, 64-row query tile, head), lowered op by op
/// from the op's kernel-level IR (sc-pipeline-multistage's) by
/// SckAttentionToMmaSync.cpp; parameters Q, K, V, O (memrefs), the index,
/// the dynamic lengths, the runtime's tables.
static FailureOr<KernelLaunch>
buildMultistageAttention(AttentionOp op, gpu::GPUModuleOp gpuModule,
                         StringRef kernelName, const AttentionBinding &binding,
                         StringRef chip) {
  RankedTensorType qType = op.getQuery().getType();
  RankedTensorType kType = op.getKey().getType();
  Type element = qType.getElementType();
  if ((!element.isF16() && !element.isBF16()) ||
      kType.getElementType() != element ||
      op.getValue().getType().getElementType() != element ||
      op.getType().getElementType() != element)
    return op.emitError() << "the attention kernel takes Q, K, V and a "
                             "result of one type, f16 or bf16";
  AttentionConfigAttr config = getAttentionConfig(op);
  AttentionShape s;
  s.elementType = s.pType = element;
  s.heads = qType.getDimSize(1);
  s.queryLen = qType.getDimSize(2);
  s.headDim = qType.getDimSize(3);
  s.keyLen = kType.getDimSize(2);
  if (ShapedType::isDynamic(s.heads) ||
      (s.headDim != 64 && s.headDim != 128) ||
      op.getValue().getType().getDimSize(3) != s.headDim)
    return op.emitError() << "the attention kernel takes static heads and "
                             "head dims of 64 or 128 (V's too)";
  if (config.getWalk() != AttentionWalk::grid || config.getConsumers() != 1 ||
      config.getPInF16())
    return op.emitError() << "the " << chip << " attention kernel runs one "
                             "consumer a 64-row query tile, got "
                          << config;
  s.dynamicQuery = ShapedType::isDynamic(s.queryLen);
  s.dynamicKey = ShapedType::isDynamic(s.keyLen);
  s.runtimeTables = (s.dynamicQuery || s.dynamicKey) && op.getMaskAttr();
  s.indexed = static_cast<bool>(op.getIndex());
  s.blockN = config.getKeyBlock();
  s.maskTail = s.dynamicKey || s.keyLen % s.blockN != 0;
  // As on Hopper with one consumer: maxima that cannot move are skipped,
  // and with 64-key blocks the softmax guesses that none moves.
  s.skipUnmovedMaxima = true;
  s.speculativeSoftmax = s.blockN == 64;
  FailureOr<func::FuncOp> kernel = sc::detail::kernelIRFunction(op);
  if (failed(kernel))
    return failure();
  if (!*kernel ||
      kernel->getBody().getOps<sck::RingOp>().empty())
    return op.emitError() << "no multistage kernel-level IR to lower (run "
                             "sc-lower-to-sck{attention=1}, "
                             "sc-pipeline-multistage)";
  // The scale the IR's softmax applies.
  std::optional<float> scale;
  kernel->walk([&](sck::SoftmaxOp step) {
    scale = step.getScale().convertToFloat();
  });
  s.scale2 = static_cast<double>(scale.value_or(op.getScaleOrDefault())) *
             1.4426950408889634;

  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  auto indices = MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 32));
  Type indexType = IndexType::get(ctx);
  SmallVector<Type> paramTypes;
  std::vector<LaunchParam> launchParams;
  for (auto [tensor, type] :
       {std::pair<const std::string &, RankedTensorType>{binding.query, qType},
        {binding.key, kType},
        {binding.value, op.getValue().getType()},
        {binding.result, op.getType()}}) {
    paramTypes.push_back(sc::detail::memrefOf(type));
    launchParams.push_back(LaunchParam::memref(tensor));
  }
  if (s.indexed) {
    paramTypes.push_back(indices);
    launchParams.push_back(LaunchParam::memref(binding.index));
  }
  auto length = [&](const std::string &symbol) {
    LaunchParam p;
    p.kind = LaunchParam::Kind::Dim;
    p.dim = LaunchDim::sym(symbol);
    paramTypes.push_back(indexType);
    launchParams.push_back(p);
  };
  if (s.dynamicQuery)
    length(binding.queryLenSymbol);
  if (s.dynamicKey)
    length(binding.keyLenSymbol);
  if (s.runtimeTables) {
    paramTypes.push_back(indices);
    launchParams.push_back(logLinearTablesParam(op, s, binding));
  }
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(gpuModule.getBody());
  gpu::GPUFuncOp func = sc::detail::createKernelFunction(
      b, loc, gpuModule, kernelName, paramTypes, 128);
  StringRef names[] = {"Q", "K", "V", "O"};
  for (auto [i, name] : llvm::enumerate(names))
    func.setArgAttr(i, sc::detail::kOperandAttrName, b.getStringAttr(name));
  // The kernel-level function's arguments: the batch count, the index, the
  // dynamic lengths and the runtime's tables, in that order.
  auto ret = gpu::ReturnOp::create(b, loc);
  b.setInsertionPoint(ret);
  IRMapping mapping;
  Block &body = kernel->getBody().front();
  unsigned next = 0, param = 4;
  mapping.map(body.getArgument(next++),
              memref::DimOp::create(b, loc, func.getArgument(0), 0).getResult());
  auto asTensor = [&]() {
    Value in = body.getArgument(next++);
    mapping.map(in, UnrealizedConversionCastOp::create(b, loc, in.getType(),
                                                       func.getArgument(param++))
                        .getResult(0));
  };
  if (s.indexed)
    asTensor();
  if (s.dynamicQuery)
    mapping.map(body.getArgument(next++), func.getArgument(param++));
  Value keyLen;
  if (s.dynamicKey) {
    keyLen = func.getArgument(param++);
    mapping.map(body.getArgument(next++), keyLen);
  } else {
    keyLen = arith::ConstantIndexOp::create(b, loc, s.keyLen);
  }
  if (s.runtimeTables)
    asTensor();
  if (next != body.getNumArguments())
    return kernel->emitError() << "the attention's kernel-level IR takes "
                                  "other arguments than its kernel";
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  FailureOr<int64_t> shared =
      sc::detail::convertAttentionSckToMmaSync(func, s, keyLen);
  if (failed(shared))
    return failure();
  int64_t limit = maxSharedBytesPerBlock(chip);
  if (*shared > limit)
    return op.emitError() << "the " << chip << " attention kernel's rings "
                             "need "
                          << *shared << " bytes of shared memory, more than "
                          << limit;
  func.walk([](UnrealizedConversionCastOp cast) {
    if (cast->use_empty())
      cast.erase();
  });
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 128;
  launch.grid[0] = queryBatch(op, binding);
  launch.grid[1] = s.dynamicQuery
                       ? LaunchDim::ceilDiv(binding.queryLenSymbol, 64)
                       : LaunchDim::of(llvm::divideCeil(s.queryLen, 64));
  launch.grid[2] = LaunchDim::of(s.heads);
  launch.sharedBytes = *shared;
  launch.params = std::move(launchParams);
  launch.summary = llvm::formatv(
      "{0}: attention, {1} heads, head dim {2}, {3}{4}, one CTA of four warps "
      "a 64-row query tile ({5}: cp.async rings, mma.sync), {6}-key blocks, "
      "online softmax (exp2, fp32), {7} B shared memory",
      kernelName, s.heads, s.headDim, sc::detail::typeToString(element),
      s.indexed ? ", keys/values read through the index" : "", chip, s.blockN,
      *shared);
  return launch;
}

FailureOr<KernelLaunch>
mlir::sc::buildAttentionKernel(AttentionOp op, gpu::GPUModuleOp gpuModule,
                               StringRef kernelName,
                               const AttentionBinding &binding,
                               StringRef chip, bool fromKernelIR,
                               bool ampereAttention) {
  op.getContext()
      ->loadDialect<arith::ArithDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                    math::MathDialect, memref::MemRefDialect,
                    nvgpu::NVGPUDialect, NVVM::NVVMDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  if (isAmpereOrAda(chip)) {
    if (!ampereAttention)
      return op.emitError() << "the attention kernel needs sm_90a (TMA and "
                               "wgmma), got "
                            << chip
                            << " (--ampere-attention: the mma.sync kernel, "
                               "experimental)";
    return buildMultistageAttention(op, gpuModule, kernelName, binding, chip);
  }
  FailureOr<AttentionShape> shape = attentionShape(op, binding, chip);
  if (failed(shape))
    return failure();
  const AttentionShape &s = *shape;
  OpBuilder b(op.getContext());
  sc::detail::AttentionParams params = attentionParams(op, s, binding);
  if (fromKernelIR) {
    if (failed(lowerKernelIR(op, s, gpuModule, kernelName, params)))
      return failure();
  } else {
    AttentionKernelWriter(s, b, op.getLoc()).write(gpuModule, kernelName, params);
  }
  int64_t sharedBytes = s.oStageOff + (s.chained ? s.consumers * s.qBytes : 0) +
                        sc::detail::kSmemAlignReserve;

  // Launch: one CTA per (batch element, 64-row query tile, head), batch
  // fastest so that the candidates of one request run side by side and
  // share its keys and values in L2.
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 128 * (s.consumers + 1);
  // Pairs: CTA x takes candidate x and its partner when x leads a pair or
  // runs alone; the CTAs of partners (about half) return at once.
  launch.grid[0] = queryBatch(op, binding);
  int64_t rowsPerCta = s.mode == Mode::Split ? 128 : 64;
  launch.grid[1] =
      s.dynamicQuery ? LaunchDim::ceilDiv(binding.queryLenSymbol, rowsPerCta)
                     : LaunchDim::of(llvm::divideCeil(s.queryLen, rowsPerCta));
  launch.grid[2] = LaunchDim::of(s.heads);
  if (s.chained) {
    // Resident CTAs, each walking its share of the candidate tiles, head by
    // head.
    launch.grid[0] = LaunchDim::sym("SMS", s.ctasPerSM);
    launch.grid[1] = LaunchDim::of(1);
    launch.grid[2] = LaunchDim::of(1);
  }
  launch.sharedBytes = sharedBytes;
  for (const sc::detail::KernelParam &param : params.list)
    launch.params.push_back(param.launch);
  StringRef modeText =
      s.mode == Mode::Pairs
          ? "two consumer warpgroups on two candidates of one request "
            "(paired by the kernel before), sharing its K/V"
      : s.mode == Mode::Split
          ? "two consumer warpgroups on the two 64-row halves of a 128-row "
            "query tile, sharing K/V"
          : "one consumer warpgroup on a 64-row query tile";
  std::string maskText;
  if (s.runtimeTables)
    maskText = " (kept blocks from BSR tables the runtime builds for each "
               "call's lengths)";
  else if (s.staticMask)
    maskText = llvm::formatv(" ({0} of {1} block pairs kept, BSR tables in "
                             "the module)",
                             s.indices.size(),
                             llvm::divideCeil(s.queryLen, s.blockN) *
                                 llvm::divideCeil(s.keyLen, s.blockN))
                   .str();
  auto length = [](int64_t n) {
    return ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n);
  };
  launch.summary =
      llvm::formatv(
          "{0}: attention {1} x {2} keys, {3} heads, head dim {4}, {5}, "
          "{6}{7}, TMA producer warpgroup, {8}-key blocks{9}, {10} ring "
          "slots, wgmma QK^T and PV{12}, online softmax (exp2, fp32), TMA "
          "stores, {11} B shared memory",
          kernelName, length(s.queryLen), length(s.keyLen), s.heads,
          s.headDim, sc::detail::typeToString(s.elementType),
          s.indexed ? "keys/values read through the index, " : "", modeText,
          s.blockN, maskText, s.stages, sharedBytes,
          s.pType != s.elementType
              ? " (P in f16, V read as f16: converted before the kernel)"
              : "")
          .str();
  if (s.chained)
    launch.summary +=
        llvm::formatv("; chained heads: {0} CTAs an SM, CTA c of C walking "
                      "candidates c, c + C, ...{2}, each candidate's "
                      "{1} heads in turn, the consumer's pipeline running on "
                      "from one to the next, O by TMA through a staging tile "
                      "of its own",
                      s.ctasPerSM, s.heads,
                      s.grouped ? " in request order (the grouping kernel's "
                                  "table)"
                                : "")
            .str();
  return launch;
}
