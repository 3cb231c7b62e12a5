//===- TranslationRegistration.cpp - Sparcast's mlir-translate targets ----===//
//
// --mlir-to-ptx, --mlir-to-cubin, --mlir-to-manifest and --import-onnx.
// Kept in the tool: their options are global cl::opts, which only
// sparcast-translate should register.
//
//===----------------------------------------------------------------------===//

#include "sparcast/InitAll.h"
#include "sparcast/Target/AOT.h"
#include "sparcast/Target/ONNX.h"
#include "sparcast/Target/PTX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::sc;

void registerPTXTranslations();
void registerOnnxImport();

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

//===----------------------------------------------------------------------===//
// ONNX import
//===----------------------------------------------------------------------===//

static llvm::cl::opt<std::string> clOnnxLineage(
    "onnx-lineage",
    llvm::cl::desc("With --import-onnx: the lineage of graph inputs, "
                   "input=shared|request|candidate|index,... (the rest is "
                   "inferred by sc-infer-lineage)"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string> clOnnxEntry(
    "onnx-entry",
    llvm::cl::desc("With --import-onnx: the function's name (default: the "
                   "graph's)"),
    llvm::cl::init(""));

void registerOnnxImport() {
  static TranslateToMLIRRegistration fromOnnx(
      "import-onnx",
      "Import an ONNX model (binary, or ONNX's textual syntax) as a "
      "function over tensor, linalg and sc ops",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context)
          -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        OnnxImportOptions options;
        options.entryName = clOnnxEntry;
        std::string why = parseOnnxLineage(clOnnxLineage, options.lineage);
        if (!why.empty()) {
          emitError(UnknownLoc::get(context)) << "--onnx-lineage: " << why;
          return nullptr;
        }
        OwningOpRef<ModuleOp> module = importOnnxModel(
            buffer->getBuffer(), buffer->getBufferIdentifier(), context,
            options);
        return OwningOpRef<Operation *>(module.release());
      },
      registerTranslationDialects);
}
