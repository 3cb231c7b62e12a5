//===- GemmMultiStage.cpp - a GEMM's kernel that runs another as stage 1 --===//
//
// The pieces the warp-specialized GEMM kernel takes when another GEMM runs
// as its first stage (GemmStageOne, sc-fuse-gemm-stages): one tile sequence
// over both GEMMs, each stage's tensor maps and k-tile count per tile, a
// stage-1 epilogue that stores from registers and releases the tile's flag,
// a stage-2 epilogue that acquires the flag of the tile it reads.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "TemplateUtils.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::detail;

namespace {
// Multi-stage kernels (see GemmStageOne). The CTA's tiles are taken from
// one sequence: the T1 stage-1 tiles in ascending order, then the T2
// stage-2 tiles in descending order; tile t of it is stage-1 tile t, or
// stage-2 tile T1 + T2 - 1 - t. Every CTA thus finishes its stage-1 tiles
// before it starts a stage-2 tile: with all CTAs resident (grid = SMs) a
// stage-2 tile only waits for tiles that are running or done.
constexpr const char *kStageTilesTemplate = R"mlir(
    %tiles2 = arith.muli %batch, %perBatch : index
    %users = memref.dim %C1, %c0 : $C1TYPE
    %tiles1 = arith.muli %users, %perBatch : index
    %numTiles = arith.addi %tiles1, %tiles2 : index
)mlir";

// The flags' address and k-tiles of stage 1 (after ctaShareText's %mine1:
// how many of the CTA's tiles are stage-1 tiles).
constexpr const char *kStageSetupTemplate = R"mlir(
    %kTiles1 = arith.constant $KT1 : index
    %flagsBase = memref.extract_aligned_pointer_as_index %flags : memref<?xi32> -> index
    %c4 = arith.constant 4 : index
    %flagTarget = arith.constant $FLAG_TARGET : i32
)mlir";

constexpr const char *kStageTileIndexTemplate = R"mlir(
        %t0 = arith.addi %unit, %i_s : index
        %isStage1 = arith.cmpi ult, %t0, %tiles1 : index
        %tLast = arith.subi %numTiles, %c1 : index
        %tDown = arith.subi %tLast, %t0 : index
        %t = arith.select %isStage1, %t0, %tDown : index
)mlir";

// Where tile %i's k-tiles start in the ring (stage-1 tiles have KT1 of
// them, stage-2 tiles KT): min(i, mine1) KT1 + max(0, i - mine1) KT.
constexpr const char *kStageRingStartTemplate = R"mlir(
        %rs1 = arith.minui %i, %mine1 : index
        %rs2 = arith.subi %i, %rs1 : index
        %rs1k = arith.muli %rs1, %kTiles1 : index
        %rs2k = arith.muli %rs2, %kTiles : index
        %j0 = arith.addi %rs1k, %rs2k : index
        %kTilesHere = arith.select %isStage1, %kTiles1, %kTiles : index
)mlir";

// The producer loads a tile from its stage's tensor maps.
constexpr const char *kStageSelectMapsTemplate = R"mlir(
          %tmaAsel = llvm.select %isStage1, %tmaA1p, %tmaAp : i1, !llvm.ptr
          %tmaBsel = llvm.select %isStage1, %tmaB1p, %tmaBp : i1, !llvm.ptr
          %tmaAt = builtin.unrealized_conversion_cast %tmaAsel : !llvm.ptr to !tmaA
          %tmaBt = builtin.unrealized_conversion_cast %tmaBsel : !llvm.ptr to !tmaB
)mlir";

// %<p>ptr: the global address of the flag of tile (%<u>, %mb, %nb).
std::string flagAddressText(StringRef p, StringRef u) {
  return replaceAll(R"mlir(
          %$Pt0 = arith.muli $U, %cGM : index
          %$Pt1 = arith.addi %$Pt0, %mb : index
          %$Pt2 = arith.muli %$Pt1, %cGN : index
          %$Pt = arith.addi %$Pt2, %nb : index
          %$Poff = arith.muli %$Pt, %c4 : index
          %$Paddr = arith.addi %flagsBase, %$Poff : index
          %$Paddr64 = arith.index_cast %$Paddr : index to i64
          %$Pptr = llvm.inttoptr %$Paddr64 : i64 to !llvm.ptr<1>
)mlir",
                    {{"P", p.str()}, {"U", u.str()}});
}

