//===- GemmTransposedTile.cpp - the transposed GEMM tile ------------------===//
//
// The warp-specialized kernel's pieces for the "transposed" schedule: a
// shared lhs W [M, K] times a batched rhs E[b] [K, N] computed as
// out[b]^T = E[b]^T W^T. Each consumer warpgroup, in ping-pong turns, owns
// a tile of 128 result columns (n) by TM result rows (m), TM a multiple of
// 8 up to 152 (BatchMatmulOp::getTransposedTileRows: 152 for M = 433,
// three m-tiles, 5 % padding): it reads 16 KB of E and TM x 128 bytes of W
// a k-tile for 128 x TM x 64 multiply-adds, 26 % fewer bytes a flop than
// the 64 x 256 ping-pong tile (the SMs' L2 bandwidth bounds that one's
// main loop). wgmma's A is E's box read MN-major (E's rows are K), its B
// is W's box read K-major; the two 64-column halves of the tile are two
// m64nTM accumulators (%accL, %accR). The epilogue writes out[b][m][n] from
// accumulators whose neighbouring registers are neighbouring m: in chunks
// of 32 m through [m][n] staging boxes, the gathered f32 epilogue operand
// (the IKBO request result R[g(b)][m][n]) brought in by TMA the same way.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "TemplateUtils.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

// The k-tile's loads: E's two 64 x 64 boxes (n0, n0 + 64; MN-major, 8 KB
// apart: the tile's two halves) in the slot's A part, W's TM x 64 box
// (K-major) in its B part.
static constexpr const char *kTransposedLoadTemplate = R"mlir(
        %tl_s = arith.remui %j, %cS : index
        %tl_k = arith.muli %kt, %c64 : index
        %tl_aOff0 = arith.muli %tl_s, %tileBytesA : index
        %tl_aOff = arith.addi %tl_aOff0, %pad : index
        %tl_aOff8 = arith.addi %tl_aOff, %c8192t : index
        %tl_bOff0 = arith.muli %tl_s, %tileBytesB : index
        %tl_bOff1 = arith.addi %tl_bOff0, %ringB : index
        %tl_bOff = arith.addi %tl_bOff1, %pad : index
        %tl_n1 = arith.addi %n0, %c64 : index
        %tl_e0 = memref.view %smem[%tl_aOff][] : !smem to !tileB
        %tl_e1 = memref.view %smem[%tl_aOff8][] : !smem to !tileB
        %tl_w = memref.view %smem[%tl_bOff][] : !smem to !tileA
        nvgpu.mbarrier.arrive.expect_tx %full[%tl_s], %txBytes : !bars
        nvgpu.tma.async.load %tmaB[%n0, %tl_k$BCOORD], %full[%tl_s] to %tl_e0 : !tmaB, !bars -> !tileB
        nvgpu.tma.async.load %tmaB[%tl_n1, %tl_k$BCOORD], %full[%tl_s] to %tl_e1 : !tmaB, !bars -> !tileB
$W_LOAD)mlir";

namespace {
/// The epilogue's chunks: 32 rows m (4 groups of 8 accumulator columns)
/// each, the last one shorter when TM is not a multiple of 32.
struct Chunks {
  int64_t groups, count;
  explicit Chunks(int64_t tileRows)
      : groups(tileRows / 8), count(llvm::divideCeil(tileRows / 8, 4)) {}
  int64_t groupsIn(int64_t u) const { return std::min<int64_t>(4, groups - 4 * u); }
};
} // namespace

std::string mlir::sc::detail::transposedTileConstantsText(int64_t tileRows) {
  return llvm::formatv(R"mlir(
    %cChunks = arith.constant {0} : index
    %c4096t = arith.constant 4096 : index
    %c8192t = arith.constant 8192 : index
    %c16384t = arith.constant 16384 : index
)mlir",
                       Chunks(tileRows).count)
      .str();
}

