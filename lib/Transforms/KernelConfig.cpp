//===- KernelConfig.cpp - the kernel configuration heuristics ------------===//
//
// Measured on the H200; docs/decisions.md has the numbers behind each rule.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Transforms/KernelConfig.h"

using namespace mlir;
using namespace mlir::sc;

GemmSchedule mlir::sc::defaultGemmSchedule(BatchMatmulOp op,
                                           std::string *why) {
  int64_t k = op.getContractionSize();
  auto explain = [&](const std::string &text) {
    if (why)
      *why = text;
  };
  bool lhsOnlyBatched = op.getLhs().getType().getRank() == 3 &&
                        op.getRhs().getType().getRank() == 2;
  // Also with a batched epilogue operand (x @ w + r[b]).
  if (lhsOnlyBatched) {
    explain("a shared rhs (x @ w): every tile reads all of it at once, "
            "cooperative's 128-row tiles read it half as often (H200, "
            "1024 x 433 rows x 256 x 872: 0.59 vs 0.90 ms ping-pong)");
    return GemmSchedule::cooperative;
  }
  if (!op.getEpilogueIns().empty()) {
    explain("the epilogue reads other tensors: ping-pong runs those loads "
            "under the other consumer's wgmma");
    return GemmSchedule::pingpong;
  }
  if (ShapedType::isDynamic(k) || k < 4096) {
    explain("K = " + (ShapedType::isDynamic(k) ? std::string("?")
                                              : std::to_string(k)) +
            " < 4096: the epilogue is a large share of each tile, ping-pong "
            "hides it");
    return GemmSchedule::pingpong;
  }
  explain("K = " + std::to_string(k) +
          " >= 4096: bound by L2 bandwidth, the cooperative 128x256 tile "
          "reads less per flop");
  return GemmSchedule::cooperative;
}

int64_t mlir::sc::transposedTileRows(int64_t m) {
  int64_t tiles = llvm::divideCeil(m, int64_t(152));
  return llvm::alignTo(llvm::divideCeil(m, tiles), 8);
}

int64_t mlir::sc::gemmTileCols(int64_t n) {
  return n <= 64 ? 64 : n <= 128 ? 128 : 256;
}

std::string mlir::sc::multistageLimitation(BatchMatmulOp op) {
  RankedTensorType lhs = op.getLhs().getType();
  Type element = lhs.getElementType();
  if (!element.isF16() && !element.isBF16())
    return "mma.sync takes f16/bf16 operands here";
  int64_t m = op.getType().getDimSize(1), n = op.getType().getDimSize(2);
  int64_t k = lhs.getShape().back();
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
      ShapedType::isDynamic(k))
    return "M, N and K must be static";
  if (k % 8 != 0)
    return "cp.async copies 16-byte rows: K (" + std::to_string(k) +
           ") must be a multiple of 8 (pad K with sc-pad-k)";
  // (Rows of other even N are copied in 4- or 8-byte pieces.)
  if (n % 2 != 0)
    return "N (" + std::to_string(n) + ") must be even (pad N with sc-pad-n)";
  if (op.getRhs().getType().getEncoding())
    return "no encoded (hybrid-tiled) operands";
  return "";
}

int64_t mlir::sc::multistageTileCols(int64_t requested, int64_t n) {
  // 128 x 256 reads a quarter fewer bytes a flop than two 128 x 128 CTAs:
  // 1.02-1.04x at N = 256 and 8192^3 on the H100 (docs/decisions.md).
  if (requested)
    return requested;
  return n > 128 ? 256 : 128;
}

bool mlir::sc::isAmpereOrAda(StringRef chip) {
  return chip == "sm_80" || chip == "sm_86" || chip == "sm_89";
}

int64_t mlir::sc::maxSharedBytesPerBlock(StringRef chip) {
  if (chip == "sm_90a")
    return 227 * 1024;
  return (chip == "sm_80" ? 163 : 99) * 1024;
}

GemmSchedule mlir::sc::getGemmSchedule(BatchMatmulOp op) {
  if (auto pinned = op->getAttrOfType<GemmScheduleAttr>(
          BatchMatmulOp::getScheduleAttrName()))
    return pinned.getValue();
  return defaultGemmSchedule(op);
}

