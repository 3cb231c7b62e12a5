//===- GemmSimpleKernel.cpp - one CTA per GEMM tile -----------------------===//
//
// One CTA computes a 128 x BN tile of one batch element (BN = 256 on two
// warpgroups of 64x256 accumulators when N >= 256, else 128 on one), walking
// K in 64-wide tiles:
//
//   thread 0: TMA loads of k-tiles 0..S-2 into ring slots, mbarrier expect_tx
//   for each k-tile kt:
//     wait mbarrier[kt % S] (phase parity (kt / S) % 2)
//     wgmma from the slot (nvgpu.warpgroup.mma, which waits for the
//       previous group, so slot (kt-1) % S is free; with transpose_rhs, B is
//       K-major and the wgmma are written out here, as nvgpu's lowering
//       steps B's descriptor for an N-major B only)
//     barrier; thread 0 refills that slot with k-tile kt + S - 1
//   wait all wgmma; accumulators -> shared memory (fp32, reusing the ring)
//   every thread: element-wise epilogue (the op's region, as a device
//   function) on its elements, bounds-checked store to global memory.
//
// A and B are read through 3-D tensor maps when batched ([B, M, K] and
// [B, K, N]; 2-D when shared), so that rows past M and K are zero-filled,
// never read from the next batch element.
// Partial tiles in M, N and K come from TMA's zero fill and the store's
// bounds check.
//
// The kernel body is a textual template: it reads as the kernel it is, and
// only the tile arithmetic and types vary. The epilogue is built op by op.
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
// $NAME placeholders are replaced by replaceAll(); every name used here is
// listed in buildGemmKernel.
constexpr const char *kKernelTemplate = R"mlir(
$TYPES
!stageW = memref<$ACCMx$BNxf32, strided<[$BNP, 1]>, #gpu.address_space<workgroup>>
!stage = memref<128x$BNPxf32, #gpu.address_space<workgroup>>

