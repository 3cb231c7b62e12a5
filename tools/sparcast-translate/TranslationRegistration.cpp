//===- TranslationRegistration.cpp - Sparcast's mlir-translate targets ----===//
//
// --mlir-to-ptx, --mlir-to-cubin and --mlir-to-manifest. Kept in the tool:
// the --sm option is a global cl::opt, which only sparcast-translate should
// register.
//
//===----------------------------------------------------------------------===//

#include "sparcast/InitAll.h"
#include "sparcast/Target/AOT.h"
#include "sparcast/Target/PTX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::sc;

void registerPTXTranslations();

//===----------------------------------------------------------------------===//
// mlir-translate registrations
//===----------------------------------------------------------------------===//

static llvm::cl::opt<std::string>
    clChip("sm", llvm::cl::desc("Target chip of --mlir-to-ptx/--mlir-to-cubin "
                                "(sm_90a, sm_90, sm_89, sm_87, sm_86, sm_80)"),
           llvm::cl::init("sm_90a"));

static void registerTranslationDialects(DialectRegistry &registry) {
  registerAllSparcastDialects(registry);
}

static FailureOr<std::vector<PTXModule>> compileForTranslation(Operation *op) {
  PTXOptions options;
  options.chip = clChip;
  return compileToPTX(op, options);
}

void registerPTXTranslations() {
  static TranslateFromMLIRRegistration toManifest(
      "mlir-to-manifest",
      "Compile a model module and print its artifact manifest (JSON)",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError() << "--mlir-to-manifest takes a module";
        SmallString<128> dir;
        if (llvm::sys::fs::createUniqueDirectory("sparcast-manifest", dir))
          return op->emitError() << "cannot create a temporary directory";
        AotOptions options;
        options.chip = clChip;
        LogicalResult result = compileArtifact(module, options, dir, nullptr);
        SmallString<128> manifest(dir);
        llvm::sys::path::append(manifest, "manifest.json");
        if (succeeded(result)) {
          auto text = llvm::MemoryBuffer::getFile(manifest);
          if (text)
            os << (*text)->getBuffer();
          else
            result = op->emitError() << "no manifest was written";
        }
        llvm::sys::fs::remove_directories(dir);
        return result;
      },
      registerTranslationDialects);

  static TranslateFromMLIRRegistration toPTX(
      "mlir-to-ptx", "Compile gpu.module(s) to PTX text",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        FailureOr<std::vector<PTXModule>> modules = compileForTranslation(op);
        if (failed(modules))
          return failure();
        for (const PTXModule &m : *modules)
          os << "// gpu.module @" << m.name << "\n" << m.ptx << "\n";
        return success();
      },
      registerTranslationDialects);
  static TranslateFromMLIRRegistration toCubin(
      "mlir-to-cubin", "Compile one gpu.module to a cubin (needs ptxas)",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        FailureOr<std::vector<PTXModule>> modules = compileForTranslation(op);
        if (failed(modules))
          return failure();
        if (modules->size() != 1)
          return op->emitError() << "--mlir-to-cubin takes one gpu.module, got "
                                 << modules->size();
        std::string error;
        FailureOr<PtxasResult> cubin = assembleWithPtxas(
            modules->front().ptx, clChip, /*verbose=*/false, error);
        if (failed(cubin))
          return op->emitError() << error;
        os << cubin->cubin;
        return success();
      },
      registerTranslationDialects);
}
