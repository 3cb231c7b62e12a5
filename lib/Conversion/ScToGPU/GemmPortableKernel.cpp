//===- GemmPortableKernel.cpp - the portable GEMM kernel ------------------===//
//
// One thread per output element, fp32 accumulation over K, the op's
// epilogue: correct for every shape, layout and element type the op allows
// (summed rows added atomically); used for sm_80 and where the Hopper
// kernels do not apply.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
constexpr int64_t kThreads = 256;

/// The kernel (A, B, C, epilogue operands...): thread `flat` of CTA (x, z)
/// computes C[z][flat / N][flat % N] as an fp32 sum over K, then the
/// epilogue function (`<kernel>_epilogue`, from the op's region).
LogicalResult writePortableKernel(BatchMatmulOp op, gpu::GPUModuleOp gpuModule,
                                  StringRef kernelName) {
  MLIRContext *ctx = op.getContext();
  ctx->loadDialect<arith::ArithDialect, func::FuncDialect,
                   memref::MemRefDialect, scf::SCFDialect>();
  Location loc = op.getLoc();
  GemmShape shape(op);
  int64_t m = shape.m, n = shape.n, k = shape.k;
  bool lhsBatched = shape.lhsBatched, rhsBatched = shape.rhsBatched;
  OpBuilder b(ctx);
  FailureOr<std::pair<gpu::GPUFuncOp, func::FuncOp>> kernel =
      createMemrefGemmKernel(op, gpuModule, kernelName, kThreads,
                             op.getEpilogueBlock(), b);
  if (failed(kernel))
    return failure();
  gpu::GPUFuncOp func = kernel->first;
  func::FuncOp epilogue = kernel->second;
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value c0 = index(0), c1 = index(1), c256 = index(kThreads);
  Value cM = index(m), cN = index(n), cK = index(k);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  Value flat = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, c256), tid);
  Value row = arith::DivUIOp::create(b, loc, flat, cN);
  Value col = arith::RemUIOp::create(b, loc, flat, cN);
  Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, cM);
  auto ifIn = scf::IfOp::create(b, loc, in, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifIn.getThenRegion().front());
  bool isF32 = op.getLhs().getType().getElementType().isF32();
  auto widen = [&](OpBuilder &nb, Location l, Value v) -> Value {
    return isF32 ? arith::AddFOp::create(nb, l, v, zero).getResult()
                 : arith::ExtFOp::create(nb, l, nb.getF32Type(), v).getResult();
  };
  auto sum = scf::ForOp::create(
      b, loc, c0, cK, c1, ValueRange{zero},
      [&](OpBuilder &nb, Location l, Value kk, ValueRange acc) {
        SmallVector<Value> aAt = {row, kk};
        if (lhsBatched)
          aAt.insert(aAt.begin(), batch);
        SmallVector<Value> bAt = op.getTransposeRhs()
                                     ? SmallVector<Value>{col, kk}
                                     : SmallVector<Value>{kk, col};
        if (rhsBatched)
          bAt.insert(bAt.begin(), batch);
        Value av = memref::LoadOp::create(nb, l, func.getArgument(0), aAt);
        Value bv = memref::LoadOp::create(nb, l, func.getArgument(1), bAt);
        Value p = arith::MulFOp::create(nb, l, widen(nb, l, av), widen(nb, l, bv));
        scf::YieldOp::create(nb, l,
                             ValueRange{arith::AddFOp::create(nb, l, acc[0], p)});
      });
  SmallVector<Value> args = {sum.getResult(0), batch, row, col};
  for (unsigned i = 3; i < func.getNumArguments(); ++i)
    args.push_back(func.getArgument(i));
  Value result = func::CallOp::create(b, loc, epilogue, args).getResult(0);
  if (op.getSumRows()) {
    // The element as rounded, added in f32 into its column's sum (the
    // result zeroed before the launch).
    Value wide = result.getType().isF32()
                     ? result
                     : arith::ExtFOp::create(b, loc, b.getF32Type(), result);
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, wide,
                                func.getArgument(2), ValueRange{batch, c0, col});
  } else {
    memref::StoreOp::create(b, loc, result, func.getArgument(2),
                            ValueRange{batch, row, col});
  }
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  return success();
}
} // namespace

FailureOr<KernelLaunch>
mlir::sc::detail::buildPortableGemmKernel(BatchMatmulOp op,
                                          gpu::GPUModuleOp gpuModule,
                                          StringRef kernelName,
                                          const GemmBinding &binding) {
  RankedTensorType resultType = op.getType();
  GemmShape shape(op);
  int64_t m = shape.m, n = shape.n, k = shape.k;
  if (failed(writePortableKernel(op, gpuModule, kernelName)))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = kThreads;
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(m * n, kThreads));
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = binding.batchOf(resultType);
  launch.params = memrefGemmParams(binding);
  launch.summary =
      llvm::formatv("{0}: {1}x{2}x{3} {4}, portable path (one thread per "
                    "output, fp32 accumulation), block 256, grid {5}x1x{6}",
                    kernelName, m, n, k, op.getLhs().getType().getElementType(),
                    launch.grid[0].constant,
                    launch.grid[2].symbol.empty()
                        ? std::to_string(launch.grid[2].constant)
                        : launch.grid[2].symbol)
          .str();
  return launch;
}
