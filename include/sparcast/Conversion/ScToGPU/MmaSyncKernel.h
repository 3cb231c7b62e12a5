//===- MmaSyncKernel.h - sm_80's kernel ops to cp.async and mma.sync -*- C++ -*-===//
//
// The patterns of sc-convert-sck-to-mma-sync (lib/Conversion/ScToGPU/
// SckToMmaSync.cpp) and the ring layout they share with the launch.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_MMASYNCKERNEL_H
#define SPARCAST_CONVERSION_SCTOGPU_MMASYNCKERNEL_H

#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::sc::detail {

/// The argument attribute naming the operand a kernel's memref argument
/// is: "A", "B", "C", then "in0", "in1", ... for the epilogue's operands.
constexpr llvm::StringLiteral kOperandAttrName = "sck.operand";

/// A ring of a multistage kernel in shared memory: per box of a slot, each
/// stored as its put's load reads the operand (rows along the operand's
/// last dim, padded by 16 bytes); every slot's first box, then every
/// slot's second.
struct MmaSyncRingLayout {
  struct Part {
    /// The box is read transposed (stored [cols][rows] of the box).
    bool transposed = false;
    int64_t rows = 0, rowBytes = 0, offset = 0;
  };
  int64_t stages = 0;
  SmallVector<Part, 2> parts;
  /// Shared memory the ring takes.
  int64_t bytes = 0;
};

/// mma.sync m16n8k16 with fp32 accumulation: A's 4 and B's 2 registers
/// (two `element`s each), the accumulator a struct of 4 f32, tied in and
/// out.
Value mmaSyncM16N8K16(OpBuilder &b, Location loc, Type element,
                      ArrayRef<Value> a, ArrayRef<Value> bFrag, Value acc);

/// The layout of `ring`, from its stages and a put at a named position;
/// a located error when the ring is not of that form.
FailureOr<MmaSyncRingLayout> mmaSyncRingLayout(sck::RingOp ring);

/// One pattern per op: sck.tile_loop (grid), sck.ring, sck.put, sck.get,
/// sck.zero, sck.mma, sck.epilogue.
void populateSckToMmaSyncPatterns(TypeConverter &converter,
                                  RewritePatternSet &patterns);

/// Lowers the sck ops in `kernel` (a multistage kernel's body, its memref
/// arguments named by kOperandAttrName, which are dropped after).
LogicalResult convertSckToMmaSync(gpu::GPUFuncOp kernel);

} // namespace mlir::sc::detail

#endif // SPARCAST_CONVERSION_SCTOGPU_MMASYNCKERNEL_H
