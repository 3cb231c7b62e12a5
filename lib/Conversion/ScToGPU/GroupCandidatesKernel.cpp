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
#include "TemplateUtils.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr const char *kGroupTemplate = R"mlir(
!counts = memref<8192xi32, #gpu.address_space<workgroup>>
!sums = memref<2048xi32, #gpu.address_space<workgroup>>
!late = memref<1xi32, #gpu.address_space<workgroup>>
gpu.module @scratch {
  gpu.func @$KERNEL(%idx: memref<?xi32>, %order: memref<?xi32>$PAIRS_PARAM, %users: index)
      workgroup(%counts: !counts, %sums: !sums, %late: !late)
      kernel attributes {nvvm.maxntid = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c10 = arith.constant 10 : index
    %c1023 = arith.constant 1023 : index
    %c1024 = arith.constant 1024 : index
    %c8192 = arith.constant 8192 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %nB = memref.dim %idx, %c0 : memref<?xi32>
    %many = arith.cmpi ugt, %users, %c8192 : index
    scf.if %many {
      // More requests than the shared counts hold (each then has few
      // candidates to share keys between): the index's own order, and
      // every candidate alone.
      scf.for %b = %tid to %nB step %c1024 {
        %b32 = arith.index_cast %b : index to i32
        memref.store %b32, %order[%b] : memref<?xi32>
$PAIRS_ALONE      }
    } else {
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.for %u = %tid to %users step %c1024 {
        memref.store %zero, %counts[%u] : !counts
      }
      scf.if %first {
        memref.store %zero, %late[%c0] : !late
      }
      gpu.barrier
      // Candidates per request. A negative index is a huge unsigned one:
      // out of range, so not counted (such candidates go last).
      scf.for %b = %tid to %nB step %c1024 {
        %u32 = memref.load %idx[%b] : memref<?xi32>
        %u = arith.index_cast %u32 : i32 to index
        %in = arith.cmpi ult, %u, %users : index
        scf.if %in {
          %was = memref.atomic_rmw addi %one, %counts[%u] : (i32, !counts) -> i32
        }
      }
      gpu.barrier
      // Exclusive prefix sum over the counts: thread t's share is requests
      // [t s, t s + s), s = ceil(U / 1024) <= 8.
      %shareUp = arith.addi %users, %c1023 : index
      %share = arith.divui %shareUp, %c1024 : index
      %lo0 = arith.muli %tid, %share : index
      %lo = arith.minui %lo0, %users : index
      %hi0 = arith.addi %lo0, %share : index
      %hi = arith.minui %hi0, %users : index
      %mine = scf.for %u = %lo to %hi step %c1 iter_args(%s = %zero) -> (i32) {
        %n = memref.load %counts[%u] : !counts
        %s1 = arith.addi %s, %n : i32
        scf.yield %s1 : i32
      }
      memref.store %mine, %sums[%tid] : !sums
      gpu.barrier
      // Inclusive scan of the 1024 shares (Hillis-Steele, ten steps between
      // the two halves of %sums: an even count ends in the first).
      scf.for %k = %c0 to %c10 step %c1 {
        %kOdd = arith.remui %k, %c2 : index
        %src = arith.muli %kOdd, %c1024 : index
        %dst = arith.subi %c1024, %src : index
        %k32 = arith.index_cast %k : index to i32
        %d32 = arith.shli %one, %k32 : i32
        %d = arith.index_cast %d32 : i32 to index
        %at = arith.addi %src, %tid : index
        %v = memref.load %sums[%at] : !sums
        %has = arith.cmpi uge, %tid, %d : index
        %v1 = scf.if %has -> (i32) {
          %from = arith.subi %at, %d : index
          %w = memref.load %sums[%from] : !sums
          %vw = arith.addi %v, %w : i32
          scf.yield %vw : i32
        } else {
          scf.yield %v : i32
        }
        %to = arith.addi %dst, %tid : index
        memref.store %v1, %sums[%to] : !sums
        gpu.barrier
      }
      %upTo = memref.load %sums[%tid] : !sums
      %before = arith.subi %upTo, %mine : i32
      %end = scf.for %u = %lo to %hi step %c1 iter_args(%at = %before) -> (i32) {
        %n = memref.load %counts[%u] : !counts
        memref.store %at, %counts[%u] : !counts
        %next = arith.addi %at, %n : i32
        scf.yield %next : i32
      }
      %total = memref.load %sums[%c1023] : !sums
      gpu.barrier
      // Each candidate to the next position of its request.
      scf.for %b = %tid to %nB step %c1024 {
        %u32 = memref.load %idx[%b] : memref<?xi32>
        %u = arith.index_cast %u32 : i32 to index
        %in = arith.cmpi ult, %u, %users : index
        %pos32 = scf.if %in -> (i32) {
          %p = memref.atomic_rmw addi %one, %counts[%u] : (i32, !counts) -> i32
          scf.yield %p : i32
        } else {
          %l = memref.atomic_rmw addi %one, %late[%c0] : (i32, !late) -> i32
          %p = arith.addi %total, %l : i32
          scf.yield %p : i32
        }
        %pos = arith.index_cast %pos32 : i32 to index
        %b32 = arith.index_cast %b : index to i32
        memref.store %b32, %order[%pos] : memref<?xi32>
      }
$PAIRS_BODY    }
    gpu.return
  }
}
)mlir";
// With a pairs table: position p of the order is a candidate of request u
// whose positions end at %counts[u] (the cursors after the scatter). Pairs
// are counted from that end, (end - 2, end - 1), (end - 4, end - 3), ...:
// p leads when end - p is even (its partner at p + 1), is a partner when
// end - p is odd and p - 1 holds the same request, and runs alone
// otherwise (the first of an odd count; an out-of-range index). The table
// is in the pairing kernel's format (PairCandidatesKernel.h) but indexed by
// position: p + 1 of the partner candidate, 0 alone, -1 partner.
constexpr const char *kPairsBody = R"mlir(
      gpu.barrier
      %minusOne = arith.constant -1 : i32
      scf.for %p = %tid to %nB step %c1024 {
        %b32p = memref.load %order[%p] : memref<?xi32>
        %bp = arith.index_cast %b32p : i32 to index
        %u32p = memref.load %idx[%bp] : memref<?xi32>
        %up = arith.index_cast %u32p : i32 to index
        %inP = arith.cmpi ult, %up, %users : index
        %role = scf.if %inP -> (i32) {
          %stop32 = memref.load %counts[%up] : !counts
          %stop = arith.index_cast %stop32 : i32 to index
          %left = arith.subi %stop, %p : index
          %leftOdd = arith.remui %left, %c2 : index
          %leads = arith.cmpi eq, %leftOdd, %c0 : index
          %r = scf.if %leads -> (i32) {
            %next = arith.addi %p, %c1 : index
            %partner = memref.load %order[%next] : memref<?xi32>
            %partner1 = arith.addi %partner, %one : i32
            scf.yield %partner1 : i32
          } else {
            %notFirst = arith.cmpi ugt, %p, %c0 : index
            %pm = arith.subi %p, %c1 : index
            %prev = arith.select %notFirst, %pm, %c0 : index
            %bPrev32 = memref.load %order[%prev] : memref<?xi32>
            %bPrev = arith.index_cast %bPrev32 : i32 to index
            %uPrev = memref.load %idx[%bPrev] : memref<?xi32>
            %same = arith.cmpi eq, %uPrev, %u32p : i32
            %partnerOf = arith.andi %notFirst, %same : i1
            %r1 = arith.select %partnerOf, %minusOne, %zero : i32
            scf.yield %r1 : i32
          }
          scf.yield %r : i32
        } else {
          scf.yield %zero : i32
        }
        memref.store %role, %pairs[%p] : memref<?xi32>
      }
)mlir";
} // namespace

FailureOr<KernelLaunch>
mlir::sc::buildGroupCandidatesKernel(Location loc, gpu::GPUModuleOp gpuModule,
                                     StringRef kernelName,
                                     const GroupCandidatesSpec &spec) {
  bool pairs = !spec.pairs.empty();
  if (failed(detail::installTemplate(
          loc, gpuModule,
          detail::replaceAll(
              kGroupTemplate,
              {{"KERNEL", kernelName.str()},
               {"PAIRS_PARAM", pairs ? ", %pairs: memref<?xi32>" : ""},
               {"PAIRS_BODY", pairs ? kPairsBody : ""},
               {"PAIRS_ALONE",
                pairs ? "        memref.store %zero, %pairs[%b] : memref<?xi32>\n"
                      : ""}}),
          "grouping")))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 1024;
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
