//===- GemmKernel.cpp - sc.batch_matmul to a GPU kernel ------------------===//
//
// Which kernel an sc.batch_matmul gets, and what the kernels share. On
// sm_90a, when the op fits TMA and wgmma: the warp-specialized persistent
// kernel (cooperative or ping-pong, GemmWarpSpecializedKernel.cpp) or the
// simple one-CTA-per-tile kernel (GemmSimpleKernel.cpp), by --gemm-schedule;
// else the portable kernel (GemmPortableKernel.cpp), with a remark saying
// why. The kernel bodies are textual templates: they read as the kernels
// they are, and only the tile arithmetic and types vary. The epilogue
// region becomes a device function, built op by op.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelCommon.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"
#include "sparcast/Transforms/KernelConfig.h"
#include "TemplateUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;
using mlir::sc::detail::replaceAll;
using mlir::sc::detail::typeToString;

namespace mlir::sc::detail {

const char *const kTmaTypesTemplate = R"mlir(
!tmaA = !nvgpu.tensormap.descriptor<tensor = memref<$ABOXx$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaAW = !nvgpu.tensormap.descriptor<tensor = memref<$ACCMx64x$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaB = !nvgpu.tensormap.descriptor<tensor = memref<$BBOXx$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmaB2 = !nvgpu.tensormap.descriptor<tensor = memref<64x64x$T, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = $S>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<$ACCMx$BNxf32>>
!dA = !nvgpu.warpgroup.descriptor<tensor = memref<$ACCMx64x$T, 3>>
!dB = !nvgpu.warpgroup.descriptor<tensor = memref<64x$BNx$T, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!tileA = memref<$ABOXx$T, #gpu.address_space<workgroup>>
!tileAW = memref<$ACCMx64x$T, #gpu.address_space<workgroup>>
!tileB = memref<$BBOXx$T, #gpu.address_space<workgroup>>
!tileB2 = memref<64x$BNx$T, #gpu.address_space<workgroup>>
)mlir";

const char *const kTmaCastsTemplate = R"mlir(
    %tmaA = builtin.unrealized_conversion_cast %tmaAp : !llvm.ptr to !tmaA
    %tmaAW = builtin.unrealized_conversion_cast %tmaAp : !llvm.ptr to !tmaAW
    %tmaB = builtin.unrealized_conversion_cast %tmaBp : !llvm.ptr to !tmaB
    %tmaB2 = builtin.unrealized_conversion_cast %tmaBp : !llvm.ptr to !tmaB2
)mlir";

// Loads k-tile %$KT of A (one 128x64 box) and B (BN/64 boxes of 64x64) into
// ring slot (%$SLOT mod S), signalling barrier group %$FULL; local names are
// prefixed with $P so that several uses do not collide.
static constexpr const char *kLoadHeadTemplate = R"mlir(
        %$P_s = arith.remui %$SLOT, %cS : index
        %$P_k = arith.muli %$KT, %c64 : index
        %$P_aOff0 = arith.muli %$P_s, %tileBytesA : index
        %$P_aOff = arith.addi %$P_aOff0, %pad : index
        %$P_bOff0 = arith.muli %$P_s, %tileBytesB : index
        %$P_bOff1 = arith.addi %$P_bOff0, %ringB : index
        %$P_bOff = arith.addi %$P_bOff1, %pad : index
        %$P_va = memref.view %smem[%$P_aOff][] : !smem to !tileA
        nvgpu.mbarrier.arrive.expect_tx %$FULL[%$P_s], %txBytes : !bars
        nvgpu.tma.async.load %$MAPA[%$P_k, %aRow$ACOORD], %$FULL[%$P_s] to %$P_va : !tmaA, !bars -> !tileA
)mlir";

