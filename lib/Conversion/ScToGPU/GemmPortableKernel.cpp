//===- GemmPortableKernel.cpp - the portable GEMM kernel ------------------===//
//
// One thread per output element, fp32 accumulation over K, the op's
// epilogue: correct for every shape, layout and element type the op allows;
// used for sm_80 and where the Hopper kernels do not apply.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "TemplateUtils.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
constexpr const char *kSimtTemplate = R"mlir(
gpu.module @scratch {
  gpu.func @$KERNEL(%A: $ATYPE, %B: $BTYPE, %C: $CTYPE$EPI_PARAMS) kernel
      attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %cM = arith.constant $M : index
    %cN = arith.constant $N : index
    %cK = arith.constant $K : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %b = gpu.block_id z
    %base = arith.muli %bid, %c256 : index
    %flat = arith.addi %base, %tid : index
    %m = arith.divui %flat, %cN : index
    %n = arith.remui %flat, %cN : index
    %in = arith.cmpi ult, %m, %cM : index
    scf.if %in {
      %acc = scf.for %k = %c0 to %cK step %c1 iter_args(%sum = %zero) -> (f32) {
        %a = memref.load %A[$AIDX] : $ATYPE
        %x = memref.load %B[$BIDX] : $BTYPE
        %af = $AEXT
        %xf = $BEXT
        %p = arith.mulf %af, %xf : f32
        %s = arith.addf %sum, %p : f32
        scf.yield %s : f32
      }
      %o = func.call @$KERNEL_epilogue(%acc, %b, %m, %n$EPI_ARGS) : (f32, index, index, index$EPI_TYPES) -> $OUT
      memref.store %o, %C[%b, %m, %n] : $CTYPE
    }
    gpu.return
  }

  func.func private @$KERNEL_epilogue(f32, index, index, index$EPI_TYPES) -> $OUT
}
)mlir";
} // namespace

FailureOr<KernelLaunch>
mlir::sc::detail::buildPortableGemmKernel(BatchMatmulOp op,
                                          gpu::GPUModuleOp gpuModule,
                                          StringRef kernelName,
                                          const GemmBinding &binding) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  RankedTensorType resultType = op.getType();
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);
  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["ATYPE"] = typeToString(memrefOf(lhsType));
  values["BTYPE"] = typeToString(memrefOf(rhsType));
  values["CTYPE"] = typeToString(memrefOf(resultType));
  values["OUT"] = typeToString(resultType.getElementType());
  values["M"] = std::to_string(m);
  values["N"] = std::to_string(n);
  values["K"] = std::to_string(k);
  values["AIDX"] = lhsBatched ? "%b, %m, %k" : "%m, %k";
  std::string bIdx = op.getTransposeRhs() ? "%n, %k" : "%k, %n";
  values["BIDX"] = rhsBatched ? "%b, " + bIdx : bIdx;
  bool isF32 = lhsType.getElementType().isF32();
  std::string t = typeToString(lhsType.getElementType());
  values["AEXT"] = isF32 ? "arith.addf %a, %zero : f32"
                         : "arith.extf %a : " + t + " to f32";
  values["BEXT"] = isF32 ? "arith.addf %x, %zero : f32"
                         : "arith.extf %x : " + t + " to f32";
  epilogueText(op, values);
  if (failed(installKernel(op, gpuModule, kernelName,
                           replaceAll(kSimtTemplate, values))))
    return failure();

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 256;
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(m * n, 256));
  launch.grid[1] = LaunchDim::of(1);
  launch.grid[2] = binding.batchOf(resultType);
  for (const std::string &name : {binding.lhs, binding.rhs, binding.result}) {
    LaunchParam p;
    p.tensor = name;
    launch.params.push_back(p);
  }
  for (const std::string &name : binding.epilogueIns) {
    LaunchParam p;
    p.tensor = name;
    launch.params.push_back(p);
  }
  launch.summary =
      llvm::formatv("{0}: {1}x{2}x{3} {4}, portable path (one thread per "
                    "output, fp32 accumulation), block 256, grid {5}x1x{6}",
                    kernelName, m, n, k, t, launch.grid[0].constant,
                    launch.grid[2].symbol.empty()
                        ? std::to_string(launch.grid[2].constant)
                        : launch.grid[2].symbol)
          .str();
  return launch;
}
