//===- ConvertKernel.cpp - element type conversion of a tensor ------------===//
//
// A fixed grid walks the tensor as one flat array (grid-stride loop), eight
// elements a thread a step: 16-byte loads and stores, whatever the dims. On
// the H200 it converts 4x16x16384x128 bf16 in 131 us, torch's same-dtype
// device-to-device copy of it takes 127 us (bench/kernel_times.py; four
// loads a thread in flight instead of one: no faster).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/ConvertKernel.h"
#include "TemplateUtils.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;
using mlir::sc::detail::replaceAll;
using mlir::sc::detail::typeToString;

namespace {
constexpr int64_t kThreads = 256;
// Enough CTAs to fill an H200 several times over; each loops over the rest.
constexpr int64_t kBlocks = 1056;

constexpr const char *kConvertTemplate = R"mlir(
gpu.module @scratch {
  gpu.func @$KERNEL(%src: $SRC, %dst: $DST) kernel
      attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %flatSrc = memref.collapse_shape %src [$DIMS] : $SRC into $FLATS
    %flatDst = memref.collapse_shape %dst [$DIMS] : $DST into $FLATD
    %n = memref.dim %flatSrc, %c0 : $FLATS
    %vectors = arith.divui %n, %c8 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %blocks = gpu.grid_dim x
    %first0 = arith.muli %bid, %c256 : index
    %first = arith.addi %first0, %tid : index
    %stride = arith.muli %blocks, %c256 : index
    scf.for %i = %first to %vectors step %stride {
      // 16 bytes at a multiple of 16 (the runtime checks that every tensor
      // is 16-byte aligned): one 128-bit access each way.
      %e = arith.muli %i, %c8 : index
      %x = vector.load %flatSrc[%e] {alignment = 16} : $FLATS, vector<8x$ST>
      %wide = arith.extf %x : vector<8x$ST> to vector<8xf32>
      %y = arith.truncf %wide : vector<8xf32> to vector<8x$DT>
      vector.store %y, %flatDst[%e] {alignment = 16} : $FLATD, vector<8x$DT>
    }
    gpu.return
  }
}
)mlir";
} // namespace

FailureOr<KernelLaunch> mlir::sc::buildConvertKernel(Location loc,
                                                     gpu::GPUModuleOp gpuModule,
                                                     StringRef kernelName,
                                                     const ConvertSpec &spec) {
  auto isConvertible = [](Type t) { return t.isF16() || t.isBF16(); };
  Type from = spec.srcType.getElementType(), to = spec.dstType.getElementType();
  if (!isConvertible(from) || !isConvertible(to) ||
      spec.srcType.getShape() != spec.dstType.getShape())
    return emitError(loc) << "convert kernels take f16/bf16 tensors of one "
                             "shape";
  int64_t rank = spec.srcType.getRank();
  int64_t inner = spec.srcType.getDimSize(rank - 1);
  if (ShapedType::isDynamic(inner) || inner % 8 != 0)
    return emitError(loc) << "convert kernels need a static innermost dim, "
                             "a multiple of 8";
  std::string dims;
  for (int64_t d = 0; d < rank; ++d)
    dims += (d ? ", " : "[") + std::to_string(d);
  dims += "]";
  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["SRC"] = typeToString(MemRefType::get(spec.srcType.getShape(), from));
  values["DST"] = typeToString(MemRefType::get(spec.dstType.getShape(), to));
  values["ST"] = typeToString(from);
  values["DT"] = typeToString(to);
  values["DIMS"] = dims;
  // The flat size: static when every dim is.
  std::string flat = spec.srcType.hasStaticShape()
                         ? std::to_string(spec.srcType.getNumElements())
                         : std::string("?");
  values["FLATS"] = "memref<" + flat + "x" + typeToString(from) + ">";
  values["FLATD"] = "memref<" + flat + "x" + typeToString(to) + ">";
  if (failed(detail::installTemplate(
          loc, gpuModule, replaceAll(kConvertTemplate, values), "convert")))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = kThreads;
  launch.grid[0] = LaunchDim::of(kBlocks);
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = LaunchDim::of(1);
  LaunchParam src, dst;
  src.tensor = spec.src;
  dst.tensor = spec.dst;
  launch.params = {src, dst};
  launch.summary = llvm::formatv("{0}: convert {1} ({2}) -> {3} ({4}), 8 "
                                 "elements a thread a step",
                                 kernelName, spec.src, typeToString(from),
                                 spec.dst, typeToString(to))
                       .str();
  return launch;
}