gpu.module @scratch {
  gpu.func @$KERNEL(%tmaAp: !llvm.ptr, %tmaBp: !llvm.ptr, %C: $CTYPE$EPI_PARAMS) kernel
      attributes {nvvm.maxntid = array<i32: $THREADS, 1, 1>} {
$CASTS
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %cS = arith.constant $S : index
    %cSm1 = arith.constant $SM1 : index
    %cM = arith.constant $M : index
    %cN = arith.constant $N : index
    %cBN = arith.constant $BN : index
    %kTiles = arith.constant $KT : index
    %tileBytesA = arith.constant 16384 : index
    %tileBytesB = arith.constant $TILEB : index
    %wgBytesA = arith.constant $WGBYTESA : index
    %ringB = arith.constant $RINGB : index
    %txBytes = arith.constant $TX : index
    %ticks = arith.constant 10000000 : index
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %nb = gpu.block_id x
    %mb = gpu.block_id y
    %b = gpu.block_id z
    %n0 = arith.muli %nb, %cBN : index
    %m0 = arith.muli %mb, %c128 : index
    %aRow = $AROW
    %leader = arith.cmpi eq, %tid, %c0 : index
    %smem = gpu.dynamic_shared_memory : !smem
    // 128B-swizzled TMA tiles need 1024-byte aligned shared memory.
    %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
$SMEM_REGION$DESC_SETUP    %wgOffA = arith.muli %wg, %wgBytesA : index
    %bars = nvgpu.mbarrier.create -> !bars
    scf.if %leader {
      scf.for %s = %c0 to %cS step %c1 {
        nvgpu.mbarrier.init %bars[%s], %c1 : !bars
      }
      nvgpu.tma.prefetch.descriptor %tmaA : !tmaA
      nvgpu.tma.prefetch.descriptor %tmaB : !tmaB
    }
    gpu.barrier

    %prologue = arith.minui %cSm1, %kTiles : index
    scf.for %kt = %c0 to %prologue step %c1 {
      scf.if %leader {
$LOAD_PROLOGUE
      }
    }
    // Warpgroup %wg multiplies rows [%wg * ACCM, (%wg + 1) * ACCM) of the
    // A tile with the whole B tile.
    %acc0 = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %accN = scf.for %kt = %c0 to %kTiles step %c1 iter_args(%acc = %acc0) -> (!acc) {
$SLOT      nvgpu.mbarrier.try_wait.parity %bars[%s], %parity, %ticks : !bars
      %aOff0 = arith.muli %s, %tileBytesA : index
      %aOff1 = arith.addi %aOff0, %pad : index
      %aOff = arith.addi %aOff1, %wgOffA : index
      %bOff0 = arith.muli %s, %tileBytesB : index
      %bOff1 = arith.addi %bOff0, %ringB : index
      %bOff = arith.addi %bOff1, %pad : index
$MMA      // The mma of kt-1 is complete (wait_group 1 in every warpgroup): once
      // all threads got here its slot takes k-tile kt + S - 1.
      %next = arith.addi %kt, %cSm1 : index
      %more = arith.cmpi ult, %next, %kTiles : index
      scf.if %more {
        gpu.barrier
        scf.if %leader {
$LOAD_REFILL
        }
      }
      scf.yield %acc2 : !acc
    }
    nvvm.wgmma.wait.group.sync.aligned 0
    gpu.barrier
    // Epilogue through a shared staging tile of 128 x BN fp32, rows padded
    // by 8 floats so that the fragment stores of 8 rows do not hit the same
    // banks. Each
    // warpgroup stores its accumulator rows; nvgpu.warpgroup.mma.store places
    // warpgroup w's rows at w * ACCM from the base it is given (it derives
    // them from the thread id), so both get the same 64-row view. Then eight
    // consecutive columns per thread: one 32-byte shared load, the epilogue
    // on each element, one vector store (N is a multiple of 8, so a vector
    // is either fully inside N or fully outside).
    %stage = memref.view %smem[%pad][] : !smem to !stage
    %stageW = memref.subview %stage[0, 0] [$ACCM, $BN] [1, 1] : !stage to !stageW
    nvgpu.warpgroup.mma.store %accN, %stageW : !acc to !stageW
    gpu.barrier
    %total = arith.constant $STAGEELEMS : index
    %step = arith.constant $STAGESTEP : index
    %first = arith.muli %tid, %c8 : index
    scf.for %i = %first to %total step %step {
      %r = arith.divui %i, %cBN : index
      %col = arith.remui %i, %cBN : index
      %m = arith.addi %m0, %r : index
      %n = arith.addi %n0, %col : index
      %inM = arith.cmpi ult, %m, %cM : index
      %inN = arith.cmpi ult, %n, %cN : index
      %in = arith.andi %inM, %inN : i1
      scf.if %in {
        %v = vector.load %stage[%r, %col] {alignment = 16} : !stage, vector<8xf32>
        %o_init = ub.poison : vector<8x$OUT>
$LANES
        vector.store %o_7, %C[%b, %m, %n] {alignment = 16} : $CTYPE, vector<8x$OUT>
      }
    }
    gpu.return
  }

  // The op's epilogue region; its body is built after parsing.
  func.func private @$KERNEL_epilogue(f32, index, index, index$EPI_TYPES) -> $OUT
}
)mlir";

// The k-tile's wgmma with B N-major ([K, N] rows): nvgpu's warpgroup ops.
constexpr const char *kNvgpuMmaTemplate = R"mlir(
      %va = memref.view %smem[%aOff][] : !smem to !tileAW
      %vb = memref.view %smem[%bOff][] : !smem to !tileB2
      %da = nvgpu.warpgroup.generate.descriptor %va, %tmaAW : !tileAW, !tmaAW -> !dA
      %db = nvgpu.warpgroup.generate.descriptor %vb, %tmaB2 : !tileB2, !tmaB2 -> !dB
      %acc2 = nvgpu.warpgroup.mma %da, %db, %acc {transposeB} : !dA, !dB, !acc -> !acc
)mlir";

