//===- CopyKernel.cpp - slice / zero-pad copies for the GPU ---------------===//
//
// One thread per destination element of one dim-0 slice (grid z walks dim
// 0): load from the source box or write zero.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/CopyKernel.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr int64_t kThreads = 256;

/// A copy kernel (src, dst) with its builder inside the thread of element
/// `flat` of dim-0 slice `slice`: CTA (x, z) runs elements x * 256 .. of
/// slice z; threads past `inner` elements do nothing.
struct ElementThread {
  gpu::GPUFuncOp func;
  Value flat, slice;
};

ElementThread beginElementKernel(OpBuilder &b, Location loc,
                                 gpu::GPUModuleOp gpuModule,
                                 StringRef kernelName, const CopySpec &spec,
                                 int64_t inner) {
  MLIRContext *ctx = gpuModule.getContext();
  ctx->loadDialect<arith::ArithDialect, memref::MemRefDialect,
                   scf::SCFDialect>();
  Type element = spec.dstType.getElementType();
  auto srcType = MemRefType::get(spec.srcType.getShape(), element);
  auto dstType = MemRefType::get(spec.dstType.getShape(), element);
  ElementThread t;
  t.func = sc::detail::createKernelFunction(b, loc, gpuModule, kernelName,
                                            {srcType, dstType}, kThreads);
  Value c256 = arith::ConstantIndexOp::create(b, loc, kThreads);
  Value innerSize = arith::ConstantIndexOp::create(b, loc, inner);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  t.slice = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  t.flat = arith::AddIOp::create(b, loc,
                                 arith::MulIOp::create(b, loc, bid, c256), tid);
  Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t.flat,
                                     innerSize);
  auto ifLive = scf::IfOp::create(b, loc, live, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifLive.getThenRegion().front());
  return t;
}

void endElementKernel(OpBuilder &b, Location loc, ElementThread &t) {
  b.setInsertionPointToEnd(&t.func.getBody().front());
  gpu::ReturnOp::create(b, loc);
}

/// `flat` as row-major indices (1 .. r-1) of `shape`, dim 0 `slice`.
SmallVector<Value> indicesOf(OpBuilder &b, Location loc, Value flat,
                             Value slice, RankedTensorType shape) {
  int64_t rank = shape.getRank();
  SmallVector<Value> at(rank);
  at[0] = slice;
  Value rest = flat;
  for (int64_t d = rank - 1; d >= 1; --d) {
    Value size = arith::ConstantIndexOp::create(b, loc, shape.getDimSize(d));
    at[d] = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return at;
}

/// The kernel: thread `flat` of CTA (x, z) writes destination element
/// (z, flat's row-major inner indices): the source's at `offsets` past it
/// when inside `extent`, else zero.
void writeCopyKernel(Location loc, gpu::GPUModuleOp gpuModule,
                     StringRef kernelName, const CopySpec &spec,
                     int64_t inner) {
  OpBuilder b(gpuModule.getContext());
  ElementThread t =
      beginElementKernel(b, loc, gpuModule, kernelName, spec, inner);
  Type element = spec.dstType.getElementType();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t rank = spec.dstType.getRank();
  SmallVector<Value> at = indicesOf(b, loc, t.flat, t.slice, spec.dstType);
  // Inside the source box in every dim where it is smaller than the
  // destination.
  Value inside = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t extent = spec.extent[d];
    if (ShapedType::isDynamic(extent) || extent == spec.dstType.getDimSize(d))
      continue;
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at[d],
                                     index(extent));
    inside = arith::AndIOp::create(b, loc, inside, lt);
  }
  auto ifInside = scf::IfOp::create(b, loc, TypeRange{element}, inside,
                                    /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifInside.getThenRegion().front());
    SmallVector<Value> from;
    for (int64_t d = 0; d < rank; ++d)
      from.push_back(arith::AddIOp::create(b, loc, at[d], index(spec.offsets[d])));
    Value x = memref::LoadOp::create(b, loc, t.func.getArgument(0), from);
    scf::YieldOp::create(b, loc, x);
    b.setInsertionPointToStart(&ifInside.getElseRegion().front());
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    scf::YieldOp::create(b, loc, zero);
  }
  memref::StoreOp::create(b, loc, ifInside.getResult(0), t.func.getArgument(1),
                          at);
  endElementKernel(b, loc, t);
}

