//===- sparcast-translate.cpp - mlir-translate plus PTX/cubin output ------===//

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

void registerPTXTranslations();

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  registerPTXTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Sparcast translation driver"));
}