// Chunk $J of the B tile: columns [n0 + 64 J, n0 + 64 J + 64), 8 KB apart:
// 64 k-rows of 64 columns (N-major), or 64 n-rows of 64 k (K-major, the rhs
// transposed).
static constexpr const char *kLoadChunkTemplate = R"mlir(
        %$P_cb$J = arith.constant $CHUNKOFF : index
        %$P_bo$J = arith.addi %$P_bOff, %$P_cb$J : index
        %$P_cn$J = arith.constant $CHUNKCOL : index
        %$P_n$J = arith.addi %n0, %$P_cn$J : index
        %$P_vb$J = memref.view %smem[%$P_bo$J][] : !smem to !tileB
        nvgpu.tma.async.load %$MAPB[$BCOORDS$BCOORD], %$FULL[%$P_s] to %$P_vb$J : !tmaB, !bars -> !tileB
)mlir";

MemRefType memrefOf(RankedTensorType t) {
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// Clones `inner`, an op of an epilogue region, into `b`: tensor.extract on
/// an epilogue operand becomes memref.load; ops on tensors or with regions
/// are refused.
static LogicalResult cloneEpilogueOp(Operation &inner, OpBuilder &b,
                                     IRMapping &mapping) {
  if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
    Value memref = mapping.lookupOrNull(extract.getTensor());
    if (!memref || !isa<MemRefType>(memref.getType()))
      return inner.emitError()
             << "the GPU epilogue reads only the epilogue operands";
    SmallVector<Value> indices;
    for (Value i : extract.getIndices())
      indices.push_back(mapping.lookup(i));
    Value loaded = memref::LoadOp::create(b, inner.getLoc(), memref, indices);
    mapping.map(extract.getResult(), loaded);
    return success();
  }
  bool touchesTensors =
      llvm::any_of(inner.getOperandTypes(), llvm::IsaPred<TensorType>) ||
      llvm::any_of(inner.getResultTypes(), llvm::IsaPred<TensorType>) ||
      inner.getNumRegions() != 0;
  if (touchesTensors)
    return inner.emitError() << "'" << inner.getName()
                             << "' is not supported in a GPU epilogue";
  b.clone(inner, mapping);
  return success();
}

/// The epilogue of `op`'s result ("C") in its kernel-level function
/// (sc.kernel_ir), if any (a multi-stage kernel also has stage 1's, "C1").
static sck::EpilogueOp kernelIREpilogue(BatchMatmulOp op) {
  Operation *kernel = op.getKernelIR();
  sck::EpilogueOp found;
  if (kernel)
    kernel->walk([&](sck::EpilogueOp epilogue) {
      if (epilogue.getResult() != "C")
        return WalkResult::advance();
      found = epilogue;
      return WalkResult::interrupt();
    });
  return found;
}

Block *epilogueBlock(BatchMatmulOp op) {
  sck::EpilogueOp epilogue = kernelIREpilogue(op);
  // The templates read tensors, not boxes: an epilogue with a prefetched
  // operand (sc-prefetch-epilogue-operands) is only written by
  // sck-to-nvgpu, the templates take the op's region (the same meaning;
  // they prefetch by their own rule).
  if (!epilogue || llvm::any_of(epilogue.getIns().getTypes(),
                                llvm::IsaPred<sck::BoxType>))
    return op.getEpilogueBlock();
  return epilogue.getBody().empty() ? nullptr : &epilogue.getBody().front();
}

