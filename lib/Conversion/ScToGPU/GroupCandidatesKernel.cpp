//===- GroupCandidatesKernel.cpp - candidates in request order ------------===//
//
// A counting sort of the candidates by request, in one CTA of 1024 threads
// (the batches of target attention are thousands of candidates: one CTA
// sorts them in a few microseconds, and a single CTA needs no grid-wide
// step between counting, prefix sum and scatter). Counts per request in
// shared memory (up to 8192 requests; more keep the index's order), an
// exclusive prefix sum over them (each thread a contiguous share, the
// shares' sums scanned), then every candidate takes the next position of
// its request with an atomic increment of that request's cursor: besides
// the index, the only global traffic is the table's stores (counts in
// global memory cost the atomics' round trips). Candidates of one request
// come out in the order their atomics ran: the attention computes each
// candidate on its own, so its output does not depend on it.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/GroupCandidatesKernel.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr int64_t kThreads = 1024;
/// Requests whose counts shared memory holds.
constexpr int64_t kMaxUsers = 8192;

/// Builds the kernel (idx, order(, pairs), users) into `gpuModule`.
class GroupKernelWriter {
public:
  GroupKernelWriter(Location loc, gpu::GPUModuleOp gpuModule)
      : loc(loc), ctx(gpuModule.getContext()), b(ctx), gpuModule(gpuModule) {
    ctx->loadDialect<arith::ArithDialect, memref::MemRefDialect,
                     scf::SCFDialect>();
  }
  void write(StringRef kernelName, bool withPairs);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value int32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value toIndex(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  Value toI32(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  }
  /// `for (x = tid; x < end; x += 1024) body(x)`.
  void strided(Value end, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, tid, end, c1024);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar());
  }
  /// `if (cond) then() else otherwise()`, each yielding one i32.
  Value select(Value cond, function_ref<Value()> then,
               function_ref<Value()> otherwise) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{b.getI32Type()}, cond,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loc, then());
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, otherwise());
    return ifOp.getResult(0);
  }
  /// An atomic increment of `memref[at]`; its value before.
  Value increment(Value memref, Value at) {
    return memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one,
                                       memref, ValueRange{at});
  }
  void writeSort();
  void writePairs();

  Location loc;
  MLIRContext *ctx;
  OpBuilder b;
  gpu::GPUModuleOp gpuModule;
  Value idx, order, pairs, users, counts, sums, late;
  Value c0, c1, c2, c1023, c1024, zero, one, tid, nB;
};

void GroupKernelWriter::write(StringRef kernelName, bool withPairs) {
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t n) {
    return MemRefType::get({n}, b.getI32Type(), MemRefLayoutAttrInterface(),
                           workgroup);
  };
  auto table = MemRefType::get({ShapedType::kDynamic}, b.getI32Type());
  SmallVector<Type> params = {table, table};
  if (withPairs)
    params.push_back(table);
  params.push_back(b.getIndexType());
  auto func = sc::detail::createKernelFunction(
      b, loc, gpuModule, kernelName, params, kThreads,
      TypeRange{shared(kMaxUsers), shared(2 * kThreads), shared(1)});
  idx = func.getArgument(0);
  order = func.getArgument(1);
  pairs = withPairs ? func.getArgument(2) : Value();
  users = func.getArgument(params.size() - 1);
  counts = func.getWorkgroupAttributions()[0];
  sums = func.getWorkgroupAttributions()[1];
  late = func.getWorkgroupAttributions()[2];
  c0 = index(0);
  c1 = index(1);
  c2 = index(2);
  c1023 = index(kThreads - 1);
  c1024 = index(kThreads);
  zero = int32(0);
  one = int32(1);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  nB = memref::DimOp::create(b, loc, idx, c0);
  auto many = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::ugt, users, index(kMaxUsers)),
      /*withElseRegion=*/true);
  {
    // More requests than the shared counts hold (each then has few
    // candidates to share keys between): the index's own order, and every
    // candidate alone.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&many.getThenRegion().front());
    strided(nB, [&](Value bIdx) {
      memref::StoreOp::create(b, loc, toI32(bIdx), order, bIdx);
      if (pairs)
        memref::StoreOp::create(b, loc, zero, pairs, bIdx);
    });
    b.setInsertionPointToStart(&many.getElseRegion().front());
    writeSort();
    if (pairs)
      writePairs();
  }
  gpu::ReturnOp::create(b, loc);
}

