//===- ScPassesFuzzer.cpp - libFuzzer target: parse, verify, sc passes ----===//
//
// Any bytes as MLIR text: parsed and verified with every dialect the tools
// register, then run through the tensor-level Sparcast passes (lineage,
// the IKBO pipeline, the K split at concatenations, row sums folded into
// GEMMs (and, on a copy, the lhs's rows summed first), block-mask
// materialization), then the kernel configuration and kernel-level passes
// for Hopper (lowering to sck, persistence, multicast, warp
// specialization, prefetched epilogue operands, the GEMM and attention
// schedules) and, on a copy, for sm_80
// (the multistage kernel, pipelined); the CUDA-core kernels' sck ops and
// the multistage kernel's are lowered on other copies (sc-lower-sck-simt,
// sc-convert-sck-to-mma-sync). A bad input must end in
// diagnostics, never a crash or a hang (as upstream MLIR's parser fuzzers
// do). Only this file is built with the fuzzer's coverage instrumentation
// in the test build; scripts/fuzz.sh builds an instrumented copy of the
// libraries for long runs.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/Passes.h"
#include "sparcast/InitAll.h"
#include "sparcast/Pipelines/Pipelines.h"
#include "sparcast/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

// LLVM's bump allocator poisons the rest of each slab in instrumented code
// (every Sparcast library in a SPARCAST_FUZZ_COVERAGE build) and hands out
// memory without unpoisoning it in the uninstrumented libMLIR that shares
// the context's allocators: a storage libMLIR places in a slab our code
// started reads as use-after-poison. The allocator's annotations are off.
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
  // Diagnostics are the expected outcome: keep them off stderr.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  // The lexer reads the buffer's terminating NUL: parse a copy that has one.
  StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text),
                               llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 0;
  // The CUDA-core kernels' sck ops (sparse rows, fp32 tiles), lowered on a
  // copy as the kernel pipeline lowers them.
  OwningOpRef<ModuleOp> simt = cast<ModuleOp>((*module)->clone());
  PassManager simtPm(&context);
  simtPm.addPass(sc::createScLowerSckSimtPass());
  (void)simtPm.run(*simt);
  OwningOpRef<ModuleOp> mmaSync = cast<ModuleOp>((*module)->clone());
  PassManager mmaSyncPm(&context);
  mmaSyncPm.addPass(sc::createScConvertSckToMmaSyncPass());
  (void)mmaSyncPm.run(*mmaSync);
  OwningOpRef<ModuleOp> wgmma = cast<ModuleOp>((*module)->clone());
  PassManager wgmmaPm(&context);
  wgmmaPm.addPass(sc::createScScheduleWgmmaPass());
  (void)wgmmaPm.run(*wgmma);
  OwningOpRef<ModuleOp> nvgpu = cast<ModuleOp>((*module)->clone());
  PassManager nvgpuPm(&context);
  nvgpuPm.addPass(sc::createScConvertSckToNVGPUPass());
  (void)nvgpuPm.run(*nvgpu);
  PassManager pm(&context);
  pm.addPass(sc::createScInferLineagePass());
  sc::buildScIkboPipeline(pm, /*report=*/true, /*requestInResultType=*/false);
  sc::ScSplitConcatKPassOptions split;
  split.report = true;
  pm.addPass(sc::createScSplitConcatKPass(split));
  pm.addNestedPass<func::FuncOp>(sc::createScFuseRowSumPass());
  pm.addPass(sc::createScMaterializeBlockMaskPass());
  if (failed(pm.run(*module)))
    return 0;
  // Summed rows of a shared lhs summed before the product, on a copy.
  OwningOpRef<ModuleOp> first = cast<ModuleOp>((*module)->clone());
  PassManager firstPm(&context);
  firstPm.addNestedPass<func::FuncOp>(sc::createScSumRowsFirstPass());
  (void)firstPm.run(*first);
  OwningOpRef<ModuleOp> ampere = cast<ModuleOp>((*module)->clone());
  PassManager hopper(&context);
  hopper.addNestedPass<func::FuncOp>(sc::createScTuneGemmSchedulesPass());
  hopper.addNestedPass<func::FuncOp>(sc::createScSelectKernelConfigPass());
  sc::ScLowerToSckPassOptions lower;
  lower.attention = true;
  hopper.addPass(sc::createScLowerToSckPass(lower));
  sc::ScSplitKPassOptions splitK;
  splitK.splits = 2;
  hopper.addPass(sc::createScSplitKPass(splitK));
  hopper.addPass(sc::createScPersistentPass());
  sc::ScMulticastPassOptions pairs;
  pairs.hybridPairs = true;
  hopper.addPass(sc::createScMulticastPass(pairs));
  hopper.addPass(sc::createScWarpSpecializePass());
  hopper.addPass(sc::createScPrefetchEpilogueOperandsPass());
  hopper.addPass(sc::createScScheduleWgmmaPass());
  hopper.addPass(sc::createScScheduleAttentionPass());
  (void)hopper.run(*module);
  PassManager sm80(&context);
  sc::ScSelectKernelConfigPassOptions config;
  config.chip = "sm_80";
  sm80.addNestedPass<func::FuncOp>(sc::createScSelectKernelConfigPass(config));
  sc::ScLowerToSckPassOptions sm80Lower;
  sm80Lower.attention = true;
  sm80Lower.multistageTileCols = 256;
  sm80.addPass(sc::createScLowerToSckPass(sm80Lower));
  sm80.addPass(sc::createScPipelineMultistagePass());
  (void)sm80.run(*ampere);
  return 0;
}