/// The epilogue `body` ((acc, b, m, n, ins...) -> element, see
/// epilogueBlock; null: the accumulator converted) as a device function
/// (acc, b, m, n, memrefs...) -> result element: tensor.extract on the
/// epilogue operands becomes memref.load; everything else is cloned. With
/// `prefetched` (an epilogue operand the kernel already loaded: see
/// BatchMatmulOp::getGatheredTileIndex), the function is
/// (acc, b, m, n, value, memrefs...) and that operand's reads are `value`.
LogicalResult buildEpilogueFunction(BatchMatmulOp op, Block *body,
                                    func::FuncOp func,
                                    std::optional<unsigned> prefetched) {
  Location loc = op.getLoc();
  Type resultElement = op.getType().getElementType();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  if (!body) {
    Value acc = entry->getArgument(0);
    Value out = acc;
    if (resultElement != acc.getType())
      out = arith::TruncFOp::create(b, loc, resultElement, acc);
    func::ReturnOp::create(b, loc, out);
    return success();
  }
  constexpr unsigned lead = BatchMatmulOp::kNumEpilogueLeadingArgs;
  // Region argument i -> function argument i (i + 1 past the leading ones
  // when a prefetched value comes first).
  auto funcArg = [&](unsigned i) {
    return entry->getArgument(prefetched && i >= lead ? i + 1 : i);
  };
  IRMapping mapping;
  for (unsigned i = 0; i < body->getNumArguments(); ++i) {
    Value to = funcArg(i);
    // The runtime passes only 16-byte aligned tensors: saying so lets LLVM
    // merge the loads of neighbouring columns into vector loads.
    if (isa<MemRefType>(to.getType()))
      to = memref::AssumeAlignmentOp::create(b, loc, to, 16).getResult();
    mapping.map(body->getArgument(i), to);
  }
  Value prefetchedArg =
      prefetched ? body->getArgument(lead + *prefetched) : Value();
  for (Operation &inner : *body) {
    // sc.yield or sck.yield: the element.
    if (inner.hasTrait<OpTrait::IsTerminator>()) {
      func::ReturnOp::create(b, loc, mapping.lookup(inner.getOperand(0)));
      continue;
    }
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner);
        extract && prefetchedArg && extract.getTensor() == prefetchedArg) {
      mapping.map(extract.getResult(), entry->getArgument(lead));
      continue;
    }
    if (failed(cloneEpilogueOp(inner, b, mapping)))
      return failure();
  }
  return success();
}

/// Moves the parsed kernel and its epilogue declaration into `gpuModule`
/// and builds the epilogue body.
LogicalResult installKernel(
    BatchMatmulOp op, gpu::GPUModuleOp gpuModule, StringRef kernelName,
    const std::string &text,
    function_ref<LogicalResult(gpu::GPUModuleOp)> buildMore,
    std::optional<unsigned> prefetched, bool epilogueFromKernelIR) {
  OwningOpRef<ModuleOp> parsed =
      sc::detail::parseTemplate(op.getContext(), text);
  if (!parsed)
    return op.emitError() << "internal error: the GEMM kernel template does "
                             "not parse";
  gpu::GPUModuleOp scratch = sc::detail::templateModule(*parsed);
  auto epilogue =
      scratch.lookupSymbol<func::FuncOp>((kernelName + "_epilogue").str());
  Block *body = epilogueFromKernelIR ? epilogueBlock(op) : op.getEpilogueBlock();
  if (failed(buildEpilogueFunction(op, body, epilogue, prefetched)))
    return failure();
  if (buildMore && failed(buildMore(scratch)))
    return failure();
  sc::detail::moveKernels(scratch, gpuModule);
  return success();
}

/// @<kernel>_dependency(b, memrefs...) -> index: stage2's g(b) (see
/// BatchMatmulOp::getStageDependency), the ops it needs cloned from the
/// epilogue region.
LogicalResult buildDependencyFunction(BatchMatmulOp stage2, Value g,
                                      func::FuncOp func) {
  // The region g belongs to (the op's or its kernel-level epilogue's).
  Block &body = *g.getParentBlock();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  IRMapping mapping;
  // Region (acc, b, m, n, ins...) -> function (b, ins...).
  constexpr unsigned lead = BatchMatmulOp::kNumEpilogueLeadingArgs;
  mapping.map(body.getArgument(1), entry->getArgument(0));
  for (unsigned i = lead; i < body.getNumArguments(); ++i)
    mapping.map(body.getArgument(i), entry->getArgument(i - lead + 1));
  for (Operation *inner : BatchMatmulOp::getEpilogueSlice(g))
    if (failed(cloneEpilogueOp(*inner, b, mapping)))
      return failure();
  func::ReturnOp::create(b, stage2.getLoc(), mapping.lookup(g));
  return success();
}

