//===- InitAll.cpp - register everything Sparcast tools need --------------===//

#include "sparcast/InitAll.h"

#include "sparcast/Conversion/Passes.h"
#include "sparcast/Dialect/SC/IR/ScDialect.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Pipelines/Pipelines.h"
#include "sparcast/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::sc::registerAllSparcastDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registry.insert<ScDialect, sck::SckDialect>();
}

void mlir::sc::registerAllSparcastPasses() {
  registerAllPasses();
  registerSparcastConversionPasses();
  registerSparcastTransformsPasses();
  registerScPipelines();
}