std::string mlir::sc::detail::transposedTileLoadText(int64_t pairRow) {
  // Alone: W's whole box. CTA pairs: this CTA's half of it (rank r: rows
  // r * pairRow on, a multiple of 8 rows, so a multiple of the 1024-byte
  // swizzle period), multicast to both CTAs; E's boxes locally either way.
  std::string wLoad =
      pairRow == 0
          ? "        nvgpu.tma.async.load %tmaA[%tl_k, %m0$ACOORD], %full[%tl_s] "
            "to %tl_w : !tmaA, !bars -> !tileA\n"
          : llvm::formatv(R"mlir(
        %tl_pr = arith.constant {0} : index
        %tl_wr = arith.muli %rank, %tl_pr : index
        %tl_wm = arith.addi %m0, %tl_wr : index
        %tl_pb = arith.constant {1} : index
        %tl_wb = arith.muli %rank, %tl_pb : index
        %tl_wo = arith.addi %tl_bOff, %tl_wb : index
        %tl_wv = memref.view %smem[%tl_wo][] : !smem to !tileA
        %tl_mask = arith.constant 3 : i16
        nvgpu.tma.async.load %tmaA[%tl_k, %tl_wm$ACOORD], %full[%tl_s] to %tl_wv multicast_mask = %tl_mask : !tmaA, !bars -> !tileA
)mlir",
                          pairRow, pairRow * 128)
                .str();
  return replaceAll(kTransposedLoadTemplate, {{"W_LOAD", wLoad}});
}

bool mlir::sc::detail::transposedTilesPair(int64_t n) {
  return llvm::divideCeil(n, int64_t(128)) % 2 == 0;
}

WgmmaHalves mlir::sc::detail::transposedTileHalves(int64_t tileRows) {
  // A MN-major: 16 k-rows of 128 bytes (2048 bytes, 128 descriptor units)
  // per k16 step, one E box per half; B K-major: 32 bytes (2 units).
  WgmmaHalves halves;
  halves.aPerHalf = true;
  halves.aStep = 128;
  halves.bStep = 2;
  halves.aLayout = "col";
  halves.bLayout = "col";
  halves.n = tileRows;
  return halves;
}

/// The elected thread's TMA loads of chunk `u` of the tile's gathered f32
/// operand: rows m0 + 32 u .. + 32 (past the tile's last row: read, not
/// used), its 128 columns as four 32 x 32 boxes, into the C buffer at
/// byte %<p>_xo from %stageBase, on barrier %<p>_bar (both defined by the
/// caller). Needs %<p>_g (the batch element g(b)).
static std::string chunkOperandLoadText(StringRef p, int64_t u) {
  std::string text = llvm::formatv(R"mlir(
          nvgpu.mbarrier.arrive.expect_tx %cbar[%{0}_bar], %c16384t : !cbars
          %{0}_mu = arith.constant {1} : index
          %{0}_m = arith.addi %m0, %{0}_mu : index
)mlir",
                                   p, 32 * u)
                         .str();
  for (int64_t bx = 0; bx < 4; ++bx)
    text += llvm::formatv(R"mlir(
          %{0}_o{1} = arith.constant {2} : index
          %{0}_xa{1} = arith.addi %{0}_xo, %{0}_o{1} : index
          %{0}_a{1} = arith.addi %stageBase, %{0}_xa{1} : index
          %{0}_v{1} = memref.view %smem[%{0}_a{1}][] : !smem to !boxX
          %{0}_nc{1} = arith.constant {3} : index
          %{0}_n{1} = arith.addi %n0, %{0}_nc{1} : index
          nvgpu.tma.async.load %tmaX[%{0}_n{1}, %{0}_m, %{0}_g], %cbar[%{0}_bar] to %{0}_v{1} : !tmaX, !cbars -> !boxX
)mlir",
                          p, bx, 4096 * bx, 32 * bx)
                .str();
  return text;
}