/// The k-tile's wgmma with B K-major (the rhs transposed, [N, K] rows: the
/// tile is BN rows of 64 k, 128B-swizzled like A), written as nvvm.wgmma:
/// each k16 step moves both descriptors 32 bytes along the row. The
/// accumulator stays nvgpu's type between k-tiles (one m64 struct per 64
/// rows, which is what nvgpu lowers it to) so that the epilogue's
/// nvgpu.warpgroup.mma.store takes it as before.
std::string kMajorBMmaText(int64_t accRows, int64_t tileN, StringRef element) {
  std::string inner = f32StructType(tileN / 2);
  std::string outer = "!llvm.struct<(" + inner;
  for (int64_t mb = 1; mb < accRows / 64; ++mb)
    outer += ", " + inner;
  outer += ")>";
  std::string text = llvm::formatv(R"mlir(
      %accIn = builtin.unrealized_conversion_cast %acc : !acc to {0}
)mlir",
                                   outer)
                         .str();
  text += wgmmaDescriptorText("aDesc", "aOff");
  text += wgmmaDescriptorText("bDesc", "bOff");
  text += "      nvvm.wgmma.fence.aligned\n";
  text += llvm::formatv("      %accOut0 = llvm.mlir.poison : {0}\n", outer).str();
  // Both operands K-major: 32 bytes (2 descriptor units) a k16 step.
  WgmmaHalves kMajorLayout;
  kMajorLayout.aStep = 2;
  kMajorLayout.bStep = 2;
  kMajorLayout.n = tileN;
  kMajorLayout.bLayout = "col";
  for (int64_t mb = 0; mb < accRows / 64; ++mb) {
    // Rows 64 mb.. of A lie 64 rows x 128 bytes further on.
    text += llvm::formatv(R"mlir(
      %am{0} = arith.constant {1} : i64
      %aDm{0} = arith.addi %aDesc, %am{0} : i64
      %w{0}_in = llvm.extractvalue %accIn[{0}] : {2}
)mlir",
                          mb, mb * 64 * 128 / 16, outer)
                .str();
    text += wgmmaK16StepsText(llvm::formatv("w{0}", mb).str(),
                              llvm::formatv("aDm{0}", mb).str(), "bDesc",
                              llvm::formatv("%w{0}_in", mb).str(),
                              llvm::formatv("%w{0}_3", mb).str(), inner,
                              element, kMajorLayout, /*zeroFirst=*/false);
    text += llvm::formatv(
                "      %accOut{0} = llvm.insertvalue %w{1}_3, %accOut{1}[{1}] : {2}\n",
                mb + 1, mb, outer)
                .str();
  }
  text += llvm::formatv(R"mlir(
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 1
      %acc2 = builtin.unrealized_conversion_cast %accOut{0} : {1} to !acc
)mlir",
                        accRows / 64, outer)
              .str();
  return text;
}
} // namespace

