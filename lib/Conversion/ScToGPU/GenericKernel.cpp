//===- GenericKernel.cpp - a linalg.generic as a one-thread-per-element kernel ===//
//
// What an entry computes outside the sc ops (element-wise activations,
// broadcasts, transposes, reductions such as a softmax's, fills): each
// linalg.generic (named ops generalized first, element-wise chains fused by
// upstream's elementwise fusion) becomes a kernel in which one thread
// computes one element of the output: its parallel loop indices from the
// element's place, the reduction loops (if any) run in the thread from the
// output's initial value, the inputs read through the op's indexing maps,
// the body's ops cloned. Without reductions a thread computes 16 bytes of
// consecutive output elements along its last dim (where that dim allows):
// the inputs read along that dim and the output move in 16-byte vector
// accesses, the body cloned per element. Built with the builders, no text.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/GenericKernel.h"
#include "GemmKernelCommon.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
constexpr int64_t kThreads = 256;

/// Where loop dim `d`'s size is read: operand `operand` (an input, or the
/// output past the inputs), its dim `dim`.
struct LoopSize {
  unsigned operand = 0;
  unsigned dim = 0;
};
} // namespace

/// Whether `v` is defined outside `op`'s body.
static bool fromOutside(linalg::GenericOp op, Value v) {
  return !op->isAncestor(v.getParentRegion()->getParentOp());
}

SmallVector<Value> mlir::sc::genericGatheredTensors(linalg::GenericOp op) {
  SetVector<Value> tensors;
  op.getBody()->walk([&](tensor::ExtractOp extract) {
    if (fromOutside(op, extract.getTensor()))
      tensors.insert(extract.getTensor());
  });
  return tensors.takeVector();
}

std::string mlir::sc::genericKernelLimitation(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1)
    return "one output only";
  auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!outType || outType.getRank() < 1 || outType.getRank() > 4)
    return "an output tensor of rank 1 to 4";
  for (int64_t d = 1; d < outType.getRank(); ++d)
    if (outType.isDynamicDim(d))
      return "static output dims past dim 0";
  if (!outType.getElementType().isIntOrFloat())
    return "an output of integers or floats";
  for (AffineMap map : op.getIndexingMapsArray())
    for (AffineExpr e : map.getResults())
      if (!isa<AffineDimExpr, AffineConstantExpr>(e))
        return "indexing maps of loop dims and constants only";
  if (!op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isProjectedPermutation())
    return "an output map that is a projected permutation";
  for (Operation &inner : op.getBody()->without_terminator()) {
    auto extract = dyn_cast<tensor::ExtractOp>(inner);
    if (extract && !fromOutside(op, extract.getTensor()))
      return "a tensor.extract of a tensor from outside the body only";
    if (inner.getNumRegions() != 0 ||
        (!extract &&
         !isa<arith::ArithDialect, math::MathDialect, linalg::LinalgDialect>(
             inner.getDialect())))
      return "a body of arith / math ops and tensor.extract ('" +
             inner.getName().getStringRef().str() + "' is not)";
  }
  // Values from outside the body: constants (cloned into the kernel) and
  // the tensors it gathers from.
  bool capturesOther = false;
  op.getBody()->walk([&](Operation *inner) {
    for (OpOperand &use : inner->getOpOperands()) {
      Value operand = use.get();
      bool gathered = isa<tensor::ExtractOp>(inner) && use.getOperandNumber() == 0;
      if (fromOutside(op, operand) && !gathered &&
          !operand.getDefiningOp<arith::ConstantOp>())
        capturesOther = true;
    }
  });
  if (capturesOther)
    return "a body that uses values from outside it other than constants "
           "and the tensors it gathers from";
  // Every loop's size must be readable from some operand dim.
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    bool found = false;
    for (AffineMap map : op.getIndexingMapsArray())
      for (AffineExpr e : map.getResults())
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          found |= dim.getPosition() == d;
    if (!found)
      return "a loop no operand is indexed by";
  }
  return "";
}