/// The kernel of a concat's piece: thread `flat` of CTA (x, z) copies
/// source element (z, flat's row-major inner indices) to the destination at
/// `dstOffsets` past it.
void writeInsertKernel(Location loc, gpu::GPUModuleOp gpuModule,
                       StringRef kernelName, const CopySpec &spec,
                       int64_t inner) {
  OpBuilder b(gpuModule.getContext());
  ElementThread t =
      beginElementKernel(b, loc, gpuModule, kernelName, spec, inner);
  SmallVector<Value> at = indicesOf(b, loc, t.flat, t.slice, spec.srcType);
  SmallVector<Value> to;
  for (auto [d, index] : llvm::enumerate(at))
    to.push_back(arith::AddIOp::create(
        b, loc, index,
        arith::ConstantIndexOp::create(b, loc, spec.dstOffsets[d])));
  Value x = memref::LoadOp::create(b, loc, t.func.getArgument(0), at);
  memref::StoreOp::create(b, loc, x, t.func.getArgument(1), to);
  endElementKernel(b, loc, t);
}
} // namespace

FailureOr<KernelLaunch> mlir::sc::buildCopyKernel(Location loc,
                                                  gpu::GPUModuleOp gpuModule,
                                                  StringRef kernelName,
                                                  const CopySpec &spec) {
  int64_t rank = spec.dstType.getRank();
  if (rank < 2 || rank > 3 || spec.srcType.getRank() != rank)
    return emitError(loc) << "copy kernels take rank 2 or 3 tensors";
  for (int64_t d = 1; d < rank; ++d)
    if (spec.dstType.isDynamicDim(d) || spec.srcType.isDynamicDim(d))
      return emitError(loc) << "copy kernels need static inner dims";
  Type element = spec.dstType.getElementType();
  if (!isa<FloatType>(element))
    return emitError(loc) << "copy kernels copy float tensors";

  bool insert = !spec.dstOffsets.empty();
  if (insert) {
    if (int64_t(spec.dstOffsets.size()) != rank || spec.dstOffsets[0] != 0)
      return emitError(loc) << "a concat's piece goes at offsets past dim 0";
    for (int64_t d = 1; d < rank; ++d)
      if (spec.dstOffsets[d] < 0 || spec.dstOffsets[d] + spec.srcType.getDimSize(d) >
                                        spec.dstType.getDimSize(d))
        return emitError(loc) << "a concat's piece past its destination";
  }
  // One thread per element of a dim-0 slice: the destination's, or the
  // source's for a concat's piece.
  RankedTensorType walked = insert ? spec.srcType : spec.dstType;
  int64_t inner = 1;
  for (int64_t d = 1; d < rank; ++d)
    inner *= walked.getDimSize(d);
  if (insert)
    writeInsertKernel(loc, gpuModule, kernelName, spec, inner);
  else
    writeCopyKernel(loc, gpuModule, kernelName, spec, inner);

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = kThreads;
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(inner, kThreads));
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = spec.batch;
  launch.params = {LaunchParam::memref(spec.src), LaunchParam::memref(spec.dst)};
  std::string shape;
  for (int64_t d = 0; d < rank; ++d)
    shape += (d ? "x" : "") + (spec.dstType.isDynamicDim(d)
                                   ? std::string("?")
                                   : std::to_string(spec.dstType.getDimSize(d)));
  launch.summary =
      insert ? llvm::formatv("{0}: copy {1} into {2} ({3}) at dim-1.. offsets",
                             kernelName, spec.src, spec.dst, shape)
                   .str()
             : llvm::formatv("{0}: copy {1} -> {2} ({3}, zero outside the "
                             "source box)",
                             kernelName, spec.src, spec.dst, shape)
                   .str();
  return launch;
}
