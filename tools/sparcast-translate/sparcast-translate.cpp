//===- sparcast-translate.cpp - mlir-translate plus PTX/cubin, ONNX ------===//

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

void registerPTXTranslations();
void registerOnnxImport();

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  registerPTXTranslations();
  registerOnnxImport();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Sparcast translation driver"));
}
