//===- KernelConfig.h - what GPU kernel each sc op gets -------*- C++ -*-===//
//
// The kernel configuration of an op (a GEMM's schedule, an attention's
// walk, consumers and key blocks) is a decision about the op recorded on it
// by sc-select-kernel-config; the passes and kernel builders after it read
// it back here. The heuristics live in one place, KernelConfig.cpp, with
// the measurements behind them in docs/decisions.md.
//
//===----------------------------------------------------------------------===//

#ifndef SPARCAST_TRANSFORMS_KERNELCONFIG_H
#define SPARCAST_TRANSFORMS_KERNELCONFIG_H

#include "sparcast/Dialect/SC/IR/ScOps.h"

#include <string>

namespace mlir::sc {

/// The schedule a GEMM gets when nothing chose one for it, and why (a
/// sentence for --report).
GemmSchedule defaultGemmSchedule(BatchMatmulOp op, std::string *why = nullptr);

/// The GEMM's schedule: the one recorded on it (sc.gemm_schedule), else
/// defaultGemmSchedule.
GemmSchedule getGemmSchedule(BatchMatmulOp op);

/// Columns of a ping-pong or cooperative GEMM tile for a result of `n`
/// columns: 64 or 128 where n fits in them (each wgmma column past n is
/// work thrown away), else 256.
int64_t gemmTileCols(int64_t n);

/// Why the multistage (sm_80 / sm_86 / sm_89, mma.sync) kernel cannot take
/// `op`, or an empty string: 16-bit operands, static M, N, K, K and N
/// multiples of 8 (16-byte rows for cp.async), no hybrid tiles.
std::string multistageLimitation(BatchMatmulOp op);

/// The multistage kernel's tile rows and depth, and its ring stages (its
/// columns: multistageTileCols).
constexpr int64_t kMultistageTileM = 128, kMultistageTileK = 32,
                  kMultistageStages = 3;

/// The multistage tile's columns for a result of `n` columns: `requested`
/// (128 or 256) when nonzero, else 256 (8 warps) past 128 columns and 128
/// (4 warps) up to them.
int64_t multistageTileCols(int64_t requested, int64_t n);

/// Whether `chip` is one the multistage kernel is for.
bool isAmpereOrAda(StringRef chip);

/// Dynamic shared memory a CTA may take on `chip`: sm_80's 163 KB, sm_86 /
/// sm_89's 99 KB, sm_90a's 227 KB.
int64_t maxSharedBytesPerBlock(StringRef chip);

/// The transposed schedule's tile rows (result rows m a tile) for a result
/// of `m` rows: as few tiles of at most 152 rows (the two m64n152
/// accumulators a consumer holds) as cover m, split evenly, rounded up to
/// a multiple of 8 (433 -> 152).
int64_t transposedTileRows(int64_t m);

/// The choices sc-select-kernel-config leaves to its options.
struct AttentionConfigOptions {
  /// Target attention of one consumer a candidate chains its heads.
  bool chainHeads = true;
  /// Chained and pairs walks take the candidates in request order.
  bool groupCandidates = false;
  /// bf16 attention rounds P to f16.
  bool pInF16 = false;
  /// Keys from which two candidates of one request share a CTA.
  int64_t pairsMinKeys = 1025;
};

/// The configuration `options` give `op`.
AttentionConfigAttr chooseAttentionConfig(AttentionOp op,
                                          const AttentionConfigOptions &options);

/// The attention's configuration: the one recorded on it
/// (sc.attention_config), else chooseAttentionConfig with default options.
AttentionConfigAttr getAttentionConfig(AttentionOp op);

/// Why `config` cannot run `op`'s kernel, or an empty string (a pairs or
/// chained walk needs an index, a chained one static lengths and heads, a
/// block mask its own block size, P in f16 a bf16 attention).
std::string attentionConfigLimitation(AttentionOp op,
                                      AttentionConfigAttr config);

} // namespace mlir::sc

#endif // SPARCAST_TRANSFORMS_KERNELCONFIG_H
