//===- TemplateUtils.h - textual kernel templates ---------------*- C++ -*-===//
//
// Kernels are written as MLIR text with $NAME placeholders; these helpers
// fill them in and parse the result.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_TEMPLATEUTILS_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_TEMPLATEUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::sc::detail {

/// Replaces every $NAME by its value, longest names first (so that $SM1 is
/// not cut by $S; "$KERNEL_epilogue" becomes "<kernel>_epilogue").
std::string replaceAll(std::string text,
                       const llvm::StringMap<std::string> &values);

std::string typeToString(Type type);

/// Parses `text` (a module holding one gpu.module) in `context`.
OwningOpRef<ModuleOp> parseTemplate(MLIRContext *context,
                                    const std::string &text);

/// The gpu.module a parsed template holds.
gpu::GPUModuleOp templateModule(ModuleOp parsed);

/// Moves everything in `from` to the end of `to`.
void moveKernels(gpu::GPUModuleOp from, gpu::GPUModuleOp to);

/// Parses `text` and moves its kernels into `gpuModule`: a template whose
/// kernels need nothing built after parsing. A template that does not
/// parse is an internal error at `loc`, naming the `kind` of kernel.
LogicalResult installTemplate(Location loc, gpu::GPUModuleOp gpuModule,
                              const std::string &text, StringRef kind);

// Pieces of the wgmma kernels (warp-specialized GEMM, attention).

/// `!llvm.struct<(f32, ...)>` of `n` members: a wgmma f32 accumulator.
std::string f32StructType(int64_t n);

/// Defines %descBits, %descAddrMask and %c4i64, which wgmmaDescriptorText
/// uses: the fixed bits of a 128B-swizzled descriptor (leading byte offset
/// 8192 between 64-column chunks of an MN-major tile, stride byte offset
/// 1024 between 8-row groups, swizzle mode 1 in bits 62-63).
/// Shared memory the kernels keep for aligning their region: see
/// smemRegionText.
constexpr int64_t kSmemAlignReserve = 1280;

/// %pad: the offset from %base (the address of gpu.dynamic_shared_memory)
/// of the kernel's region: the first 1024-byte boundary (128B-swizzled
/// TMA tiles need it) at least 256 bytes past %base. ptxas places the
/// dynamic-memory symbol first among the kernel's static shared variables,
/// so the mbarriers lie just past %base; a region at %base itself would
/// overlap them. Needs %base and %c1024; the kernel asks for
/// kSmemAlignReserve bytes more than its region.
std::string smemRegionText();

/// The wgmma descriptor bits of a 128B-swizzled operand: swizzle mode 1,
/// 1024-byte stride between 8-row groups, 8192-byte leading offset between
/// 64-element column blocks (an N-major B); the start address is or-ed in.
constexpr int64_t kWgmmaDescriptorBits = 0x4000004002000000;

std::string wgmmaDescriptorConstantsText();

/// Defines %<desc> (i64), the wgmma shared-memory descriptor of the tile at
/// byte offset %<offset> (index) from %smemBase (i64): (address >> 4) in
/// bits 0-13 over %descBits. Intermediate names are prefixed by <desc>.
std::string wgmmaDescriptorText(StringRef desc, StringRef offset);

/// Which barrier of a ring slot a wait is on: Full (the slot's data has
/// landed) or Empty (the slot is free again: its first wait, before any
/// release, passes at once).
enum class RingWait { Full, Empty };

/// Position `j` of a ring of `slots` slots (%cS unless said; j counts the
/// k-tiles or key blocks that went through it): defines `slot` (j mod
/// slots) and the i1 `parity` the slot's `wait` barrier is at on this pass
/// ((j / slots) mod 2, flipped for Empty). Intermediate values are named
/// after `parity`.
std::string ringPositionText(StringRef j, StringRef slot, StringRef parity,
                             RingWait wait, StringRef slots = "%cS");

/// A consumer with nothing to compute still takes its part in the ring:
/// slots `first` .. `first` + `count` - 1 are waited for (%full, then
/// `alsoWait` by the whole warp) and freed by lane 0 (%empty, then
/// `alsoRelease`). Waits stay warp-uniform: a lane spinning on a barrier
/// while the rest of its warp spins on another hung under racecheck.
std::string drainSlotsText(StringRef count, StringRef first,
                           StringRef alsoRelease = "",
                           StringRef alsoWait = "");

/// The kernel-level function `op` points at (its sc.kernel_ir attribute,
/// from sc-lower-to-sck): a null function when it has none, failure (with
/// a located error) when the symbol names no function.
FailureOr<func::FuncOp> kernelIRFunction(Operation *op);

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_TEMPLATEUTILS_H
