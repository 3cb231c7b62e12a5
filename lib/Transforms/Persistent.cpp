//===- Persistent.cpp - persistent tile loops in grouped order ------------===//
//
// A grid launch (one CTA per tile) drains each CTA's load pipeline at the end
// of its tile and, when the tiles are not a multiple of the SMs, leaves the
// last wave partly empty. A persistent loop launches one CTA per SM that
// walks tiles with a stride of the CTA count; grouping M tiles keeps the
// tiles that run at the same time on shared rows of A and columns of B.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/Passes.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::sc {
#define GEN_PASS_DEF_SCPERSISTENTPASS
#include "sparcast/Transforms/Passes.h.inc"
} // namespace mlir::sc

using namespace mlir;

namespace {
struct ScPersistentPass : sc::impl::ScPersistentPassBase<ScPersistentPass> {
  using Base::Base;
  void runOnOperation() final {
    // The kernels compute tile coordinates in 32 bits: a group of more M
    // tiles than any GEMM has means one group, and 2^16 is far past that.
    if (group < 1 || group > (int64_t(1) << 16)) {
      emitError(getOperation()->getLoc())
          << "sc-persistent: group must lie in [1, 65536], got "
          << static_cast<int64_t>(group);
      return signalPassFailure();
    }
    getOperation()->walk([&](sck::TileLoopOp loop) {
      // Attention keeps its walk: a persistent attention kernel measured
      // slower than one CTA per tile (docs/decisions.md).
      if (loop.isAttention()) {
        if (report)
          loop.emitRemark()
              << "tile loop: " << sck::stringifyTileSchedule(loop.getSchedule())
              << (loop.getSchedule() == sck::TileSchedule::chained
                      ? " (an attention kernel: resident CTAs, each walking "
                        "its share of the candidates head by head)"
                      : " (an attention kernel: one CTA per tile)");
        return;
      }
      // The hybrid-tiled GEMM keeps one tile a CTA: two CTAs an SM keep its
      // weight bytes in flight (HybridGemmKernel.cpp).
      std::optional<sck::KernelSchedule> schedule = sck::kernelSchedule(loop);
      if (schedule == sck::KernelSchedule::multistage) {
        if (report)
          loop.emitRemark() << "tile loop: grid (a multistage kernel: one "
                               "CTA per tile)";
        return;
      }
      if (schedule == sck::KernelSchedule::hybrid) {
        if (report)
          loop.emitRemark() << "tile loop: grid (a hybrid-tiled GEMM: one "
                               "CTA per tile)";
        return;
      }
      if (loop.getSchedule() == sck::TileSchedule::grid) {
        Builder b(loop.getContext());
        loop.setSchedule(sck::TileSchedule::persistent);
        loop.setGroupAttr(b.getI64IntegerAttr(static_cast<int64_t>(group)));
      }
      if (report)
        loop.emitRemark() << "tile loop: "
                          << sck::stringifyTileSchedule(loop.getSchedule())
                          << ", M tiles in groups of " << loop.getGroup();
    });
  }
};
} // namespace