void GroupKernelWriter::writeSort() {
  Value first = cmp(arith::CmpIPredicate::eq, tid, c0);
  strided(users, [&](Value u) {
    memref::StoreOp::create(b, loc, zero, counts, u);
  });
  {
    auto ifFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
    memref::StoreOp::create(b, loc, zero, late, c0);
  }
  gpu::BarrierOp::create(b, loc);
  // Candidates per request. A negative index is a huge unsigned one: out of
  // range, so not counted (such candidates go last).
  strided(nB, [&](Value bIdx) {
    Value u = toIndex(memref::LoadOp::create(b, loc, idx, bIdx));
    auto ifIn = scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::ult, u, users),
                                  /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifIn.getThenRegion().front());
    increment(counts, u);
  });
  gpu::BarrierOp::create(b, loc);
  // Exclusive prefix sum over the counts: thread t's share is requests
  // [t s, t s + s), s = ceil(U / 1024) <= 8.
  Value share = arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, users, c1023), c1024);
  Value lo0 = arith::MulIOp::create(b, loc, tid, share);
  Value lo = arith::MinUIOp::create(b, loc, lo0, users);
  Value hi = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lo0, share), users);
  auto sumLoop = scf::ForOp::create(
      b, loc, lo, hi, c1, ValueRange{zero},
      [&](OpBuilder &nb, Location l, Value u, ValueRange acc) {
        Value n = memref::LoadOp::create(nb, l, counts, u);
        scf::YieldOp::create(nb, l, ValueRange{arith::AddIOp::create(nb, l, acc[0], n)});
      });
  Value mine = sumLoop.getResult(0);
  memref::StoreOp::create(b, loc, mine, sums, tid);
  gpu::BarrierOp::create(b, loc);
  // Inclusive scan of the 1024 shares (Hillis-Steele, ten steps between the
  // two halves of %sums: an even count ends in the first).
  auto scan = scf::ForOp::create(b, loc, c0, index(10), c1);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(scan.getBody());
    Value k = scan.getInductionVar();
    Value src = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, k, c2), c1024);
    Value dst = arith::SubIOp::create(b, loc, c1024, src);
    Value d = toIndex(arith::ShLIOp::create(b, loc, one, toI32(k)));
    Value at = arith::AddIOp::create(b, loc, src, tid);
    Value v = memref::LoadOp::create(b, loc, sums, at);
    Value v1 = select(
        cmp(arith::CmpIPredicate::uge, tid, d),
        [&]() -> Value {
          Value w = memref::LoadOp::create(b, loc, sums,
                                           arith::SubIOp::create(b, loc, at, d).getResult());
          return arith::AddIOp::create(b, loc, v, w);
        },
        [&]() { return v; });
    memref::StoreOp::create(b, loc, v1, sums, arith::AddIOp::create(b, loc, dst, tid).getResult());
    gpu::BarrierOp::create(b, loc);
  }
  Value upTo = memref::LoadOp::create(b, loc, sums, tid);
  Value before = arith::SubIOp::create(b, loc, upTo, mine);
  scf::ForOp::create(b, loc, lo, hi, c1, ValueRange{before},
                     [&](OpBuilder &nb, Location l, Value u, ValueRange at) {
                       Value n = memref::LoadOp::create(nb, l, counts, u);
                       memref::StoreOp::create(nb, l, at[0], counts, u);
                       scf::YieldOp::create(
                           nb, l, ValueRange{arith::AddIOp::create(nb, l, at[0], n)});
                     });
  Value total = memref::LoadOp::create(b, loc, sums, c1023);
  gpu::BarrierOp::create(b, loc);
  // Each candidate to the next position of its request.
  strided(nB, [&](Value bIdx) {
    Value u32 = memref::LoadOp::create(b, loc, idx, bIdx);
    Value u = toIndex(u32);
    Value pos32 = select(
        cmp(arith::CmpIPredicate::ult, u, users),
        [&]() { return increment(counts, u); },
        [&]() -> Value {
          return arith::AddIOp::create(b, loc, total, increment(late, c0));
        });
    memref::StoreOp::create(b, loc, toI32(bIdx), order, toIndex(pos32));
  });
}

