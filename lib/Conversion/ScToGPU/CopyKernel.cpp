//===- CopyKernel.cpp - slice / zero-pad copies for the GPU ---------------===//
//
// One thread per destination element of one dim-0 slice (grid z walks dim
// 0): load from the source box or write zero.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/CopyKernel.h"
#include "TemplateUtils.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;
using mlir::sc::detail::replaceAll;
using mlir::sc::detail::typeToString;

namespace {
constexpr const char *kCopyTemplate = R"mlir(
gpu.module @scratch {
  gpu.func @$KERNEL(%src: $SRC, %dst: $DST) kernel
      attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    %c256 = arith.constant 256 : index
    %inner = arith.constant $INNER : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %i0 = gpu.block_id z
    %base = arith.muli %bid, %c256 : index
    %flat = arith.addi %base, %tid : index
    %live = arith.cmpi ult, %flat, %inner : index
    scf.if %live {
$INDICES
      %true = arith.constant true
$INSIDE
      %v = scf.if %inside -> ($T) {
$SOURCE
        %x = memref.load %src[$SRCIDX] : $SRC
        scf.yield %x : $T
      } else {
        %zero = arith.constant 0.0 : $T
        scf.yield %zero : $T
      }
      memref.store %v, %dst[$DSTIDX] : $DST
    }
    gpu.return
  }
}
)mlir";
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

  // flat -> (i1, ..., i_{r-1}), row-major over the destination's inner dims.
  int64_t inner = 1;
  for (int64_t d = 1; d < rank; ++d)
    inner *= spec.dstType.getDimSize(d);
  std::string indices, inside;
  std::string rest = "%flat";
  for (int64_t d = rank - 1; d >= 1; --d) {
    int64_t size = spec.dstType.getDimSize(d);
    indices += llvm::formatv("      %sz{0} = arith.constant {1} : index\n"
                             "      %i{0} = arith.remui {2}, %sz{0} : index\n"
                             "      %q{0} = arith.divui {2}, %sz{0} : index\n",
                             d, size, rest)
                   .str();
    rest = "%q" + std::to_string(d);
  }
  // Inside the box in every dim with an extent smaller than the destination.
  inside = "      %in_start = arith.constant true\n";
  std::string last = "%in_start";
  for (int64_t d = 0; d < rank; ++d) {
    int64_t extent = spec.extent[d];
    if (ShapedType::isDynamic(extent) || extent == spec.dstType.getDimSize(d))
      continue;
    inside += llvm::formatv("      %ext{0} = arith.constant {1} : index\n"
                            "      %lt{0} = arith.cmpi ult, %i{0}, %ext{0} : index\n"
                            "      %in{0} = arith.andi {2}, %lt{0} : i1\n",
                            d, extent, last)
                  .str();
    last = "%in" + std::to_string(d);
  }
  inside += "      %inside = arith.andi " + last + ", %true : i1\n";
  std::string source, srcIdx, dstIdx;
  for (int64_t d = 0; d < rank; ++d) {
    source += llvm::formatv("        %off{0} = arith.constant {1} : index\n"
                            "        %s{0} = arith.addi %i{0}, %off{0} : index\n",
                            d, spec.offsets[d])
                  .str();
    srcIdx += (d ? ", %s" : "%s") + std::to_string(d);
    dstIdx += (d ? ", %i" : "%i") + std::to_string(d);
  }
  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["SRC"] = typeToString(
      MemRefType::get(spec.srcType.getShape(), spec.srcType.getElementType()));
  values["DST"] = typeToString(
      MemRefType::get(spec.dstType.getShape(), spec.dstType.getElementType()));
  values["T"] = typeToString(element);
  values["INNER"] = std::to_string(inner);
  values["INDICES"] = indices;
  values["INSIDE"] = inside;
  values["SOURCE"] = source;
  values["SRCIDX"] = srcIdx;
  values["DSTIDX"] = dstIdx;
  if (failed(detail::installTemplate(
          loc, gpuModule, replaceAll(kCopyTemplate, values), "copy")))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 256;
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(inner, 256));
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = spec.batch;
  LaunchParam src, dst;
  src.tensor = spec.src;
  dst.tensor = spec.dst;
  launch.params = {src, dst};
  std::string shape;
  for (int64_t d = 0; d < rank; ++d)
    shape += (d ? "x" : "") + (spec.dstType.isDynamicDim(d)
                                   ? std::string("?")
                                   : std::to_string(spec.dstType.getDimSize(d)));
  launch.summary = llvm::formatv("{0}: copy {1} -> {2} ({3}, zero outside the "
                                 "source box)",
                                 kernelName, spec.src, spec.dst, shape)
                       .str();
  return launch;
}
