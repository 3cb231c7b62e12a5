//===- PTXTranslationRegistration.cpp - --mlir-to-ptx, --mlir-to-cubin ---===//
//
// Kept apart from PTXTranslation.cpp: the --sm option is a global cl::opt,
// which only sparcast-translate should register.
//
//===----------------------------------------------------------------------===//

#include "sparcast/InitAll.h"
#include "sparcast/Target/PTX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

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