/// Waits until the flag at %`p`ptr (from flagAddressText) reaches
/// %flagTarget: relaxed polls, then one acquire load, which orders the
/// stage-1 tile's stores before what this thread reads next.
std::string acquireFlagText(StringRef p) {
  return replaceAll(R"mlir(            scf.while : () -> () {
              %$P_v = llvm.load %$Pptr atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> i32
              %$P_notYet = arith.cmpi ult, %$P_v, %flagTarget : i32
              scf.condition(%$P_notYet)
            } do {
              scf.yield
            }
            %$P_seen = llvm.load %$Pptr atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
)mlir",
                    {{"P", p.str()}});
}

/// Stage 1's epilogue, per consumer warpgroup on its 64 rows: the op's
/// epilogue on the registers, stored straight to global memory (pairs of
/// columns; the result is small and read by stage 2 through the cache), then
/// the tile's readiness published: the warpgroup's stores are ordered before
/// its elected thread's release add on the tile's flag by the named barrier.
std::string stageOneEpilogueText(ArrayRef<std::string> accs,
                                 int64_t rowsPerWarpgroup) {
  std::string text = fragmentCoordinatesText("s1_", rowsPerWarpgroup);
  for (auto [h, acc] : llvm::enumerate(accs))
    for (int64_t p = 0; p < 32; ++p) {
      int row = 8 * (p % 2);
      text += llvm::formatv(R"mlir(
          %s1_xa{0}_{1} = llvm.extractvalue {2}[{3}] : !accS
          %s1_xb{0}_{1} = llvm.extractvalue {2}[{4}] : !accS
          %s1_no{0}_{1} = arith.constant {5} : index
          %s1_n{0}_{1} = arith.addi %s1_col, %s1_no{0}_{1} : index
          %s1_inN{0}_{1} = arith.cmpi ult, %s1_n{0}_{1}, %cN : index
          %s1_in{0}_{1} = arith.andi %s1_in{6}, %s1_inN{0}_{1} : i1
          scf.if %s1_in{0}_{1} {{
            %s1_n1 = arith.addi %s1_n{0}_{1}, %c1 : index
            %s1_ea = func.call @$KERNEL_epilogue1(%s1_xa{0}_{1}, %b, %s1_row{6}, %s1_n{0}_{1}) : (f32, index, index, index) -> $OUT1
            %s1_eb = func.call @$KERNEL_epilogue1(%s1_xb{0}_{1}, %b, %s1_row{6}, %s1_n1) : (f32, index, index, index) -> $OUT1
            %s1_v = vector.from_elements %s1_ea, %s1_eb : vector<2x$OUT1>
            vector.store %s1_v, %C1[%b, %s1_row{6}, %s1_n{0}_{1}] {{alignment = $PAIRALIGN : i64} : $C1TYPE, vector<2x$OUT1>
          }
)mlir",
                            h, p, acc, 2 * p, 2 * p + 1,
                            128 * h + 8 * (p / 2), row)
                  .str();
    }
  text += R"mlir(
          nvvm.barrier id = %wgBar number_of_threads = %wgCount
          scf.if %elected {
)mlir";
  text += flagAddressText("rf", "%b");
  text += R"mlir(
            nvvm.inline_ptx "red.release.gpu.global.add.u32 [$0], 1;" ro(%rfptr : !llvm.ptr<1>)
          }
)mlir";
  return text;
}

// Before stage 2's epilogue reads stage 1's result: one thread polls the
// flag of the stage-1 tile it reads (relaxed loads), then one acquire load;
// the named barrier passes the order on to the warpgroup. A batch index out
// of range (a bad index the runtime was not asked to check) waits for
// nothing.
constexpr const char *kStageTwoWaitTemplate = R"mlir(
          %fw_u = func.call @$KERNEL_dependency(%b$EPI_ARGS) : (index$EPI_TYPES) -> index
          %fw_known = arith.cmpi ult, %fw_u, %users : index
          %fw_poll = arith.andi %fw_known, %elected : i1
          scf.if %fw_poll {
$FLAG_ADDRESS$ACQUIRE          }
          nvvm.barrier id = %wgBar number_of_threads = %wgCount
)mlir";

} // namespace

std::string mlir::sc::detail::stageTwoPrefetchWaitText(StringRef g) {
  // The flag of the stage-1 tile the TMA is about to read: relaxed polls,
  // one acquire load (a batch index out of range waits for nothing: TMA
  // then reads zeros), then stage 1's stores (generic proxy) ordered
  // before this thread's TMA reads (async proxy).
  return flagAddressText("pw", g) +
         replaceAll(R"mlir(
          %pw_known = arith.cmpi ult, $G, %users : index
          scf.if %pw_known {
$ACQUIRE          }
          nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
)mlir",
                    {{"G", g.str()}, {"ACQUIRE", acquireFlagText("pw")}});
}

