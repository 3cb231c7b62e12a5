//===- OnnxImportFuzzer.cpp - libFuzzer target: the ONNX importer ---------===//
//
// Any bytes as an ONNX model (a serialized ModelProto, else ONNX's textual
// syntax) through the importer, with lineage on the first inputs: a bad
// model must end in diagnostics, never a crash or a hang. The corpus holds
// the importer's test models (text) and their serialized forms.
//
//===----------------------------------------------------------------------===//

#include "sparcast/InitAll.h"
#include "sparcast/Target/ONNX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

// As in ScPassesFuzzer.cpp: LLVM's allocator annotations, off where
// instrumented and uninstrumented code share the allocators.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    sc::registerAllSparcastDialects(*r);
    return r;
  }();
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  std::string contents(reinterpret_cast<const char *>(data), size);
  sc::OnnxImportOptions options;
  (void)sc::importOnnxModel(contents, "fuzz.onnx", &context, options);
  return 0;
}
