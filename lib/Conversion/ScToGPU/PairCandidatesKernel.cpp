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
#include "TemplateUtils.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr const char *kPairTemplate = R"mlir(
gpu.module @scratch {
  gpu.func @$KERNEL(%idx: memref<?xi32>, %waiting: memref<?xi32>, %pairs: memref<?xi32>) kernel
      attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c31 = arith.constant 31 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %minusOne = arith.constant -1 : i32
    %true = arith.constant true
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c256 : index
    %b = arith.addi %base, %tid : index
    %nB = memref.dim %idx, %c0 : memref<?xi32>
    %nU = memref.dim %waiting, %c0 : memref<?xi32>
    %live = arith.cmpi ult, %b, %nB : index
    %bc = arith.select %live, %b, %c0 : index
    %u32 = memref.load %idx[%bc] : memref<?xi32>
    // A negative index is a huge unsigned one: out of range, so alone.
    %u = arith.index_cast %u32 : i32 to index
    %inU = arith.cmpi ult, %u, %nU : index
    %known = arith.andi %live, %inU : i1
    // Every lane takes part in the match; one without a request matches
    // nothing (a negative key of its own).
    %laneI = arith.andi %tid, %c31 : index
    %lane = arith.index_cast %laneI : index to i32
    %own = arith.subi %minusOne, %lane : i32
    %key = arith.select %known, %u32, %own : i32
    %group = nvvm.match.sync any %minusOne, %key : i32 -> i32
    %bit = arith.shli %one, %lane : i32
    %belowMask = arith.subi %bit, %one : i32
    %below = arith.andi %group, %belowMask : i32
    %rank = llvm.intr.ctpop(%below) : (i32) -> i32
    %rankOdd = arith.andi %rank, %one : i32
    %leads = arith.cmpi eq, %rankOdd, %zero : i32
    // The next lane of the group above this one, if any.
    %upTo = arith.shli %two, %lane : i32
    %upToMask = arith.subi %upTo, %one : i32
    %notUpTo = arith.xori %upToMask, %minusOne : i32
    %above = arith.andi %group, %notUpTo : i32
    %hasAbove = arith.cmpi ne, %above, %zero : i32
    %negAbove = arith.subi %zero, %above : i32
    %next = arith.andi %above, %negAbove : i32
    %nextMask = arith.subi %next, %one : i32
    %nextLane = llvm.intr.ctpop(%nextMask) : (i32) -> i32
    %leadsKnown = arith.andi %leads, %known : i1
    %pairsHere = arith.andi %leadsKnown, %hasAbove : i1
    %noAbove = arith.xori %hasAbove, %true : i1
    %leftOver = arith.andi %leadsKnown, %noAbove : i1
    %b32 = arith.index_cast %b : index to i32
    %me = arith.addi %b32, %one : i32
    scf.if %pairsHere {
      %laneGap = arith.subi %nextLane, %lane : i32
      %partner32 = arith.addi %b32, %laneGap : i32
      %partnerPlus = arith.addi %partner32, %one : i32
      %partner = arith.index_cast %partner32 : i32 to index
      memref.store %partnerPlus, %pairs[%b] : memref<?xi32>
      memref.store %minusOne, %pairs[%partner] : memref<?xi32>
    }
    scf.if %leftOver {
      // Relaxed, device scope: the slot's value is all that is shared; the
      // attention kernel reads the table after this kernel ends.
      %slots = memref.extract_aligned_pointer_as_index %waiting : memref<?xi32> -> index
      %slotOff = arith.muli %u, %c4 : index
      %slotAddr = arith.addi %slots, %slotOff : index
      %slotAddr64 = arith.index_cast %slotAddr : index to i64
      %slot = llvm.inttoptr %slotAddr64 : i64 to !llvm.ptr<1>
      %seen = llvm.load %slot atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> i32
      %before = scf.while (%cur = %seen) : (i32) -> i32 {
        %empty = arith.cmpi eq, %cur, %zero : i32
        %give = arith.select %empty, %me, %zero : i32
        %swap = llvm.cmpxchg %slot, %cur, %give syncscope("device") monotonic monotonic : !llvm.ptr<1>, i32
        %old = llvm.extractvalue %swap[0] : !llvm.struct<(i32, i1)>
        %done = llvm.extractvalue %swap[1] : !llvm.struct<(i32, i1)>
        %again = arith.xori %done, %true : i1
        scf.condition(%again) %old : i32
      } do {
      ^bb0(%old: i32):
        scf.yield %old : i32
      }
      // Someone waited: b is its partner.
      %took = arith.cmpi ne, %before, %zero : i32
      scf.if %took {
        %leader32 = arith.subi %before, %one : i32
        %leader = arith.index_cast %leader32 : i32 to index
        memref.store %me, %pairs[%leader] : memref<?xi32>
        memref.store %minusOne, %pairs[%b] : memref<?xi32>
      }
    }
    gpu.return
  }
}
)mlir";
} // namespace

FailureOr<KernelLaunch>
mlir::sc::buildPairCandidatesKernel(Location loc, gpu::GPUModuleOp gpuModule,
                                    StringRef kernelName,
                                    const PairCandidatesSpec &spec) {
  if (failed(detail::installTemplate(
          loc, gpuModule,
          detail::replaceAll(kPairTemplate, {{"KERNEL", kernelName.str()}}),
          "pairing")))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 256;
  launch.grid[0] = spec.batch.symbol.empty()
                       ? LaunchDim::of(llvm::divideCeil(spec.batch.constant, 256))
                       : LaunchDim::ceilDiv(spec.batch.symbol, 256);
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