/// Where chunk `u` of this warpgroup's tile goes in the global sequence of
/// its chunks (%cChunks a tile, `turn` tiles before): a position in a ring
/// of its two C buffers (the sequence alternates between them, whatever the
/// parity of the chunk count), the buffer's barrier and the parity of its
/// use. Defines %<p>_xo (the C buffer's byte offset from %stageBase),
/// %<p>_bar and %<p>_par.
static std::string chunkPlaceText(StringRef p, int64_t u, StringRef turn) {
  std::string text = llvm::formatv(R"mlir(
        %{0}_turnC = arith.muli {2}, %cChunks : index
        %{0}_u = arith.constant {1} : index
        %{0}_G = arith.addi %{0}_turnC, %{0}_u : index
)mlir",
                                   p, u, turn)
                         .str();
  text += ringPositionText(("%" + p + "_G").str(), ("%" + p + "_sel").str(),
                           ("%" + p + "_par").str(), RingWait::Full, "%c2");
  return text + llvm::formatv(R"mlir(
        %{0}_xs = arith.muli %{0}_sel, %c16384t : index
        %{0}_xo = arith.addi %{0}_xs, %c8192t : index
        %{0}_b2 = arith.muli %wg, %c2 : index
        %{0}_bar = arith.addi %{0}_b2, %{0}_sel : index
)mlir",
                              p)
                    .str();
}

// The warpgroup's count of tiles before this one (ping-pong: it takes
// every other tile).
static constexpr const char *kTurnText =
    "        %tt_turn = arith.divui %i, %cTileStep : index\n";

std::string mlir::sc::detail::transposedTilePrefetchText() {
  std::string text = kTurnText;
  text += R"mlir(
        scf.if %elected {
          %px_g = func.call @$KERNEL_dependency(%b$EPI_ARGS) : (index$EPI_TYPES) -> index
)mlir";
  for (int64_t u = 0; u < 2; ++u) {
    std::string p = "px" + std::to_string(u);
    text += chunkPlaceText(p, u, "%tt_turn");
    text += llvm::formatv("          %{0}_g = arith.addi %px_g, %c0 : index\n", p).str();
    text += chunkOperandLoadText(p, u);
  }
  return text + "        }\n";
}