LogicalResult buildStageOneFunctions(BatchMatmulOp stage1,
                                     BatchMatmulOp stage2,
                                     gpu::GPUModuleOp scratch,
                                     StringRef kernelName) {
  std::string why;
  Value g = stage2.getStageDependency(stage1, why);
  if (!g)
    return stage2.emitError() << "internal error: " << why;
  auto epilogue1 =
      scratch.lookupSymbol<func::FuncOp>((kernelName + "_epilogue1").str());
  auto dependency =
      scratch.lookupSymbol<func::FuncOp>((kernelName + "_dependency").str());
  if (failed(buildEpilogueFunction(stage1, stage1.getEpilogueBlock(),
                                   epilogue1)))
    return failure();
  return buildDependencyFunction(stage2, g, dependency);
}

/// Epilogue parameters, arguments and types as template text.
void epilogueText(BatchMatmulOp op, llvm::StringMap<std::string> &values) {
  std::string epiParams, epiArgs, epiTypes;
  for (auto [i, v] : llvm::enumerate(op.getEpilogueIns())) {
    std::string t = typeToString(memrefOf(cast<RankedTensorType>(v.getType())));
    epiParams += llvm::formatv(", %e{0}: {1}", i, t).str();
    epiArgs += llvm::formatv(", %e{0}", i).str();
    epiTypes += ", " + t;
  }
  values["EPI_PARAMS"] = epiParams;
  values["EPI_ARGS"] = epiArgs;
  values["EPI_TYPES"] = epiTypes;
}

/// Parameters of the TMA kernels: A's and B's tensor maps, then C and the
/// epilogue operands as memrefs.
std::vector<LaunchParam> tmaKernelParams(BatchMatmulOp op,
                                         const GemmBinding &binding,
                                         int64_t tileM) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  int64_t m = op.getType().getDimSize(1), n = op.getType().getDimSize(2);
  int64_t k = lhsType.getShape().back();
  int64_t bytes = lhsType.getElementType().getIntOrFloatBitWidth() / 8;
  LaunchParam a;
  a.kind = LaunchParam::Kind::Tma;
  a.tensor = binding.lhs;
  a.dims = {LaunchDim::of(k), LaunchDim::of(m)};
  a.stridesBytes = {LaunchDim::of(k * bytes)};
  a.box = {kTileK, tileM};
  if (lhsType.getRank() == 3) {
    a.dims.push_back(binding.batchOf(lhsType));
    a.stridesBytes.push_back(LaunchDim::of(m * k * bytes));
    a.box.push_back(1);
  }
  LaunchParam b;
  b.kind = LaunchParam::Kind::Tma;
  b.tensor = binding.rhs;
  // The rows past K read as zeros: the padding along K, if any, too.
  int64_t rhsK = binding.rhsSourceK ? binding.rhsSourceK : k;
  // [K, N] row-major, or [N, K] when transposed; boxes of 64 x 64.
  if (op.getTransposeRhs()) {
    b.dims = {LaunchDim::of(rhsK), LaunchDim::of(n)};
    b.stridesBytes = {LaunchDim::of(rhsK * bytes)};
  } else {
    b.dims = {LaunchDim::of(n), LaunchDim::of(rhsK)};
    b.stridesBytes = {LaunchDim::of(n * bytes)};
  }
  b.box = {64, kTileK};
  if (rhsType.getRank() == 3) {
    b.dims.push_back(binding.batchOf(rhsType));
    b.stridesBytes.push_back(LaunchDim::of(rhsK * n * bytes));
    b.box.push_back(1);
  }
  LaunchParam c;
  c.tensor = binding.result;
  std::vector<LaunchParam> params = {a, b, c};
  for (const std::string &name : binding.epilogueIns) {
    LaunchParam e;
    e.tensor = name;
    params.push_back(e);
  }
  return params;
}