// With a pairs table: position p of the order is a candidate of request u
// whose positions end at counts[u] (the cursors after the scatter). Pairs
// are counted from that end, (end - 2, end - 1), (end - 4, end - 3), ...:
// p leads when end - p is even (its partner at p + 1), is a partner when
// end - p is odd and p - 1 holds the same request, and runs alone
// otherwise (the first of an odd count; an out-of-range index). The table
// is in the pairing kernel's format (PairCandidatesKernel.h) but indexed by
// position: p + 1 of the partner candidate, 0 alone, -1 partner.
void GroupKernelWriter::writePairs() {
  gpu::BarrierOp::create(b, loc);
  Value minusOne = int32(-1);
  strided(nB, [&](Value p) {
    Value bp = toIndex(memref::LoadOp::create(b, loc, order, p));
    Value u32p = memref::LoadOp::create(b, loc, idx, bp);
    Value up = toIndex(u32p);
    Value role = select(
        cmp(arith::CmpIPredicate::ult, up, users),
        [&]() -> Value {
          Value stop = toIndex(memref::LoadOp::create(b, loc, counts, up));
          Value left = arith::SubIOp::create(b, loc, stop, p);
          Value leads = cmp(arith::CmpIPredicate::eq,
                            arith::RemUIOp::create(b, loc, left, c2), c0);
          return select(
              leads,
              [&]() -> Value {
                Value partner = memref::LoadOp::create(
                    b, loc, order, arith::AddIOp::create(b, loc, p, c1).getResult());
                return arith::AddIOp::create(b, loc, partner, one);
              },
              [&]() -> Value {
                Value notFirst = cmp(arith::CmpIPredicate::ugt, p, c0);
                Value prev = arith::SelectOp::create(
                    b, loc, notFirst, arith::SubIOp::create(b, loc, p, c1), c0);
                Value bPrev = toIndex(memref::LoadOp::create(b, loc, order, prev));
                Value uPrev = memref::LoadOp::create(b, loc, idx, bPrev);
                Value partnerOf = arith::AndIOp::create(
                    b, loc, notFirst, cmp(arith::CmpIPredicate::eq, uPrev, u32p));
                return arith::SelectOp::create(b, loc, partnerOf, minusOne, zero);
              });
        },
        [&]() { return zero; });
    memref::StoreOp::create(b, loc, role, pairs, p);
  });
}
} // namespace

FailureOr<KernelLaunch>
mlir::sc::buildGroupCandidatesKernel(Location loc, gpu::GPUModuleOp gpuModule,
                                     StringRef kernelName,
                                     const GroupCandidatesSpec &spec) {
  bool pairs = !spec.pairs.empty();
  GroupKernelWriter(loc, gpuModule).write(kernelName, pairs);

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = kThreads;
  launch.grid[0] = LaunchDim::of(1);
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = LaunchDim::of(1);
  LaunchParam index, order, pairsTable, users;
  index.tensor = spec.index;
  order.tensor = spec.order;
  pairsTable.tensor = spec.pairs;
  users.kind = LaunchParam::Kind::Dim;
  users.dim = spec.users;
  launch.params = {index, order};
  if (pairs)
    launch.params.push_back(pairsTable);
  launch.params.push_back(users);
  launch.summary =
      llvm::formatv("{0}: puts the candidates in request order (index {1}) "
                    "into {2}, the order the attention's CTAs take them in, "
                    "so that the CTAs running at once read few "
                    "requests' keys and values{3}",
                    kernelName, spec.index, spec.order,
                    pairs ? llvm::formatv(", and pairs neighbours of one "
                                          "request into {0} (by position)",
                                          spec.pairs)
                                .str()
                          : std::string())
          .str();
  return launch;
}
