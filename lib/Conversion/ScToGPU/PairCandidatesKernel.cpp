//===- PairCandidatesKernel.cpp - candidates of one request in pairs ------===//
//
// One thread per candidate b of request u = idx[b]. First within each warp
// (match.any groups the lanes of one request): lanes of a group pair in
// lane order, the lower one leading. Each group of odd size leaves its last
// lane, which pairs across warps through its request's slot in %waiting
// (the one candidate waiting for a partner, plus one, or 0): one atomic
// update both takes and gives. An empty slot gets b (b waits, and leads a
// pair if someone comes), a full one is emptied (b becomes the partner of
// the candidate that waited). Candidates of one request that sit together
// in the index pair in their warp with no atomic at all; any order ends in
// pairs plus at most one alone per request. Which candidates pair across
// warps is up to the scheduler, but the attention computes each candidate
// on its own, so the outputs do not depend on it.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/PairCandidatesKernel.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr int64_t kThreads = 256;

/// The kernel (idx, waiting, pairs), one thread a candidate.
void writePairKernel(Location loc, gpu::GPUModuleOp gpuModule,
                     StringRef kernelName) {
  MLIRContext *ctx = gpuModule.getContext();
  ctx->loadDialect<arith::ArithDialect, LLVM::LLVMDialect, NVVM::NVVMDialect,
                   memref::MemRefDialect, scf::SCFDialect>();
  OpBuilder b(ctx);
  Type i32 = b.getI32Type();
  auto table = MemRefType::get({ShapedType::kDynamic}, i32);
  auto func = sc::detail::createKernelFunction(b, loc, gpuModule, kernelName,
                                           {table, table, table}, kThreads);
  Value idx = func.getArgument(0), waiting = func.getArgument(1),
        pairs = func.getArgument(2);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto int32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, p, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubIOp::create(b, loc, x, y);
  };
  auto andi = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, loc, x, y);
  };
  auto toIndex = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  auto toI32 = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, i32, v);
  };
  auto popcount = [&](Value v) -> Value {
    return LLVM::CtPopOp::create(b, loc, i32, v);
  };
  Value c0 = index(0), c4 = index(4), c31 = index(31), c256 = index(kThreads);
  Value zero = int32(0), one = int32(1), two = int32(2), minusOne = int32(-1);
  Value trueBit = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value bIdx = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, bid, c256), tid);
  Value nB = memref::DimOp::create(b, loc, idx, c0);
  Value nU = memref::DimOp::create(b, loc, waiting, c0);
  Value live = cmp(arith::CmpIPredicate::ult, bIdx, nB);
  Value bSafe = arith::SelectOp::create(b, loc, live, bIdx, c0);
  Value u32 = memref::LoadOp::create(b, loc, idx, bSafe);
  // A negative index is a huge unsigned one: out of range, so alone.
  Value u = toIndex(u32);
  Value known = andi(live, cmp(arith::CmpIPredicate::ult, u, nU));
  // Every lane takes part in the match; one without a request matches
  // nothing (a negative key of its own).
  Value lane = toI32(andi(tid, c31));
  Value key = arith::SelectOp::create(b, loc, known, u32, sub(minusOne, lane));
  Value group = NVVM::MatchSyncOp::create(b, loc, i32, minusOne, key,
                                          NVVM::MatchSyncKind::any);
  Value bit = arith::ShLIOp::create(b, loc, one, lane);
  Value rank = popcount(andi(group, sub(bit, one)));
  Value leads = cmp(arith::CmpIPredicate::eq, andi(rank, one), zero);
  // The next lane of the group above this one, if any.
  Value upTo = arith::ShLIOp::create(b, loc, two, lane);
  Value notUpTo = arith::XOrIOp::create(b, loc, sub(upTo, one), minusOne);
  Value above = andi(group, notUpTo);
  Value hasAbove = cmp(arith::CmpIPredicate::ne, above, zero);
  Value next = andi(above, sub(zero, above));
  Value nextLane = popcount(sub(next, one));
  Value leadsKnown = andi(leads, known);
  Value pairsHere = andi(leadsKnown, hasAbove);
  Value leftOver =
      andi(leadsKnown, arith::XOrIOp::create(b, loc, hasAbove, trueBit));
  Value b32 = toI32(bIdx);
  Value me = arith::AddIOp::create(b, loc, b32, one);
  {
    auto ifPair = scf::IfOp::create(b, loc, pairsHere, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifPair.getThenRegion().front());
    Value partner32 = arith::AddIOp::create(b, loc, b32, sub(nextLane, lane));
    Value partnerPlus = arith::AddIOp::create(b, loc, partner32, one);
    memref::StoreOp::create(b, loc, partnerPlus, pairs, bIdx);
    memref::StoreOp::create(b, loc, minusOne, pairs, toIndex(partner32));
  }
  auto ifLeft = scf::IfOp::create(b, loc, leftOver, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifLeft.getThenRegion().front());
  // Relaxed, device scope: the slot's value is all that is shared; the
  // attention kernel reads the table after this kernel ends.
  Value slots = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, waiting);
  Value slotAddr = arith::AddIOp::create(
      b, loc, slots, arith::MulIOp::create(b, loc, u, c4));
  Value slotAddr64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), slotAddr);
  Value slot = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 1), slotAddr64);
  Value seen = LLVM::LoadOp::create(b, loc, i32, slot, /*alignment=*/4,
                                    /*isVolatile=*/false,
                                    /*isNonTemporal=*/false,
                                    /*isInvariant=*/false,
                                    /*isInvariantGroup=*/false,
                                    LLVM::AtomicOrdering::monotonic,
                                    StringRef("device"));
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i32}, ValueRange{seen});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore(), {}, {i32}, {loc});
    Value cur = before->getArgument(0);
    Value give = arith::SelectOp::create(
        b, loc, cmp(arith::CmpIPredicate::eq, cur, zero), me, zero);
    auto swap = LLVM::AtomicCmpXchgOp::create(
        b, loc, slot, cur, give, LLVM::AtomicOrdering::monotonic,
        LLVM::AtomicOrdering::monotonic, StringRef("device"));
    Value old = LLVM::ExtractValueOp::create(b, loc, swap, 0);
    Value done = LLVM::ExtractValueOp::create(b, loc, swap, 1);
    scf::ConditionOp::create(
        b, loc, arith::XOrIOp::create(b, loc, done, trueBit), ValueRange{old});
    Block *after = b.createBlock(&loop.getAfter(), {}, {i32}, {loc});
    scf::YieldOp::create(b, loc, after->getArgument(0));
  }
  // Someone waited: b is its partner.
  auto ifTook = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::ne, loop.getResult(0), zero),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifTook.getThenRegion().front());
  Value leader = toIndex(sub(loop.getResult(0), one));
  memref::StoreOp::create(b, loc, me, pairs, leader);
  memref::StoreOp::create(b, loc, minusOne, pairs, bIdx);
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
}
} // namespace

FailureOr<KernelLaunch>
mlir::sc::buildPairCandidatesKernel(Location loc, gpu::GPUModuleOp gpuModule,
                                    StringRef kernelName,
                                    const PairCandidatesSpec &spec) {
  writePairKernel(loc, gpuModule, kernelName);

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = kThreads;
  launch.grid[0] = spec.batch.dividedUp(kThreads);
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = LaunchDim::of(1);
  LaunchParam index, waiting, pairs;
  index.tensor = spec.index;
  waiting.tensor = spec.waiting;
  pairs.tensor = spec.pairs;
  launch.params = {index, waiting, pairs};
  launch.summary =
      llvm::formatv("{0}: pairs the candidates of each request (index {1}) "
                    "into {2}, so that the attention's two consumers share "
                    "one request's keys and values (scratch {3})",
                    kernelName, spec.index, spec.pairs, spec.waiting)
          .str();
  return launch;
}