linalg::GenericOp mlir::sc::fusableConsumer(linalg::GenericOp op) {
  if (op.getNumReductionLoops() == 0 || op->getNumResults() != 1 ||
      !op->getResult(0).hasOneUse())
    return {};
  auto consumer = dyn_cast<linalg::GenericOp>(*op->getResult(0).user_begin());
  if (!consumer || consumer.getNumReductionLoops() != 0 ||
      consumer.getNumDpsInputs() != 1 || consumer.getNumDpsInits() != 1 ||
      consumer.getDpsInputs()[0] != op->getResult(0) ||
      !consumer.getBody()->getArgument(1).use_empty() ||
      !genericKernelLimitation(consumer).empty() ||
      !genericGatheredTensors(consumer).empty())
    return {};
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  auto consumerType = cast<RankedTensorType>(consumer->getResult(0).getType());
  if (type.getShape() != consumerType.getShape() ||
      !llvm::all_of(consumer.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return {};
  return consumer;
}

/// Consecutive output elements along its last dim a thread computes: as
/// many as make 16 bytes (at most 8), where that dim is static and a
/// multiple of them and nothing is reduced (a reduction's thread already
/// loops); else one.
static int64_t elementsPerThread(linalg::GenericOp op,
                                 RankedTensorType outType) {
  Type element = outType.getElementType();
  if (op.getNumReductionLoops() != 0 || !element.isIntOrFloat())
    return 1;
  int64_t bits = element.getIntOrFloatBitWidth();
  if (bits < 8 || bits > 32)
    return 1;
  int64_t lanes = std::min<int64_t>(8, 128 / bits);
  int64_t inner = outType.getShape().back();
  if (ShapedType::isDynamic(inner) || inner % lanes != 0)
    return 1;
  return lanes;
}

/// The byte alignment of `lanes` elements of `memref` starting at an
/// element index that is a multiple of `lanes` (the runtime's tensors and
/// workspaces are 16-byte aligned).
static llvm::MaybeAlign laneAlignment(MemRefType memref, int64_t lanes) {
  int64_t bytes = lanes * memref.getElementTypeBitWidth() / 8;
  return llvm::Align(std::min<int64_t>(16, llvm::PowerOf2Ceil(bytes)));
}

/// Element `at` of `source`, or zero where `at` lies outside it (an index
/// past a gathered table reads nothing).
static Value gatherElement(OpBuilder &b, Location loc, Value source,
                           ArrayRef<Value> at) {
  Value inside = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (auto [d, i] : llvm::enumerate(at)) {
    Value size = memref::DimOp::create(b, loc, source, d);
    inside = arith::AndIOp::create(
        b, loc, inside,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, size));
  }
  Type element = cast<MemRefType>(source.getType()).getElementType();
  auto read = scf::IfOp::create(b, loc, element, inside, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(read.thenBlock());
    scf::YieldOp::create(b, loc,
                         memref::LoadOp::create(b, loc, source, at).getResult());
    b.setInsertionPointToStart(read.elseBlock());
    scf::YieldOp::create(
        b, loc, arith::ConstantOp::create(b, loc, b.getZeroAttr(element)).getResult());
  }
  return read.getResult(0);
}

/// Clones `body`'s ops at `b` (`mapping` giving its arguments) and
/// returns what it yields: the constants it uses from outside it
/// (canonicalization hoists them) cloned too, the ops `visit` takes
/// (returning true) left to it.
static Value cloneBody(OpBuilder &b, Block &body, IRMapping &mapping,
                       function_ref<bool(Operation &)> visit) {
  Operation *owner = body.getParentOp();
  auto outside = [&](Value v) {
    return !mapping.contains(v) &&
           !owner->isAncestor(v.getParentRegion()->getParentOp());
  };
  for (Operation &inner : body.without_terminator()) {
    if (visit(inner))
      continue;
    for (Value operand : inner.getOperands())
      if (outside(operand))
        if (auto constant = operand.getDefiningOp<arith::ConstantOp>())
          mapping.map(operand, b.clone(*constant)->getResult(0));
    b.clone(inner, mapping);
  }
  Value yielded = body.getTerminator()->getOperand(0);
  if (outside(yielded))
    if (auto constant = yielded.getDefiningOp<arith::ConstantOp>())
      return b.clone(*constant)->getResult(0);
  return mapping.lookupOrDefault(yielded);
}

FailureOr<KernelLaunch> mlir::sc::buildGenericKernel(
    linalg::GenericOp op, gpu::GPUModuleOp gpuModule, StringRef kernelName,
    const GenericBinding &binding) {
  std::string why = genericKernelLimitation(op);
  if (!why.empty())
    return op.emitError("sparcast-aot: no kernel for this linalg.generic: ")
           << why;
  MLIRContext *ctx = gpuModule.getContext();
  ctx->loadDialect<arith::ArithDialect, math::MathDialect,
                   memref::MemRefDialect, scf::SCFDialect,
                   vector::VectorDialect>();
  Location loc = op.getLoc();
  OpBuilder b(ctx);
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());

  // Parameters: the tensor inputs bound to entry tensors (constants become
  // globals of the module, scalars are cloned), then the output, then its
  // initial values when the body reads them.
  SmallVector<Type> params;
  SmallVector<int> paramOf(op.getNumDpsInputs(), -1);
  for (auto [i, in] : llvm::enumerate(op.getDpsInputs())) {
    if (i < binding.inputs.size() && !binding.inputs[i].empty()) {
      paramOf[i] = params.size();
      params.push_back(sc::detail::memrefOf(cast<RankedTensorType>(in.getType())));
    }
  }
  // The tensors the body gathers from.
  SmallVector<Value> gathered = genericGatheredTensors(op);
  if (gathered.size() != binding.gathered.size())
    return op.emitError("sparcast-aot: internal error: a linalg.generic's "
                        "gathered tensors are not bound");
  unsigned firstGathered = params.size();
  for (Value t : gathered)
    params.push_back(sc::detail::memrefOf(cast<RankedTensorType>(t.getType())));
  unsigned outParam = params.size();
  auto storedType =
      binding.consumer
          ? cast<RankedTensorType>(binding.consumer->getResult(0).getType())
          : outType;
  params.push_back(sc::detail::memrefOf(storedType));
  Block *body = op.getBody();
  bool readsInit = !body->getArgument(op.getNumDpsInputs()).use_empty() &&
                   !binding.initValue;
  int initParam = -1;
  if (readsInit) {
    if (binding.init.empty())
      return op.emitError("sparcast-aot: this linalg.generic reads its "
                          "output's initial values, which are undefined "
                          "(a tensor.empty)");
    initParam = params.size();
    params.push_back(sc::detail::memrefOf(outType));
  }
  // Constant tensors: module globals, 16-byte aligned as the runtime's
  // tensors are (vector reads).
  SmallVector<Value> constantGlobals(op.getNumDpsInputs());
  SmallVector<std::string> globalNames(op.getNumDpsInputs());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(gpuModule.getBody());
    for (auto [i, in] : llvm::enumerate(op.getDpsInputs())) {
      auto dense = in.getDefiningOp<arith::ConstantOp>();
      if (paramOf[i] >= 0 || !dense || !isa<RankedTensorType>(in.getType()))
        continue;
      auto type = cast<RankedTensorType>(in.getType());
      globalNames[i] = llvm::formatv("{0}_in{1}", kernelName, i).str();
      memref::GlobalOp::create(b, loc, globalNames[i], b.getStringAttr("private"),
                               sc::detail::memrefOf(type),
                               cast<ElementsAttr>(dense.getValue()),
                               /*constant=*/true, b.getI64IntegerAttr(16));
    }
  }
  auto func = sc::detail::createKernelFunction(b, loc, gpuModule, kernelName,
                                               params, kThreads);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // Each input's value in the kernel: a memref, a global, or a scalar.
  SmallVector<Value> inputs;
  for (auto [i, in] : llvm::enumerate(op.getDpsInputs())) {
    if (paramOf[i] >= 0) {
      inputs.push_back(func.getArgument(paramOf[i]));
    } else if (!globalNames[i].empty()) {
      auto type = cast<RankedTensorType>(in.getType());
      inputs.push_back(memref::GetGlobalOp::create(
          b, loc, sc::detail::memrefOf(type), globalNames[i]));
    } else if (auto scalar = in.getDefiningOp<arith::ConstantOp>();
               scalar && !isa<ShapedType>(in.getType())) {
      inputs.push_back(b.clone(*scalar)->getResult(0));
    } else {
      func.erase();
      return op.emitError("sparcast-aot: linalg.generic input #")
             << i << " is neither an entry tensor nor a constant";
    }
  }
  Value out = func.getArgument(outParam);
  // Loop sizes from the first operand dim each loop indexes.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto operandValue = [&](unsigned k) {
    return k < inputs.size() ? inputs[k] : out;
  };
  SmallVector<Value> loopSizes(op.getNumLoops());
  for (auto [k, map] : llvm::enumerate(maps))
    for (auto [pos, e] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(e);
          dim && !loopSizes[dim.getPosition()] &&
          isa<MemRefType>(operandValue(k).getType()))
        loopSizes[dim.getPosition()] =
            memref::DimOp::create(b, loc, operandValue(k), pos);
  // This thread's first output element: flat over the output, row-major,
  // `lanes` a thread.
  int64_t lanes = elementsPerThread(op, outType);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value flat = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, index(kThreads)), tid);
  if (lanes > 1)
    flat = arith::MulIOp::create(b, loc, flat, index(lanes));
  Value total = index(1);
  int64_t rank = outType.getRank();
  for (int64_t d = 0; d < rank; ++d)
    total = arith::MulIOp::create(b, loc, total,
                                  memref::DimOp::create(b, loc, out, d));
  Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, flat, total);
  auto ifLive = scf::IfOp::create(b, loc, live, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifLive.getThenRegion().front());
  SmallVector<Value> at(rank);
  Value rest = flat;
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value size = memref::DimOp::create(b, loc, out, d);
    at[d] = d == 0 ? rest : arith::RemUIOp::create(b, loc, rest, size).getResult();
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  SmallVector<Value> loops(op.getNumLoops());
  AffineMap outMap = maps.back();
  for (unsigned j = 0; j < outMap.getNumResults(); ++j)
    loops[outMap.getDimPosition(j)] = at[j];
  // An operand's element at the current loop indices.
  auto indicesOf = [&](OpBuilder &nb, AffineMap map) {
    SmallVector<Value> idx;
    for (AffineExpr e : map.getResults())
      idx.push_back(isa<AffineDimExpr>(e)
                        ? loops[cast<AffineDimExpr>(e).getPosition()]
                        : arith::ConstantIndexOp::create(
                              nb, loc, cast<AffineConstantExpr>(e).getValue())
                              .getResult());
    return idx;
  };
  // With several lanes: the loop of the output's last dim, and each input
  // read along it as its own last dim (a multiple of the lanes) read once
  // as a vector; the others element by element.
  unsigned laneLoop = outMap.getDimPosition(rank - 1);
  Value laneBase = at[rank - 1];
  SmallVector<Value> laneVectors(inputs.size());
  auto readsAlongLanes = [&](Value memref, AffineMap map) {
    auto type = dyn_cast<MemRefType>(memref.getType());
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    int64_t inner = type ? type.getShape().back() : ShapedType::kDynamic;
    return type && last && last.getPosition() == laneLoop &&
           !ShapedType::isDynamic(inner) && inner % lanes == 0 &&
           type.getElementTypeBitWidth() >= 8;
  };
  auto vectorOf = [&](Value memref) {
    return VectorType::get({lanes}, cast<MemRefType>(memref.getType()).getElementType());
  };
  if (lanes > 1)
    for (auto [k, input] : llvm::enumerate(inputs))
      if (readsAlongLanes(input, maps[k]))
        laneVectors[k] = vector::LoadOp::create(
            b, loc, vectorOf(input), input, indicesOf(b, maps[k]),
            /*nontemporal=*/false,
            laneAlignment(cast<MemRefType>(input.getType()), lanes));
  Value initVector;
  if (readsInit && lanes > 1)
    initVector = vector::LoadOp::create(
        b, loc, vectorOf(out), func.getArgument(initParam), at,
        /*nontemporal=*/false, laneAlignment(cast<MemRefType>(out.getType()), lanes));
  Value init =
      readsInit && lanes == 1
          ? memref::LoadOp::create(b, loc, func.getArgument(initParam), at)
                .getResult()
          : arith::ConstantOp::create(
                b, loc,
                binding.initValue ? binding.initValue
                                  : b.getZeroAttr(outType.getElementType()))
                .getResult();
  if (binding.initValue && lanes > 1)
    initVector = vector::BroadcastOp::create(b, loc, vectorOf(out), init);
  // The body at the current loop indices (lane `lane` of the thread's
  // elements), on the running value.
  auto runBody = [&](OpBuilder &nb, Value running, int64_t lane = 0) -> Value {
    if (lanes > 1)
      loops[laneLoop] =
          lane == 0 ? laneBase
                    : arith::AddIOp::create(nb, loc, laneBase, index(lane))
                          .getResult();
    IRMapping mapping;
    for (auto [k, input] : llvm::enumerate(inputs)) {
      Value v = input;
      if (laneVectors[k])
        v = vector::ExtractOp::create(nb, loc, laneVectors[k], lane);
      else if (isa<MemRefType>(input.getType()))
        v = memref::LoadOp::create(nb, loc, input, indicesOf(nb, maps[k]));
      mapping.map(body->getArgument(k), v);
    }
    if (initVector)
      running = vector::ExtractOp::create(nb, loc, initVector, lane);
    mapping.map(body->getArgument(op.getNumDpsInputs()), running);
    return cloneBody(nb, *body, mapping, [&](Operation &inner) {
      if (auto idx = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(idx.getResult(), loops[idx.getDim()]);
        return true;
      }
      auto extract = dyn_cast<tensor::ExtractOp>(inner);
      if (!extract)
        return false;
      unsigned k = llvm::find(gathered, extract.getTensor()) - gathered.begin();
      SmallVector<Value> at = llvm::map_to_vector(
          extract.getIndices(), [&](Value v) { return mapping.lookupOrDefault(v); });
      mapping.map(extract.getResult(),
                  gatherElement(nb, loc, func.getArgument(firstGathered + k), at));
      return true;
    });
  };
  // The reduction loops, nested, carrying the running value.
  SmallVector<unsigned> reductions;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction)
      reductions.push_back(d);
  std::function<Value(unsigned, Value)> nest = [&](unsigned r, Value running) -> Value {
    if (r == reductions.size())
      return runBody(b, running);
    auto loop = scf::ForOp::create(b, loc, index(0), loopSizes[reductions[r]],
                                   index(1), ValueRange{running});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    loops[reductions[r]] = loop.getInductionVar();
    Value next = nest(r + 1, loop.getRegionIterArgs()[0]);
    scf::YieldOp::create(b, loc, next);
    return loop.getResult(0);
  };
  if (lanes > 1) {
    SmallVector<Value> results;
    for (int64_t lane = 0; lane < lanes; ++lane)
      results.push_back(runBody(b, init, lane));
    Value packed =
        vector::FromElementsOp::create(b, loc, vectorOf(out), results);
    vector::StoreOp::create(b, loc, packed, out, at, /*nontemporal=*/false,
                            laneAlignment(cast<MemRefType>(out.getType()), lanes));
  } else {
    Value element = nest(0, init);
    if (linalg::GenericOp consumer = binding.consumer) {
      // The consumer's body on the reduced element, its loop d the
      // output's dim d (identity maps).
      IRMapping mapping;
      mapping.map(consumer.getBody()->getArgument(0), element);
      element = cloneBody(b, *consumer.getBody(), mapping, [&](Operation &inner) {
        auto idx = dyn_cast<linalg::IndexOp>(inner);
        if (idx)
          mapping.map(idx.getResult(), at[idx.getDim()]);
        return static_cast<bool>(idx);
      });
    }
    memref::StoreOp::create(b, loc, element, out, at);
  }
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);

  KernelLaunch launch;
  launch.kernel = kernelName.str();
  launch.block[0] = kThreads;
  int64_t inner = 1;
  for (int64_t d = 1; d < rank; ++d)
    inner *= outType.getDimSize(d);
  const LaunchDim &rows = binding.outputShape.front();
  if (rows.symbol.empty())
    launch.grid[0] = LaunchDim::of(
        llvm::divideCeil(rows.constant * inner, kThreads * lanes));
  else
    launch.grid[0] =
        LaunchDim{0, rows.symbol, rows.factor * inner, kThreads * lanes};
  launch.grid[1] = launch.grid[2] = LaunchDim::of(1);
  for (const std::string &name : binding.inputs)
    if (!name.empty())
      launch.params.push_back(LaunchParam::memref(name));
  for (const std::string &name : binding.gathered)
    launch.params.push_back(LaunchParam::memref(name));
  launch.params.push_back(LaunchParam::memref(binding.output));
  if (readsInit)
    launch.params.push_back(LaunchParam::memref(binding.init));
  launch.summary =
      lanes > 1
          ? llvm::formatv("{0}: linalg.generic ({1} loops) as one thread per "
                          "{2} consecutive elements of {3} (16-byte accesses)",
                          kernelName, op.getNumLoops(), lanes, binding.output)
                .str()
          : llvm::formatv("{0}: linalg.generic ({1} loops, {2} reduced) as "
                          "one thread per output element of {3}{4}",
                          kernelName, op.getNumLoops(), reductions.size(),
                          binding.output,
                          binding.consumer
                              ? ", its element-wise consumer applied before "
                                "the store"
                              : "")
                .str();
  return launch;
}