std::string mlir::sc::detail::multiStageTileIndexText() {
  return kStageTileIndexTemplate;
}

void mlir::sc::detail::multiStagePieces(const GemmStageOne &stage1,
                                        bool pingpong,
                                        int64_t rowsPerWarpgroup,
                                        llvm::StringMap<std::string> &pieces,
                                        llvm::StringMap<std::string> &values) {
  BatchMatmulOp op1 = stage1.op;
  values["KT1"] = std::to_string(
      llvm::divideCeil(op1.getLhs().getType().getShape().back(), kTileK));
  values["C1TYPE"] = typeToString(memrefOf(op1.getType()));
  values["OUT1"] = typeToString(op1.getType().getElementType());
  // N is a multiple of 8 and the column even: a pair is aligned to its size.
  values["PAIRALIGN"] =
      std::to_string(2 * op1.getType().getElementTypeBitWidth() / 8);
  // Each consumer warpgroup writing the tile adds one.
  values["FLAG_TARGET"] = pingpong ? "1" : "2";
  pieces["STAGE1_PARAMS"] = ", %tmaA1p: !llvm.ptr, %tmaB1p: !llvm.ptr, "
                            "%C1: $C1TYPE, %flags: memref<?xi32>";
  pieces["NUM_TILES"] = kStageTilesTemplate;
  pieces["STAGE1_SETUP"] = ctaShareText("1", "%tiles1") + kStageSetupTemplate;
  pieces["STAGE1_PREFETCH"] =
      "      %tmaA1 = builtin.unrealized_conversion_cast %tmaA1p : !llvm.ptr to !tmaA\n"
      "      %tmaB1 = builtin.unrealized_conversion_cast %tmaB1p : !llvm.ptr to !tmaB\n"
      "      nvgpu.tma.prefetch.descriptor %tmaA1 : !tmaA\n"
      "      nvgpu.tma.prefetch.descriptor %tmaB1 : !tmaB\n";
  pieces["RING_START"] = kStageRingStartTemplate;
  pieces["KTILES_HERE"] = "%kTilesHere";
  pieces["SELECT_MAPS"] = kStageSelectMapsTemplate;
  pieces["STAGE1_FUNCS"] =
      "  func.func private @$KERNEL_epilogue1(f32, index, index, index) -> $OUT1\n"
      "  func.func private @$KERNEL_dependency(index$EPI_TYPES) -> index\n";
  pieces["EPILOGUE"] =
      "        scf.if %isStage1 {\n" +
      stageOneEpilogueText({"%accL", "%accR"}, rowsPerWarpgroup) +
      "        } else {\n" +
      replaceAll(kStageTwoWaitTemplate,
                 {{"FLAG_ADDRESS", flagAddressText("fw", "%fw_u")},
                  {"ACQUIRE", acquireFlagText("fw")}}) +
      pieces["EPILOGUE"] + "        }\n";
}

void mlir::sc::detail::addMultiStageLaunch(KernelLaunch &launch,
                                           const GemmStageOne &stage1,
                                           int64_t tileM) {
  // Stage 1's A and B tensor maps and C (a memref), then the flags.
  std::vector<LaunchParam> params1 =
      tmaKernelParams(stage1.op, stage1.binding, tileM);
  launch.params.insert(launch.params.end(), params1.begin(),
                       params1.begin() + 3);
  LaunchParam flags;
  flags.tensor = stage1.flags;
  launch.params.push_back(flags);
  BatchMatmulOp op1 = stage1.op;
  int64_t k1 = op1.getLhs().getType().getShape().back();
  launch.summary += llvm::formatv(
      "; multi-stage: first the {0}x{1}x{2} GEMM's tiles (stage 1, "
      "ascending, {3} k-tiles, epilogue stored from registers), then this "
      "GEMM's (stage 2, descending); each stage-1 tile releases a flag in "
      "{4} (red.release.gpu), each stage-2 epilogue acquires the flag of "
      "the stage-1 tile it reads (ld.relaxed polling, ld.acquire, named "
      "barrier)",
      op1.getType().getDimSize(1), op1.getType().getDimSize(2), k1,
      llvm::divideCeil(k1, kTileK), stage1.flags);
}