/// The loads of one k-tile (see kLoadHeadTemplate) for a BN-wide B tile.
std::string loadText(StringRef prefix, StringRef slot, StringRef kt,
                     StringRef barriers, int64_t tileN, bool kMajorB,
                     StringRef mapA, StringRef mapB) {
  std::string text = kLoadHeadTemplate;
  for (int64_t j = 0; j < tileN / 64; ++j)
    text += replaceAll(kLoadChunkTemplate,
                       {{"BCOORDS", kMajorB ? "%$P_k, %$P_n$J" : "%$P_n$J, %$P_k"},
                        {"J", std::to_string(j)},
                        {"CHUNKOFF", std::to_string(j * 64 * kTileK * 2)},
                        {"CHUNKCOL", std::to_string(j * 64)}});
  return replaceAll(text, {{"P", prefix.str()},
                           {"SLOT", slot.str()},
                           {"KT", kt.str()},
                           {"FULL", barriers.str()},
                           {"MAPA", mapA.str()},
                           {"MAPB", mapB.str()}});
}

/// Eight epilogue calls on the lanes of %v into %o_7, indented by `indent`.
std::string epilogueLanes(int indent) {
  std::string pad(indent, ' '), lanes;
  for (int j = 0; j < 8; ++j)
    lanes += llvm::formatv(
        "{2}%v_{0} = vector.extract %v[{0}] : f32 from vector<8xf32>\n"
        "{2}%cj_{0} = arith.constant {0} : index\n"
        "{2}%n_{0} = arith.addi %n, %cj_{0} : index\n"
        "{2}%e_{0} = func.call @$KERNEL_epilogue(%v_{0}, %b, %m, %n_{0}$EPI_ARGS)"
        " : (f32, index, index, index$EPI_TYPES) -> $OUT\n"
        "{2}%o_{0} = vector.insert %e_{0}, {1} [{0}] : $OUT into vector<8x$OUT>\n",
        j, j == 0 ? std::string("%o_init") : "%o_" + std::to_string(j - 1), pad)
        .str();
  return lanes;
}

} // namespace mlir::sc::detail

/// Why the Hopper path cannot take `op`, or an empty string when it can.
static std::string hopperPathLimitation(BatchMatmulOp op, StringRef schedule) {
  RankedTensorType lhsType = op.getLhs().getType();
  Type elementType = lhsType.getElementType();
  int64_t n = op.getType().getDimSize(2), k = lhsType.getShape().back();
  if (!elementType.isF16() && !elementType.isBF16())
    return "wgmma takes f16/bf16 operands here, got " + typeToString(elementType);
  if (k % 8 != 0 || n % 8 != 0)
    return "TMA needs 16-byte aligned rows: K (" + std::to_string(k) +
           ") and N (" + std::to_string(n) +
           ") must be multiples of 8 (pad K with sc-pad-k)";
  if (schedule == "transposed") {
    std::string why = op.getTransposedTileLimitation();
    if (!why.empty())
      return "the transposed schedule cannot take it: " + why;
  }
  return "";
}


/// The schedule of `op`: the one recorded on it (sc.gemm_schedule, see
/// sc-select-kernel-config), else `requested`, where "auto" is the op's
/// default.
static StringRef resolveSchedule(BatchMatmulOp op, StringRef requested) {
  if (op->hasAttr(BatchMatmulOp::getScheduleAttrName()) || requested == "auto")
    return stringifyGemmSchedule(getGemmSchedule(op));
  return requested;
}

bool mlir::sc::usesHopperGemmPath(BatchMatmulOp op,
                                  const GemmKernelOptions &options) {
  return options.chip == "sm_90a" &&
         hopperPathLimitation(op, resolveSchedule(op, options.schedule))
             .empty();
}

std::string mlir::sc::gemmStageFusionLimitation(
    BatchMatmulOp stage1, BatchMatmulOp stage2,
    const GemmKernelOptions &options) {
  if (options.chip != "sm_90a")
    return "multi-stage kernels are sm_90a only";
  if (options.multicast)
    return "not with --gemm-multicast";
  StringRef s1 = resolveSchedule(stage1, options.schedule);
  StringRef s2 = resolveSchedule(stage2, options.schedule);
  if (s1 != s2 || (s2 != "pingpong" && s2 != "cooperative"))
    return ("both GEMMs need the same warp-specialized schedule, got " + s1 +
            " and " + s2)
        .str();
  for (BatchMatmulOp op : {stage1, stage2}) {
    std::string limitation = hopperPathLimitation(op, s2);
    if (!limitation.empty())
      return limitation;
  }
  return stage2.getStageFusionLimitation(stage1);
}

