//===- sparcast-opt.cpp - mlir-opt with the Sparcast dialect and passes ---===//
//
// mlir-opt compatible: every upstream dialect, extension and pass, plus ours.
//
//===----------------------------------------------------------------------===//

#include "sparcast/InitAll.h"
#include "sparcast/Target/AOT.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::sc::test {
void registerTestPasses();
} // namespace mlir::sc::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::sc::registerAllSparcastDialects(registry);
  mlir::sc::registerAllSparcastPasses();
  // The kernels sparcast-aot builds (sc-build-kernels, sc-gpu-pipeline).
  mlir::sc::registerSparcastAOTPasses();
  mlir::sc::test::registerTestPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Sparcast optimizer driver\n", registry));
}
