//===- PairCandidatesKernel.cpp - candidates of one request in pairs ------===//
//
// One thread per candidate b of request u = idx[b]. A request's slot in
// %waiting holds the one candidate waiting for a partner (plus one), or 0.
// One atomic update both takes and gives: an empty slot gets b (b waits,
// and leads a pair if someone comes), a full one is emptied (b becomes the
// partner of the candidate that waited). So each request's candidates end
// in pairs, plus at most one alone, whatever the order of the index; which
// candidates pair is up to the scheduler, but the attention computes each
// candidate on its own, so the outputs do not depend on it.
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
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %minusOne = arith.constant -1 : i32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c256 : index
    %b = arith.addi %base, %tid : index
    %nB = memref.dim %idx, %c0 : memref<?xi32>
    %nU = memref.dim %waiting, %c0 : memref<?xi32>
    %live = arith.cmpi ult, %b, %nB : index
    scf.if %live {
      %u32 = memref.load %idx[%b] : memref<?xi32>
      // A negative index is a huge unsigned one: out of range, so alone.
      %u = arith.index_cast %u32 : i32 to index
      %known = arith.cmpi ult, %u, %nU : index
      scf.if %known {
        %b32 = arith.index_cast %b : index to i32
        %me = arith.addi %b32, %one : i32
        %before = memref.generic_atomic_rmw %waiting[%u] : memref<?xi32> {
        ^bb0(%cur: i32):
          %empty = arith.cmpi eq, %cur, %zero : i32
          %next = arith.select %empty, %me, %zero : i32
          memref.atomic_yield %next : i32
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
  OwningOpRef<ModuleOp> parsed = detail::parseTemplate(
      gpuModule.getContext(),
      detail::replaceAll(kPairTemplate, {{"KERNEL", kernelName.str()}}));
  if (!parsed)
    return emitError(loc) << "internal error: the pairing kernel template "
                             "does not parse";
  detail::moveKernels(detail::templateModule(*parsed), gpuModule);

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
