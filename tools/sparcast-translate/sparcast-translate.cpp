//===- sparcast-translate.cpp - mlir-translate plus PTX/cubin output ------===//

#include "sparcast/Target/PTX.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  mlir::sc::registerPTXTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Sparcast translation driver"));
}
