//===- PTXTranslation.cpp - gpu.module to PTX and cubin -------------------===//
//
// PTX comes from MLIR's own NVVM serialization (NVPTX backend, format=isa);
// cubin from running ptxas on that PTX, so that the ptxas log (registers,
// spills) is ours to read. Between the lowering and the serialization,
// kernel arguments marked `sc.tensor_map` become 128-byte grid constants
// (tensor maps passed by value).
//
//===----------------------------------------------------------------------===//

#include "sparcast/Target/PTX.h"
#include "sparcast/Conversion/Passes.h"
#include "sparcast/Dialect/SC/IR/ScDialect.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace mlir;
using namespace mlir::sc;

ArrayRef<StringRef> mlir::sc::supportedChips() {
  static const StringRef chips[] = {"sm_80", "sm_86", "sm_87",
                                    "sm_89", "sm_90", "sm_90a"};
  return chips;
}

bool mlir::sc::isSupportedChip(StringRef chip) {
  return llvm::is_contained(supportedChips(), chip);
}

/// Kernel arguments marked `sc.tensor_map` (pointers to TMA tensor maps),
/// by kernel ("module/kernel") and position among the lowered kernel's
/// parameters: a memref becomes 3 + 2 * rank of them (allocated and aligned
/// pointers, offset, sizes, strides), as the runtime passes it.
using TensorMapArgs = llvm::StringMap<SmallVector<unsigned>>;

static std::string kernelKey(StringRef module, StringRef kernel) {
  return (module + "/" + kernel).str();
}

static TensorMapArgs takeTensorMapArgs(ModuleOp work) {
  TensorMapArgs result;
  work.walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return;
    auto module = func->getParentOfType<gpu::GPUModuleOp>();
    unsigned position = 0;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      if (func.getArgAttr(i, ScDialect::getTensorMapAttrName())) {
        result[kernelKey(module.getName(), func.getName())].push_back(position);
        func.removeArgAttr(i, ScDialect::getTensorMapAttrName());
      }
      auto memref = dyn_cast<MemRefType>(func.getArgument(i).getType());
      position += memref ? 3 + 2 * memref.getRank() : 1;
    }
  });
  return result;
}

/// The marked parameters as 128-byte grid constants (byval, 64-byte
/// aligned, nvvm.grid_constant): the runtime passes each map by value and
/// the TMA instructions read it from the kernel's parameter space through
/// its generic address, so no map lives in device memory.
static LogicalResult passTensorMapsByValue(ModuleOp work,
                                           const TensorMapArgs &args) {
  MLIRContext *ctx = work.getContext();
  auto mapType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128);
  for (auto module : work.getOps<gpu::GPUModuleOp>())
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      auto it = args.find(kernelKey(module.getName(), func.getName()));
      if (it == args.end())
        continue;
      for (unsigned position : it->second) {
        if (position >= func.getNumArguments() ||
            !isa<LLVM::LLVMPointerType>(func.getArgument(position).getType()))
          return func.emitError()
                 << "internal error: tensor-map parameter " << position
                 << " of the lowered kernel is not a pointer";
        func.setArgAttr(position, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(mapType));
        func.setArgAttr(position, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(IntegerType::get(ctx, 64), 64));
        func.setArgAttr(position, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(ctx));
      }
    }
  return success();
}

