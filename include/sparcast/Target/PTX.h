//===- PTX.h - gpu.module to PTX text and cubin -----------------*- C++ -*-===//
//
// Compiles gpu.modules through MLIR's NVVM target (NVPTX backend) to PTX
// text, and assembles PTX to cubin with ptxas when it is installed.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_TARGET_PTX_H
#define SPARCAST_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::sc {

struct PTXOptions {
  /// Target chip, one of supportedChips().
  std::string chip = "sm_90a";
  /// PTX ISA: 8.2 or later is needed for sparse wgmma on sm_90a.
  std::string features = "+ptx82";
  int optLevel = 3;
};

/// The chips Sparcast compiles for (ptxas of CUDA 13 rejects sm_50/sm_70).
ArrayRef<StringRef> supportedChips();
bool isSupportedChip(StringRef chip);

/// PTX of one gpu.module.
struct PTXModule {
  std::string name;
  std::string ptx;
};

/// Lowers every gpu.module under `root` (or `root` itself) to NVVM and then
/// to PTX text. Kernel arguments marked `sc.tensor_map` (pointers to TMA
/// tensor maps) become 128-byte grid-constant parameters, which the runtime
/// fills with the maps themselves. Emits a located error and fails on
/// unsupported input.
FailureOr<std::vector<PTXModule>> compileToPTX(Operation *root,
                                               const PTXOptions &options);

/// Path of ptxas: $SPARCAST_PTXAS, then $CUDA_HOME/bin, PATH and
/// /usr/local/cuda/bin. std::nullopt when none is found.
std::optional<std::string> findPtxas();

struct PtxasResult {
  std::string cubin;
  /// What ptxas printed (with -v: registers, spills, shared memory).
  std::string log;
};

/// Assembles `ptx` for `chip` with ptxas. On failure, `errorMessage` says why
/// (ptxas missing, or its diagnostics).
FailureOr<PtxasResult> assembleWithPtxas(StringRef ptx, StringRef chip,
                                         bool verbose,
                                         std::string &errorMessage);

} // namespace mlir::sc

#endif // SPARCAST_TARGET_PTX_H
