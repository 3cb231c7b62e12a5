//===- SckDialect.h - the Sparcast kernel-level `sck` dialect ---*- C++ -*-===//
//
// Dialect, types and ops of `sck`: tiled kernels as loads, MMAs and
// epilogues, and the roles warp specialization puts them in.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_DIALECT_SCK_IR_SCKDIALECT_H
#define SPARCAST_DIALECT_SCK_IR_SCKDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "sparcast/Dialect/SCK/IR/SckOpsDialect.h.inc"

#include "sparcast/Dialect/SCK/IR/SckEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sparcast/Dialect/SCK/IR/SckAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "sparcast/Dialect/SCK/IR/SckOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "sparcast/Dialect/SCK/IR/SckOps.h.inc"

namespace mlir::sck {
/// The registers a thread gets at launch when `ctasPerSM` CTAs of
/// `warpgroups` x 128 threads share an SM's 65536 (allocated in steps of
/// 8): the budget roles then move between them with setmaxnreg.
int64_t launchRegisters(int64_t warpgroups, int64_t ctasPerSM);

/// The default register split between a warp-specialized kernel's roles,
/// which sc-warp-specialize and the attention generator both take.
struct RoleRegisters {
  int64_t producer, consumer;
};
RoleRegisters defaultRoleRegisters(int64_t consumers, int64_t ctasPerSM);

/// The name of the kernel function's attribute saying which kernel it is
/// for (a KernelScheduleAttr).
constexpr llvm::StringLiteral kKernelScheduleAttrName = "sck.schedule";

/// The name of the kernel function's attribute giving its consumer
/// warpgroups (sc-lower-to-sck's record: an attention's configuration, a
/// hybrid-tiled GEMM's one per 64 weight rows of a tile).
constexpr llvm::StringLiteral kConsumersAttrName = "sck.consumers";
/// The most parts sck.reduce_splits cuts a tile's K range into.
constexpr int64_t kMaxSplits = 16;

/// The kernel sc-lower-to-sck recorded on the function holding `op`, if
/// any.
std::optional<KernelSchedule> kernelSchedule(Operation *op);

/// Whether `op` lies in a kernel of the multistage schedule (sm_80 /
/// sm_86 / sm_89: every warp loads and computes; no roles, rings of TMA
/// boxes, persistence or multicast: the Hopper passes leave it alone).
inline bool inMultistageKernel(Operation *op) {
  return kernelSchedule(op) == KernelSchedule::multistage;
}

/// Where a persistent GEMM's CTA pairs sharing an operand by TMA multicast
/// measured faster, so they are the default (the generator, reading the
/// op, and sc-multicast shared-rhs-only=1, reading the kernel IR, both
/// ask this): a cooperative or ping-pong GEMM whose A is batched and whose
/// B is not (x @ w, x @ w^T: every tile reads all of w), and the transposed
/// tile over an even number of N tiles (pairs share W's rows).
/// `nTilesEven` is only read for the transposed tile.
bool ctaPairsByDefault(llvm::StringRef schedule, bool aBatched, bool bBatched,
                       bool nTilesEven);
} // namespace mlir::sck

#endif // SPARCAST_DIALECT_SCK_IR_SCKDIALECT_H
