//===- sparcast-opt.cpp - mlir-opt with the Sparcast dialect and passes ---===//
//
// mlir-opt compatible: every upstream dialect, extension and pass, plus ours.
//
//===----------------------------------------------------------------------===//

#include "sparcast/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::sc::registerAllSparcastDialects(registry);
  mlir::sc::registerAllSparcastPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Sparcast optimizer driver\n", registry));
}