int64_t mlir::sc::gemmStageFlagsPerBatch(BatchMatmulOp stage2,
                                         const GemmKernelOptions &options) {
  int64_t tileM =
      resolveSchedule(stage2, options.schedule) == "pingpong" ? 64 : 128;
  return llvm::divideCeil(stage2.getType().getDimSize(1), tileM) *
         llvm::divideCeil(stage2.getType().getDimSize(2), 256);
}

/// The warp specialization the kernel-level IR chose for `op` (its
/// `sc.kernel` function after sc-warp-specialize): the ring's stages, the
/// roles' registers and the consumers' order (the schedule). Nothing when
/// the op has no such function or it has no roles.
static LogicalResult rolesFromKernelIR(BatchMatmulOp op,
                                       sc::detail::WarpRoles &roles,
                                       std::string &order) {
  FailureOr<func::FuncOp> kernel = sc::detail::kernelIRFunction(op);
  if (failed(kernel) || !*kernel)
    return failed(kernel) ? failure() : success();
  WalkResult walk = kernel->walk([&](Operation *inner) {
    if (auto ring = dyn_cast<sck::RingOp>(inner))
      roles.stages = ring.getStages();
    // The generator maps the epilogue's operands to the op's (with a
    // prefetched box it takes the op's region: see epilogueBlock).
    if (auto epilogue = dyn_cast<sck::EpilogueOp>(inner);
        epilogue && epilogue.getResult() == "C" &&
        !llvm::any_of(epilogue.getIns().getTypes(), llvm::IsaPred<sck::BoxType>) &&
        epilogue.getIns().getTypes() != op.getEpilogueIns().getTypes()) {
      epilogue.emitError("the kernel-level epilogue reads other tensors than "
                         "the op's epilogue operands");
      return WalkResult::interrupt();
    }
    if (auto loop = dyn_cast<sck::TileLoopOp>(inner)) {
      roles.persistent = loop.getSchedule() == "persistent";
      roles.group = loop.getGroup();
      roles.cluster = loop.getCluster();
    }
    auto role = dyn_cast<sck::RoleOp>(inner);
    if (!role)
      return WalkResult::advance();
    if (role.getKind() == "producer") {
      roles.producerRegs = role.getRegs();
    } else {
      if (role.getCount() != 2) {
        role.emitError("the GPU kernels have two consumer warpgroups");
        return WalkResult::interrupt();
      }
      roles.consumerRegs = role.getRegs();
      order = role.getOrder().value_or("pingpong").str();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The warp-specialized kernels compute tileM x 256 tiles (tileM = 64
/// ping-pong, 128 cooperative), or the transposed schedule's 128 x TM
/// tiles of the result transposed (E^T W^T: both operands read transposed,
/// TM = BatchMatmulOp::getTransposedTileRows), in 64-wide k-tiles of the op's element type: a
/// kernel-level IR that multiplies other boxes is not what they would run,
/// so it is refused rather than silently not followed.
static LogicalResult checkKernelIRTiling(BatchMatmulOp op, StringRef schedule) {
  Operation *kernel = op.getKernelIR();
  if (!kernel)
    return success();
  bool transposed = schedule == "transposed";
  int64_t rows = schedule == "pingpong" ? 64 : 128;
  int64_t cols = transposed ? BatchMatmulOp::getTransposedTileRows(
                                  op.getType().getDimSize(1))
                            : 256;
  Type element = op.getLhs().getType().getElementType();
  // The layouts: A as stored, B transposed exactly when the op's rhs is;
  // both transposed in the transposed tile.
  WalkResult layouts = kernel->walk([&](sck::LoadOp load) {
    bool want = transposed || (load.getOperand() == "B" && op.getTransposeRhs());
    if (load.getTransposed() == want)
      return WalkResult::advance();
    load.emitError() << "the GPU kernel reads operand " << load.getOperand()
                     << (want ? " transposed" : " as stored")
                     << "; the kernel-level IR says otherwise";
    return WalkResult::interrupt();
  });
  if (layouts.wasInterrupted())
    return failure();
  WalkResult epilogues = kernel->walk([&](sck::EpilogueOp epilogue) {
    if (epilogue.getTransposed() == transposed)
      return WalkResult::advance();
    epilogue.emitError() << "the " << schedule << " GPU kernel stores "
                         << (transposed ? "transposed" : "as computed")
                         << " accumulators; the kernel-level IR says otherwise";
    return WalkResult::interrupt();
  });
  if (epilogues.wasInterrupted())
    return failure();
  WalkResult walk = kernel->walk([&](sck::MmaOp mma) {
    sck::BoxType a = mma.getA().getType(), b = mma.getB().getType();
    sck::AccType acc = mma.getAcc().getType();
    if (a.getShape() == ArrayRef<int64_t>{rows, 64} &&
        b.getShape() == ArrayRef<int64_t>{64, cols} &&
        a.getElementType() == element &&
        acc.getShape() == ArrayRef<int64_t>{rows, cols})
      return WalkResult::advance();
    mma.emitError() << "the " << schedule << " GPU kernel multiplies "
                    << rows << "x64 by 64x" << cols << " boxes of " << element
                    << " into " << rows << "x" << cols
                    << " accumulators; the kernel-level IR asks for "
                    << a << " by " << b << " into " << acc;
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<KernelLaunch>
mlir::sc::buildGemmKernel(BatchMatmulOp op, gpu::GPUModuleOp gpuModule,
                          StringRef kernelName, const GemmBinding &binding,
                          const GemmKernelOptions &options,
                          const GemmStageOne *stage1) {
  detail::GemmShape shape(op);
  if (ShapedType::isDynamic(shape.m) || ShapedType::isDynamic(shape.n) ||
      ShapedType::isDynamic(shape.k))
    return op.emitError() << "the GEMM lowering needs static M, N, K";
  for (Value v : op.getEpilogueIns())
    if (!isa<RankedTensorType>(v.getType()))
      return op.emitError() << "GPU epilogue operands must be ranked tensors, "
                               "got "
                            << v.getType();
  sc::detail::WarpRoles roles;
  std::string order;
  if (failed(rolesFromKernelIR(op, roles, order)))
    return failure();
  // A warp-specialized kernel IR decides the schedule.
  StringRef requested = order.empty() ? StringRef(options.schedule) : order;
  if (requested != "auto" && !symbolizeGemmSchedule(requested))
    return op.emitError()
           << "unknown GEMM schedule '" << requested
           << "', expected auto, simple, cooperative, pingpong or transposed";
  StringRef schedule = resolveSchedule(op, requested);
  bool warpSpecialized = schedule == "cooperative" || schedule == "pingpong" ||
                         schedule == "transposed";
  if (warpSpecialized && failed(checkKernelIRTiling(op, schedule)))
    return failure();
  if (stage1) {
    std::string limitation =
        gemmStageFusionLimitation(stage1->op, op, options);
    if (!limitation.empty())
      return op.emitError() << "cannot fuse the GEMM stages: " << limitation;
    return detail::buildWarpSpecializedGemmKernel(
        op, gpuModule, kernelName, binding, schedule,
        /*multicast=*/false, stage1, roles);
  }
  if (options.chip == "sm_90a") {
    std::string limitation = hopperPathLimitation(op, schedule);
    if (limitation.empty() && warpSpecialized)
      return detail::buildGemmKernelFromIR(op, gpuModule, kernelName, binding);
    if (limitation.empty())
      return detail::buildSimpleGemmKernel(op, gpuModule, kernelName, binding,
                                           options);
    op.emitRemark() << "using the portable GEMM path: " << limitation;
  }
  if (binding.rhsSourceK)
    return op.emitError() << "internal error: K padding can only be left to "
                             "TMA on the sm_90a path";
  return detail::buildPortableGemmKernel(op, gpuModule, kernelName, binding);
}