/// Device-side lowering of gpu.modules in gpu/nvgpu/nvvm/scf/arith/memref
/// to the LLVM dialect (PTX serialization by the NVVM target follows).
static void buildDeviceLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createConvertNVGPUToNVVMPass());
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(sc::createScLowerSckSimtPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(createConvertGpuOpsToNVVMOps());
  device.addPass(createConvertNVVMToLLVMPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
}

FailureOr<std::vector<PTXModule>>
mlir::sc::compileToPTX(Operation *root, const PTXOptions &options) {
  MLIRContext *ctx = root->getContext();
  if (!isSupportedChip(options.chip)) {
    InFlightDiagnostic diag = root->emitError()
                              << "unsupported chip '" << options.chip
                              << "', expected one of: ";
    llvm::interleaveComma(supportedChips(), diag);
    return diag;
  }
  SmallVector<gpu::GPUModuleOp> gpuModules;
  if (auto gpuModule = dyn_cast<gpu::GPUModuleOp>(root))
    gpuModules.push_back(gpuModule);
  else
    root->walk([&](gpu::GPUModuleOp m) { gpuModules.push_back(m); });
  if (gpuModules.empty())
    return root->emitError() << "no gpu.module to compile to PTX";

  // Compile clones in a scratch module: the input stays untouched and host
  // code around the kernels does not need to lower.
  OwningOpRef<ModuleOp> work = ModuleOp::create(root->getLoc());
  (*work)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                   UnitAttr::get(ctx));
  OpBuilder builder = OpBuilder::atBlockEnd(work->getBody());
  ctx->getOrLoadDialect<NVVM::NVVMDialect>();
  auto target = NVVM::NVVMTargetAttr::get(ctx, options.optLevel,
                                          "nvptx64-nvidia-cuda", options.chip,
                                          options.features);
  for (gpu::GPUModuleOp m : gpuModules) {
    auto clone = cast<gpu::GPUModuleOp>(builder.clone(*m));
    clone.setTargetsAttr(builder.getArrayAttr({target}));
  }

  TensorMapArgs tensorMaps = takeTensorMapArgs(*work);
  PassManager pm(ctx);
  buildDeviceLoweringPipeline(pm);
  if (failed(pm.run(*work)) || failed(passTensorMapsByValue(*work, tensorMaps)))
    return failure();
  PassManager serialize(ctx);
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = "isa";
  serialize.addPass(createGpuModuleToBinaryPass(binaryOptions));
  if (failed(serialize.run(*work)))
    return failure();

  std::vector<PTXModule> result;
  for (auto binary : work->getOps<gpu::BinaryOp>()) {
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    result.push_back({binary.getName().str(), object.getObject().str()});
  }
  return result;
}

std::optional<std::string> mlir::sc::findPtxas() {
  if (std::optional<std::string> path =
          llvm::sys::Process::GetEnv("SPARCAST_PTXAS"))
    if (llvm::sys::fs::can_execute(*path))
      return path;
  SmallVector<StringRef, 3> dirs;
  std::optional<std::string> cudaHome =
      llvm::sys::Process::GetEnv("CUDA_HOME");
  std::string cudaBin = cudaHome ? *cudaHome + "/bin" : std::string();
  if (cudaHome)
    dirs.push_back(cudaBin);
  if (llvm::ErrorOr<std::string> path =
          llvm::sys::findProgramByName("ptxas", dirs))
    return *path;
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::ErrorOr<std::string> path =
          llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}))
    return *path;
  return std::nullopt;
}

namespace {
/// A temporary file removed when it goes out of scope.
struct TempFile {
  SmallString<128> path;
  bool ok = false;
  TempFile(StringRef prefix, StringRef suffix) {
    ok = !llvm::sys::fs::createTemporaryFile(prefix, suffix, path);
  }
  ~TempFile() {
    if (ok)
      llvm::sys::fs::remove(path);
  }
};
} // namespace

FailureOr<PtxasResult> mlir::sc::assembleWithPtxas(StringRef ptx,
                                                   StringRef chip,
                                                   bool verbose,
                                                   std::string &errorMessage) {
  std::optional<std::string> ptxas = findPtxas();
  if (!ptxas) {
    errorMessage = "ptxas not found (looked at $SPARCAST_PTXAS, "
                   "$CUDA_HOME/bin, PATH and /usr/local/cuda/bin)";
    return failure();
  }
  TempFile input("sparcast", "ptx"), output("sparcast", "cubin"),
      log("sparcast", "log");
  if (!input.ok || !output.ok || !log.ok) {
    errorMessage = "cannot create temporary files for ptxas";
    return failure();
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input.path, ec);
    if (ec) {
      errorMessage = "cannot write " + input.path.str().str();
      return failure();
    }
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {*ptxas, arch, "-O3"};
  if (verbose)
    args.push_back("-v");
  args.append({input.path, "-o", output.path});
  std::optional<StringRef> redirects[] = {std::nullopt, log.path.str(),
                                          log.path.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, /*Env=*/std::nullopt,
                                     redirects, /*SecondsToWait=*/120,
                                     /*MemoryLimit=*/0, &execError);
  PtxasResult result;
  if (auto buffer = llvm::MemoryBuffer::getFile(log.path))
    result.log = (*buffer)->getBuffer().str();
  if (rc != 0) {
    errorMessage = "ptxas failed" +
                   (execError.empty() ? std::string() : ": " + execError) +
                   "\n" + result.log;
    return failure();
  }
  auto cubin = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!cubin) {
    errorMessage = "ptxas wrote no cubin";
    return failure();
  }
  result.cubin = (*cubin)->getBuffer().str();
  return result;
}