std::string mlir::sc::detail::transposedTileEpilogueText(bool prefetched,
                                                         int64_t tileRows) {
  Chunks chunks(tileRows);
  // (With the operand prefetched, the tile's start counted the turns.)
  std::string turn = prefetched ? "" : kTurnText;
  // Per thread: its quad / q and its warp's 16 columns n (wgmma rows) in
  // each half, then, for each (hh = n + 8 or not, odd = m + 1 or not), its
  // byte in a staging box ([32 m][64 n] 16-bit, 128B-swizzled rows of m,
  // one per half, 4 KB apart) and in a C buffer (four [32 m][32 n] f32
  // boxes, 4 KB apart) without the half and the chunk's row group (added
  // per register).
  std::string text = turn + R"mlir(
        %te_c4 = arith.constant 4 : index
        %te_c16 = arith.constant 16 : index
        %te_c32 = arith.constant 32 : index
        %te_c256 = arith.constant 256 : index
        %te_warp = arith.divui %inWg, %te_c32 : index
        %te_lane = arith.remui %tid, %te_c32 : index
        %te_quad = arith.divui %te_lane, %te_c4 : index
        %te_q = arith.remui %te_lane, %te_c4 : index
        %te_wn = arith.muli %te_warp, %te_c16 : index
        %te_n0a = arith.addi %n0, %te_wn : index
        %te_n0b = arith.addi %te_n0a, %te_quad : index
        %te_cN1 = arith.subi %cN, %c1 : index
        %te_cM1 = arith.subi %cM, %c1 : index
        %te_q2 = arith.muli %te_q, %c2 : index
        %te_mq = arith.addi %m0, %te_q2 : index
        %te_qRow = arith.muli %te_q, %te_c256 : index
        %te_w2 = arith.muli %te_warp, %c2 : index
        %te_quad2 = arith.muli %te_quad, %c2 : index
        %te_wHalf = arith.divui %te_warp, %c2 : index
        %te_xBox = arith.muli %te_wHalf, %c4096t : index
        %te_wOdd = arith.remui %te_warp, %c2 : index
        %te_xc0 = arith.muli %te_wOdd, %te_c4 : index
        %te_quadHi = arith.divui %te_quad, %te_c4 : index
        %te_xc = arith.addi %te_xc0, %te_quadHi : index
        %te_quadLo = arith.remui %te_quad, %te_c4 : index
        %te_xWithin = arith.muli %te_quadLo, %te_c4 : index
)mlir";
  // The column n of each (half, hh), clamped into the result.
  for (int h = 0; h < 2; ++h)
    for (int hh = 0; hh < 2; ++hh)
      text += llvm::formatv(R"mlir(
        %te_nd{0}{1} = arith.constant {2} : index
        %te_n{0}{1} = arith.addi %te_n0b, %te_nd{0}{1} : index
        %te_nc{0}{1} = arith.minui %te_n{0}{1}, %te_cN1 : index
)mlir",
                            h, hh, 64 * h + 8 * hh)
                .str();
  // The C buffers as f32 (one view of the warpgroup's region).
  if (prefetched)
    text += "        %te_buf = memref.view %smem[%stageBase][] : !smem to !stageXT\n";
  for (int hh = 0; hh < 2; ++hh)
    for (int odd = 0; odd < 2; ++odd)
      text += llvm::formatv(R"mlir(
        %te_r{0}{1}a = arith.constant {2} : index
        %te_r{0}{1} = arith.addi %te_q2, %te_r{0}{1}a : index
        %te_rb{0}{1} = arith.muli %te_r{0}{1}a, %c128 : index
        %te_row{0}{1} = arith.addi %te_qRow, %te_rb{0}{1} : index
        %te_sc{0}{1}a = arith.constant {0} : index
        %te_sc{0}{1} = arith.addi %te_w2, %te_sc{0}{1}a : index
        %te_ss{0}{1} = arith.xori %te_sc{0}{1}, %te_r{0}{1} : index
        %te_ssb{0}{1} = arith.muli %te_ss{0}{1}, %te_c16 : index
        %te_sb{0}{1}a = arith.addi %te_row{0}{1}, %te_ssb{0}{1} : index
        %te_sb{0}{1} = arith.addi %te_sb{0}{1}a, %te_quad2 : index
        %te_xh{0}{1} = arith.muli %te_sc{0}{1}a, %c2 : index
        %te_xcc{0}{1} = arith.addi %te_xc, %te_xh{0}{1} : index
        %te_xs{0}{1} = arith.xori %te_xcc{0}{1}, %te_r{0}{1} : index
        %te_xsb{0}{1} = arith.muli %te_xs{0}{1}, %te_c16 : index
        %te_xb{0}{1}a = arith.addi %te_row{0}{1}, %te_xsb{0}{1} : index
        %te_xb{0}{1}b = arith.addi %te_xb{0}{1}a, %te_xWithin : index
        %te_xb{0}{1} = arith.addi %te_xb{0}{1}b, %te_xBox : index
)mlir",
                            hh, odd, odd)
                  .str();
  for (int64_t u = 0; u < chunks.count; ++u) {
    std::string p = "te" + std::to_string(u);
    text += chunkPlaceText(p, u, "%tt_turn");
    if (prefetched)
      text += llvm::formatv("        nvgpu.mbarrier.try_wait.parity "
                            "%cbar[%{0}_bar], %{0}_par, %ticks : !cbars\n",
                            p)
                  .str();
    // The staging boxes were stored by the chunk before: wait until TMA
    // has read them.
    text += R"mlir(
        scf.if %elected {
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
        nvvm.barrier id = %wgBar number_of_threads = %wgCount
)mlir";
    // Row group gt of the tile: accumulator registers 4 gt .. 4 gt + 3 of
    // each half.
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t gg = 0; gg < chunks.groupsIn(u); ++gg) {
        int64_t gt = 4 * u + gg;
        for (int64_t r = 0; r < 4; ++r) {
          int hh = (r / 2) % 2, odd = r % 2;
          std::string v = llvm::formatv("{0}_{1}_{2}_{3}", p, h, gg, r).str();
          std::string xArg, xType;
          if (prefetched) {
            text += llvm::formatv(R"mlir(
        %{0}_xr = arith.constant {1} : index
        %{0}_xb0 = arith.addi %te_xb{2}{3}, %{0}_xr : index
        %{0}_xb = arith.addi %{0}_xb0, %{4}_xo : index
        %{0}_xi = arith.divui %{0}_xb, %te_c4 : index
        %{0}_x = memref.load %te_buf[%{0}_xi] : !stageXT
)mlir",
                                  v, 8192 * h + 1024 * gg, hh, odd, p)
                        .str();
            xArg = llvm::formatv(", %{0}_x", v).str();
            xType = ", f32";
          }
          text += llvm::formatv(R"mlir(
        %{0}_a = llvm.extractvalue %acc{1}[{2}] : !accS
        %{0}_mo = arith.constant {3} : index
        %{0}_m = arith.addi %te_mq, %{0}_mo : index
        %{0}_mc = arith.minui %{0}_m, %te_cM1 : index
        %{0}_e = func.call @$KERNEL_epilogue(%{0}_a, %b, %{0}_mc, %te_nc{4}{5}{6}$EPI_ARGS) : (f32, index, index, index{7}$EPI_TYPES) -> $OUT
        %{0}_sr = arith.constant {8} : index
        %{0}_sb = arith.addi %te_sb{5}{9}, %{0}_sr : index
        %{0}_si = arith.divui %{0}_sb, %c2 : index
        memref.store %{0}_e, %stage[%{0}_si] : !stageC
)mlir",
                                v, h == 0 ? "L" : "R", 4 * gt + r,
                                8 * gt + odd, h, hh, xArg, xType,
                                4096 * h + 1024 * gg, odd)
                      .str();
        }
      }
    // Every thread has read its C buffer and written the staging boxes:
    // the elected thread stores them, 8 rows at a time (a tile's rows end
    // inside a chunk when TM is not a multiple of 32), and loads chunk
    // u + 2 into the buffer.
    text += kStagingStoreOpenText;
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t gg = 0; gg < chunks.groupsIn(u); ++gg)
        text += llvm::formatv(R"mlir(
          %{0}_so{1}{2} = arith.constant {3} : index
          %{0}_sa{1}{2} = arith.addi %stageBase, %{0}_so{1}{2} : index
          %{0}_box{1}{2} = memref.view %smem[%{0}_sa{1}{2}][] : !smem to !boxC
          %{0}_mu{1}{2} = arith.constant {4} : index
          %{0}_mm{1}{2} = arith.addi %m0, %{0}_mu{1}{2} : index
          %{0}_nu{1}{2} = arith.constant {5} : index
          %{0}_nn{1}{2} = arith.addi %n0, %{0}_nu{1}{2} : index
          nvgpu.tma.async.store %{0}_box{1}{2} to %tmaC[%{0}_nn{1}{2}, %{0}_mm{1}{2}$CCOORD] : !boxC -> !tmaC
)mlir",
                              p, h, gg, 4096 * h + 1024 * gg,
                              8 * (4 * u + gg), 64 * h)
                    .str();
    text += "          nvvm.cp.async.bulk.commit.group\n";
    if (prefetched && u + 2 < chunks.count) {
      std::string q = "tl" + std::to_string(u + 2);
      text += chunkPlaceText(q, u + 2, "%tt_turn");
      text += llvm::formatv(
                  "          %{0}_g = func.call @$KERNEL_dependency(%b$EPI_ARGS) "
                  ": (index$EPI_TYPES) -> index\n",
                  q)
                  .str();
      text += chunkOperandLoadText(q, u + 2);
    }
    text += "        }\n";
  }
  return text;
}