/// Whether every dim of `t` but the batch is static.
static bool staticPastBatch(RankedTensorType t) {
  return llvm::all_of(t.getShape().drop_front(),
                      [](int64_t d) { return !ShapedType::isDynamic(d); });
}

AttentionConfigAttr
mlir::sc::chooseAttentionConfig(AttentionOp op,
                                const AttentionConfigOptions &options) {
  RankedTensorType q = op.getQuery().getType(), k = op.getKey().getType();
  auto mask = dyn_cast_if_present<BlockMaskAttrInterface>(op.getMaskAttr());
  // Two candidates of one request a CTA, sharing each K/V block: an index,
  // at most 64 static query rows and long histories. Up to 1024 keys one
  // consumer a candidate and two CTAs an SM win (the co-resident CTA covers
  // one's start, Q's latency and tail).
  bool pairs = op.getIndex() && !q.isDynamicDim(2) && q.getDimSize(2) <= 64 &&
               (k.isDynamicDim(2) || k.getDimSize(2) >= options.pairsMinKeys);
  // Two consumers split a 128-row query block: more than 64 or dynamic
  // query rows, with no mask or one of 128-token blocks.
  bool longQuery = q.isDynamicDim(2) || q.getDimSize(2) > 64;
  int64_t consumers =
      pairs || (longQuery && (!mask || mask.getMaskBlockSize() == 128)) ? 2
                                                                          : 1;
  // Key blocks: the mask's, else 128 keys with two consumers (a wider S
  // wgmma), 64 with one (two CTAs an SM).
  int64_t keyBlock = mask ? mask.getMaskBlockSize() : consumers == 2 ? 128 : 64;
  // Chained heads pay with one consumer a candidate over static lengths and
  // two or more heads (the pairs kernel chained loses: its O has no shared
  // memory to go through).
  bool chained = options.chainHeads && op.getIndex() && !mask &&
                 staticPastBatch(q) && !k.isDynamicDim(2) &&
                 q.getDimSize(1) > 1 && consumers == 1;
  AttentionWalk walk = pairs     ? AttentionWalk::pairs
                       : chained ? AttentionWalk::chained
                                 : AttentionWalk::grid;
  bool group = options.groupCandidates && walk != AttentionWalk::grid;
  bool pInF16 = options.pInF16 && q.getElementType().isBF16();
  return AttentionConfigAttr::get(op.getContext(), walk, consumers, keyBlock,
                                  group, pInF16);
}

AttentionConfigAttr mlir::sc::getAttentionConfig(AttentionOp op) {
  if (auto pinned = op->getAttrOfType<AttentionConfigAttr>(
          AttentionOp::getConfigAttrName()))
    return pinned;
  return chooseAttentionConfig(op, AttentionConfigOptions());
}

std::string mlir::sc::attentionConfigLimitation(AttentionOp op,
                                                AttentionConfigAttr config) {
  RankedTensorType q = op.getQuery().getType(), k = op.getKey().getType();
  auto mask = dyn_cast_if_present<BlockMaskAttrInterface>(op.getMaskAttr());
  if (config.getWalk() != AttentionWalk::grid && !op.getIndex())
    return "a " + stringifyAttentionWalk(config.getWalk()).str() +
           " walk needs an indexed (target) attention";
  if (config.getWalk() == AttentionWalk::pairs &&
      (q.isDynamicDim(2) || q.getDimSize(2) > 64))
    return "a pairs walk takes at most 64 static query rows";
  if (config.getWalk() == AttentionWalk::chained &&
      (mask || !staticPastBatch(q) || k.isDynamicDim(2)))
    return "a chained walk needs static lengths and heads and no mask";
  // Key blocks are the mask's, or (one consumer) halves of its blocks.
  if (mask && config.getKeyBlock() != mask.getMaskBlockSize() &&
      !(config.getConsumers() == 1 && config.getKeyBlock() == 64 &&
        mask.getMaskBlockSize() == 128))
    return "key blocks of " + std::to_string(config.getKeyBlock()) +
           " under a mask of " + std::to_string(mask.getMaskBlockSize()) +
           "-token blocks";
  if (config.getPInF16() && !q.getElementType().isBF16())
    return "P in f16 is for bf16 attention";
  return "";
}