FailureOr<KernelLaunch> mlir::sc::detail::buildSimpleGemmKernel(
    BatchMatmulOp op, gpu::GPUModuleOp gpuModule, StringRef kernelName,
    const GemmBinding &binding, const GemmKernelOptions &options) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType resultType = op.getType();
  Type elementType = lhsType.getElementType();
  auto [m, n, k, lhsBatched, rhsBatched] = GemmShape(op);

  // The tile is 128 x BN: BN = 128 with one warpgroup (128x128 accumulator),
  // or BN = 256 with two warpgroups of 64x256 each, which halves how often
  // A is re-read and uses the widest wgmma.
  int64_t tileN = options.tileN;
  if (tileN == 0)
    tileN = n >= 256 ? 256 : 128;
  if (tileN != 128 && tileN != 256)
    return op.emitError() << "tile-n must be 128 or 256, got " << tileN;
  int64_t stages = options.stages ? options.stages : (tileN == 256 ? 4 : 2);
  if (stages < 2 || stages > 6)
    return op.emitError() << "stages must be in [2, 6], got " << stages;
  int64_t warpgroups = tileN / 128;
  int64_t accRows = kTileM / warpgroups;
  int64_t kTiles = llvm::divideCeil(k, kTileK);
  int64_t tileBytesB = kTileK * tileN * 2;
  int64_t ringBytes = stages * (kTileM * kTileK * 2 + tileBytesB);
  int64_t stageBytes = kTileM * (tileN + 8) * 4;
  // +1024: the kernel realigns the dynamic shared memory base.
  int64_t sharedBytes = std::max(ringBytes, stageBytes) + kSmemAlignReserve;
  if (sharedBytes > 227 * 1024)
    return op.emitError() << stages << " stages of a 128x" << tileN
                          << "x64 tile need " << sharedBytes
                          << " B of shared memory, more than 227 KB";

  llvm::StringMap<std::string> values;
  values["KERNEL"] = kernelName.str();
  values["SLOT"] = ringPositionText("%kt", "%s", "%parity", RingWait::Full);
  values["T"] = typeToString(elementType);
  values["OUT"] = typeToString(resultType.getElementType());
  values["CTYPE"] = typeToString(memrefOf(resultType));
  values["M"] = std::to_string(m);
  values["N"] = std::to_string(n);
  values["BN"] = std::to_string(tileN);
  values["BNP"] = std::to_string(tileN + 8);
  values["WGS"] = std::to_string(warpgroups);
  values["ACCM"] = std::to_string(accRows);
  values["THREADS"] = std::to_string(128 * warpgroups);
  values["KT"] = std::to_string(kTiles);
  values["S"] = std::to_string(stages);
  values["SM1"] = std::to_string(stages - 1);
  values["TILEB"] = std::to_string(tileBytesB);
  values["WGBYTESA"] = std::to_string(accRows * kTileK * 2);
  values["RINGB"] = std::to_string(stages * kTileM * kTileK * 2);
  values["TX"] = std::to_string(kTileM * kTileK * 2 + tileBytesB);
  values["STAGEELEMS"] = std::to_string(kTileM * tileN);
  values["STAGESTEP"] = std::to_string(128 * warpgroups * 8);
  values["BBOX"] = rhsBatched ? "1x64x64" : "64x64";
  values["BCOORD"] = rhsBatched ? ", %b" : "";
  // A batched A is read through a 3-D map [B, M, K]: rows past M are
  // zero-filled instead of read from the next batch element.
  values["AROW"] = "arith.addi %m0, %c0 : index";
  values["ABOX"] = lhsBatched ? "1x128x64" : "128x64";
  values["ACOORD"] = lhsBatched ? ", %b" : "";
  epilogueText(op, values);
  std::string lanes = epilogueLanes(8);
  // Two phases: first splice the generated pieces, then fill in the values
  // they share with the template.
  llvm::StringMap<std::string> pieces;
  pieces["LANES"] = lanes;
  pieces["TYPES"] = kTmaTypesTemplate;
  pieces["SMEM_REGION"] = smemRegionText();
  pieces["CASTS"] = kTmaCastsTemplate;
  bool kMajorB = op.getTransposeRhs();
  pieces["LOAD_PROLOGUE"] = loadText("pro", "kt", "kt", "bars", tileN, kMajorB);
  pieces["LOAD_REFILL"] = loadText("ref", "next", "next", "bars", tileN, kMajorB);
  pieces["DESC_SETUP"] =
      kMajorB ? wgmmaDescriptorConstantsText() +
                    "    %smemBase = arith.index_cast %base : index to i64\n"
              : "";
  pieces["MMA"] = kMajorB ? kMajorBMmaText(accRows, tileN,
                                           typeToString(elementType))
                          : kNvgpuMmaTemplate;
  std::string text = replaceAll(replaceAll(kKernelTemplate, pieces), values);

  if (failed(installKernel(op, gpuModule, kernelName, text)))
    return failure();

  // The launch: grid (N tiles, M tiles, batch), tensor maps, memrefs.
  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = 128 * warpgroups;
  launch.grid[0] = LaunchDim::of(llvm::divideCeil(n, tileN));
  launch.grid[1] = LaunchDim::of(llvm::divideCeil(m, kTileM));
  launch.grid[2] = binding.batchOf(resultType);
  launch.sharedBytes = sharedBytes;
  std::vector<LaunchParam> params = tmaKernelParams(op, binding);
  launch.params.assign(params.begin(), params.end());
  launch.summary =
      llvm::formatv("{0}: {1}x{2}x{3} {4}, tile 128x{12}x64, {13} "
                    "warpgroup(s), {5} stages, {6} k-tiles, grid {7}x{8}x{9}, "
                    "{10} B shared memory, epilogue {11}",
                    kernelName, m, n, k, typeToString(elementType), stages,
                    kTiles, launch.grid[0].constant, launch.grid[1].constant,
                    launch.grid[2].symbol.empty()
                        ? std::to_string(launch.grid[2].constant)
                        : launch.grid[2].symbol,
                    sharedBytes,
                    op.hasEpilogue() ? "fused (region)" : "convert", tileN,
                    warpgroups)
          .str();
  return launch;
}
