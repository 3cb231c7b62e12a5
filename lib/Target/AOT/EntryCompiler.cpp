//===- EntryCompiler.cpp - one entry function into kernels ----------------===//
//
// An entry is a public func.func over ranked tensors: its body runs as a
// sequence of kernels. Argument i is named "arg<i>", result j "result<j>",
// intermediates "ws<k>" (workspace the runtime sizes from the dims). Dynamic
// dims get symbols from lineage: dim 0 of request tensors is "U" (users), of
// candidate, index and unannotated tensors "B"; any other dynamic dim
// "arg<i>_d<d>".
//
// What the body may hold: sc.batch_matmul (a GEMM kernel each), and chains
// of tensor.extract_slice / tensor.pad with zero padding (views). A view
// feeding a GEMM's rhs [B, K, N] that only pads K is left to TMA's zero
// fill; any other view is materialized by a copy kernel into the workspace.
//
//===----------------------------------------------------------------------===//

#include "EntryCompiler.h"
#include "sparcast/Conversion/ScToLinalg/GatherRows.h"

#include "sparcast/Conversion/ScToGPU/AttentionKernel.h"
#include "sparcast/Conversion/ScToGPU/ConvertKernel.h"
#include "sparcast/Conversion/ScToGPU/CopyKernel.h"
#include "sparcast/Conversion/ScToGPU/GenericKernel.h"
#include "sparcast/Conversion/ScToGPU/GroupCandidatesKernel.h"
#include "sparcast/Conversion/ScToGPU/PairCandidatesKernel.h"
#include "sparcast/Support/Locations.h"
#include "sparcast/Transforms/KernelConfig.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sc;
using namespace mlir::sc::aot;

namespace {
std::string dtypeName(Type t) {
  if (t.isF32()) return "f32";
  if (t.isF16()) return "f16";
  if (t.isBF16()) return "bf16";
  if (t.isSignlessInteger(32)) return "i32";
  // Bytes (a hybrid-tiled weight's kind table), read unsigned.
  if (t.isSignlessInteger(8)) return "u8";
  return "";
}

} // namespace

json::Value mlir::sc::aot::dimJson(const LaunchDim &d) {
  if (d.symbol.empty())
    return d.constant;
  std::string s = d.symbol;
  if (d.factor != 1)
    s += "*" + std::to_string(d.factor);
  if (d.divisor != 1)
    s += "/" + std::to_string(d.divisor);
  return s;
}


json::Object mlir::sc::aot::tensorJson(const TensorInfo &t) {
  json::Array shape;
  for (const LaunchDim &d : t.shape)
    shape.push_back(dimJson(d));
  json::Object o{{key::kName, t.name},
                 {key::kDtype, dtypeName(t.type.getElementType())},
                 {key::kShape, std::move(shape)}};
  if (!t.indexInto.empty())
    o[key::kIndexInto] = t.indexInto;
  if (t.zeroInit)
    o[key::kZeroInit] = true;
  if (t.mayBeEmpty)
    o[key::kMayBeEmpty] = true;
  if (!t.viewOf.empty())
    o[key::kOf] = t.viewOf;
  return o;
}

std::string mlir::sc::aot::shapeString(const TensorInfo &t) {
  std::string s = dtypeName(t.type.getElementType()) + "[";
  for (auto [i, d] : llvm::enumerate(t.shape)) {
    if (i)
      s += "x";
    s += d.symbol.empty() ? std::to_string(d.constant) : d.symbol;
  }
  return s + "]";
}

json::Object EntryCompiler::takeManifestEntry() {
  json::Array argsJson, resultsJson, workspaceJson, viewsJson;
  for (const TensorInfo &t : args)
    argsJson.push_back(tensorJson(t));
  for (const TensorInfo &t : results)
    resultsJson.push_back(tensorJson(t));
  for (const TensorInfo &t : workspace)
    workspaceJson.push_back(tensorJson(t));
  for (const TensorInfo &t : reshapes)
    viewsJson.push_back(tensorJson(t));
  json::Object entry{{key::kName, func.getSymName().str()},
                     {key::kArgs, std::move(argsJson)},
                     {key::kResults, std::move(resultsJson)},
                     {key::kWorkspace, std::move(workspaceJson)},
                     {key::kLaunches, std::move(launches)}};
  if (!viewsJson.empty())
    entry[key::kViews] = std::move(viewsJson);
  return entry;
}

std::string EntryCompiler::headerDoc() const {
  std::string doc;
  for (const TensorInfo &t : args)
    doc += " *   " + t.name + ": " + shapeString(t) +
           (t.indexInto.empty() ? "" : ", values in [0, U)") + "\n";
  for (const TensorInfo &t : results)
    doc += " *   " + t.name + " (result): " + shapeString(t) + "\n";
  for (const TensorInfo &t : workspace)
    doc += " *   " + t.name + " (workspace): " + shapeString(t) + "\n";
  return doc;
}

static json::Object launchJson(const KernelLaunch &launch, StringRef module) {
  json::Array params;
  for (const LaunchParam &p : launch.params) {
    if (p.kind == LaunchParam::Kind::Memref) {
      params.push_back(json::Object{{key::kKind, param::kMemref}, {key::kTensor, p.tensor}});
      continue;
    }
    if (p.kind == LaunchParam::Kind::Dim) {
      params.push_back(json::Object{{key::kKind, param::kDim}, {key::kDim, dimJson(p.dim)}});
      continue;
    }
    if (p.kind == LaunchParam::Kind::LogLinearTables) {
      params.push_back(json::Object{{key::kKind, param::kLogLinearTables},
                                    {key::kQueryLen, dimJson(p.queryLen)},
                                    {key::kKeyLen, dimJson(p.keyLen)},
                                    {key::kBlock, p.maskBlock},
                                    {key::kLocalWidth, p.localWidth},
                                    {key::kAnchors, p.anchors},
                                    {key::kCausal, p.causal}});
      continue;
    }
    json::Array dims, strides, box;
    for (const LaunchDim &d : p.dims)
      dims.push_back(dimJson(d));
    for (const LaunchDim &d : p.stridesBytes)
      strides.push_back(dimJson(d));
    for (int64_t b : p.box)
      box.push_back(b);
    json::Object map{{key::kKind, param::kTma},
                     {key::kTensor, p.tensor},
                     {key::kDims, std::move(dims)},
                     {key::kStrides, std::move(strides)},
                     {key::kBox, std::move(box)},
                     {key::kSwizzle, p.swizzleBytes}};
    if (p.offsetBytes)
      map[key::kOffset] = p.offsetBytes;
    params.push_back(std::move(map));
  }
  json::Object out{
      {key::kModule, module.str()},
      {key::kKernel, launch.kernel},
      {key::kGrid, json::Array{dimJson(launch.grid[0]), dimJson(launch.grid[1]),
                           dimJson(launch.grid[2])}},
      {key::kBlock,
       json::Array{launch.block[0], launch.block[1], launch.block[2]}},
      {key::kSmem, launch.sharedBytes},
      {key::kParams, std::move(params)}};
  if (!launch.atMost.empty()) {
    json::Array atMost;
    for (const auto &[a, b] : launch.atMost)
      atMost.push_back(json::Array{a, b});
    out[key::kAtMost] = std::move(atMost);
  }
  return out;
}

LogicalResult EntryCompiler::bindArguments() {
  // The packed buffers of a hybrid-tiled weight count its dense and its
  // 2:4 tiles in dim 0 (the metadata as many as the 2:4 values): symbols
  // of their own, "arg<i>_d0" of the dense and of the 2:4 values' buffer.
  DenseMap<Value, std::string> tileCounts;
  func.walk([&](AssembleHybridOp op) {
    for (Value v : {op.getDense(), op.getSparse()})
      if (auto arg = dyn_cast<BlockArgument>(v))
        tileCounts[v] = llvm::formatv("arg{0}_d0", arg.getArgNumber());
    if (tileCounts.count(op.getSparse()))
      tileCounts[op.getMeta()] = tileCounts[op.getSparse()];
  });
  // Model graphs share their batch dims (B candidates, U requests); a
  // similarity's row sets (queries, items, their buffers) each have their
  // own count, named by the argument.
  bool rowsNamedByArgument = false;
  func.walk([&](SparseMatmulOp) { rowsNamedByArgument = true; });
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || dtypeName(type.getElementType()).empty())
      return func.emitError() << "entry argument #" << i
                              << " must be a ranked f32/f16/bf16/i32/i8 tensor, "
                                 "got "
                              << arg.getType();
    if (llvm::is_contained(type.getShape(), 0))
      return func.emitError() << "entry argument #" << i
                              << " has a zero-sized dim: " << type;
    auto lineage = func.getArgAttrOfType<LineageKindAttr>(
        i, ScDialect::getLineageAttrName());
    LineageKind lk = lineage ? lineage.getValue() : LineageKind::candidate;
    TensorInfo info{"arg" + std::to_string(i), type, {}, ""};
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(size))
        info.shape.push_back(LaunchDim::of(size));
      else if (d == 0 && tileCounts.count(arg))
        info.shape.push_back(LaunchDim::sym(tileCounts[arg]));
      else if (d == 0 && !rowsNamedByArgument)
        info.shape.push_back(
            LaunchDim::sym(lk == LineageKind::request ? "U" : "B"));
      else
        info.shape.push_back(LaunchDim::sym(llvm::formatv("arg{0}_d{1}", i, d)));
    }
    if (lk == LineageKind::index)
      info.indexInto = "U";
    info.mayBeEmpty = tileCounts.count(arg);
    tensors[arg] = info;
    args.push_back(info);
  }
  return success();
}

SplitKBinding EntryCompiler::newSplitKWorkspaces(LaunchDim partialWords,
                                                 LaunchDim arrivals) {
  auto vector = [&](Type element) {
    return RankedTensorType::get({ShapedType::kDynamic}, element);
  };
  SplitKBinding split;
  split.partials = newWorkspace(vector(Float32Type::get(func.getContext())),
                                {partialWords}, /*zeroInit=*/false)
                       .name;
  split.arrivals = newWorkspace(vector(IntegerType::get(func.getContext(), 32)),
                                {arrivals}, /*zeroInit=*/true)
                       .name;
  return split;
}

TensorInfo EntryCompiler::newWorkspace(RankedTensorType type,
                                       std::vector<LaunchDim> shape,
                                       bool zeroInit) {
  TensorInfo info{"ws" + std::to_string(workspace.size()), type,
                  std::move(shape), "", zeroInit};
  workspace.push_back(info);
  return info;
}

/// The view `v` denotes, starting a trivial one at a named tensor.
static std::optional<View> viewOf(Value v, const DenseMap<Value, View> &views,
                                  const DenseMap<Value, TensorInfo> &tensors) {
  if (auto it = views.find(v); it != views.end())
    return it->second;
  auto it = tensors.find(v);
  if (it == tensors.end())
    return std::nullopt;
  int64_t rank = it->second.type.getRank();
  View view{it->second, SmallVector<int64_t>(rank, 0),
            SmallVector<int64_t>(it->second.type.getShape()),
            it->second.type};
  return view;
}

LogicalResult EntryCompiler::visitSlice(tensor::ExtractSliceOp op) {
  std::optional<View> source = viewOf(op.getSource(), views, tensors);
  if (!source)
    return op.emitError() << "sparcast-aot: slices of entry tensors only";
  // A dynamic size must be the whole of its dim (the batch of a sliced
  // product): tensor.dim of the source there, from offset 0.
  auto wholeDim = [&](int64_t d) {
    if (!op.isDynamicSize(d) || op.getStaticOffsets()[d] != 0)
      return false;
    auto dim = op.getDynamicSize(d).getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
    return dim && dim.getSource() == op.getSource() && index == d;
  };
  bool sizesKnown = true;
  for (int64_t d = 0; d < op.getType().getRank(); ++d)
    sizesKnown &= !op.getType().isDynamicDim(d) || wholeDim(d);
  if (!op.hasUnitStride() || !sizesKnown ||
      op.getSourceType().getRank() != op.getType().getRank() ||
      llvm::any_of(op.getStaticOffsets(), ShapedType::isDynamic))
    return op.emitError() << "sparcast-aot: only static, unit-stride, "
                             "rank-preserving slices (a dynamic size the "
                             "whole dim) are supported";
  if (source->type != source->source.type)
    return op.emitError() << "sparcast-aot: slices of padded tensors are not "
                             "supported";
  View view = *source;
  for (auto [d, off] : llvm::enumerate(op.getStaticOffsets()))
    view.offsets[d] += off;
  view.extent = SmallVector<int64_t>(op.getType().getShape());
  view.type = op.getType();
  views[op.getResult()] = view;
  return success();
}

/// The shape of `from` (of type `fromType`) reshaped to `to` by `groups`
/// (a collapse multiplies a group's sizes, an expand splits one), or why
/// not: at most one dynamic size a group, split evenly.
static FailureOr<std::vector<LaunchDim>>
reshapedShape(const std::vector<LaunchDim> &from, RankedTensorType to,
              ArrayRef<ReassociationIndices> groups, std::string &why) {
  std::vector<LaunchDim> shape;
  bool collapse = to.getRank() < int64_t(from.size());
  for (auto [g, group] : llvm::enumerate(groups)) {
    if (collapse) {
      LaunchDim size = LaunchDim::of(1);
      int64_t constant = 1;
      for (int64_t d : group) {
        if (from[d].symbol.empty()) {
          constant *= from[d].constant;
          continue;
        }
        if (!size.symbol.empty()) {
          why = "a reshape that multiplies two dynamic dims";
          return failure();
        }
        size = from[d];
      }
      shape.push_back(size.times(constant));
      continue;
    }
    int64_t others = 1;
    for (int64_t d : group)
      if (!to.isDynamicDim(d))
        others *= to.getDimSize(d);
    for (int64_t d : group) {
      if (!to.isDynamicDim(d)) {
        shape.push_back(LaunchDim::of(to.getDimSize(d)));
        continue;
      }
      LaunchDim dim = from[g];
      if (dim.symbol.empty() || dim.divisor != 1 || dim.factor % others != 0) {
        why = "a reshape that splits a dynamic dim unevenly";
        return failure();
      }
      dim.factor /= others;
      shape.push_back(dim);
    }
  }
  return shape;
}

/// The reshapes (expand / collapse) only `v` reads, in a chain: their
/// results, in order.
static SmallVector<Value> reshapeChain(Value v) {
  SmallVector<Value> chain;
  while (v.hasOneUse() && isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
                              *v.user_begin())) {
    v = v.user_begin()->getResult(0);
    chain.push_back(v);
  }
  return chain;
}

static SmallVector<ReassociationIndices> groupsOf(Operation *reshape) {
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(reshape))
    return e.getReassociationIndices();
  return cast<tensor::CollapseShapeOp>(reshape).getReassociationIndices();
}

LogicalResult EntryCompiler::visitReshape(Operation *op, Value source,
                                          ArrayRef<ReassociationIndices> groups) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  std::string why;
  // An output's shape only (elementwise fusion reshapes them too).
  if (source.getDefiningOp<tensor::EmptyOp>() || emptyShapes.count(source)) {
    FailureOr<std::vector<LaunchDim>> from = shapeOf(source, op->getLoc());
    if (failed(from))
      return failure();
    FailureOr<std::vector<LaunchDim>> shape =
        reshapedShape(*from, type, groups, why);
    if (failed(shape))
      return op->emitError() << "sparcast-aot: " << why;
    emptyShapes[op->getResult(0)] = *shape;
    return success();
  }
  // A slice or pad is copied out first (a padded product's result).
  if (!tensors.count(source) && views.count(source) &&
      failed(materialize(source, op->getLoc())))
    return failure();
  auto it = tensors.find(source);
  if (it == tensors.end())
    return op->emitError() << "sparcast-aot: reshapes of entry tensors and "
                              "kernel results only";
  const TensorInfo &from = it->second;
  FailureOr<std::vector<LaunchDim>> shape =
      reshapedShape(from.shape, type, groups, why);
  if (failed(shape))
    return op->emitError() << "sparcast-aot: " << why;
  // The buffer's own tensor when the shape comes back to it (a result
  // written through a view of it), else a view of that buffer.
  std::string base = from.viewOf.empty() ? from.name : from.viewOf;
  for (const std::vector<TensorInfo> *list : {&args, &results, &workspace})
    for (const TensorInfo &t : *list)
      if (t.name == base && t.type == type) {
        tensors[op->getResult(0)] = t;
        return success();
      }
  TensorInfo view{"view" + std::to_string(reshapes.size()), type, *shape, ""};
  view.viewOf = base;
  reshapes.push_back(view);
  tensors[op->getResult(0)] = view;
  return success();
}

LogicalResult EntryCompiler::visitConcat(tensor::ConcatOp op) {
  int64_t dim = op.getDim();
  RankedTensorType type = op.getResultType();
  if (dim == 0)
    return op.emitError() << "sparcast-aot: a concat along dim 0 (the batch) "
                             "is not supported";
  // The result's shape: the first piece's, the concat dim static.
  FailureOr<TensorInfo> first = materialize(op.getInputs()[0], op.getLoc());
  if (failed(first))
    return failure();
  std::vector<LaunchDim> out = first->shape;
  out[dim] = LaunchDim::of(type.getDimSize(dim));
  TensorInfo dst = bindResult(op.getResult(), out);
  int64_t offset = 0;
  for (Value piece : op.getInputs()) {
    FailureOr<TensorInfo> src = materialize(piece, op.getLoc());
    if (failed(src))
      return failure();
    CopySpec spec;
    spec.srcType = cast<RankedTensorType>(piece.getType());
    spec.dstType = type;
    spec.src = src->name;
    spec.dst = dst.name;
    spec.batch = src->shape[0];
    spec.dstOffsets.assign(type.getRank(), 0);
    spec.dstOffsets[dim] = offset;
    offset += spec.srcType.getDimSize(dim);
    FailureOr<KernelLaunch> launch = buildCopyKernel(
        op.getLoc(), gpuModule, nextKernelName("concat"), spec);
    if (failed(launch) || failed(addLaunch(*launch, op.getLoc())))
      return failure();
  }
  return success();
}

LogicalResult EntryCompiler::visitPad(tensor::PadOp op) {
  std::optional<View> source = viewOf(op.getSource(), views, tensors);
  Value padValue = op.getConstantPaddingValue();
  if (!source || !padValue || !matchPattern(padValue, m_AnyZeroFloat()) ||
      llvm::any_of(op.getStaticLow(), [](int64_t l) { return l != 0; }) ||
      llvm::any_of(op.getStaticHigh(), ShapedType::isDynamic))
    return op.emitError() << "sparcast-aot: only zero padding at the high "
                             "end of entry tensors is supported";
  View view = *source;
  view.type = op.getResultType();
  views[op.getResult()] = view;
  return success();
}

FailureOr<TensorInfo> EntryCompiler::materializeConstant(arith::ConstantOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!type || !type.hasStaticShape())
    return op.emitError() << "sparcast-aot: a constant tensor of static shape "
                             "only";
  // An identity linalg.generic over the constant, compiled as any other and
  // removed again.
  OpBuilder b(op.getContext());
  b.setInsertionPointAfter(op);
  Location loc = op.getLoc();
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iters(type.getRank(),
                                         utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      b, loc, type, ValueRange{op.getResult()}, ValueRange{empty}, maps, iters,
      [](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, args[0]);
      });
  LogicalResult built = visitGeneric(copy);
  FailureOr<TensorInfo> info = failure();
  if (succeeded(built)) {
    info = tensors.at(copy.getResult(0));
    tensors[op.getResult()] = *info;
  }
  tensors.erase(copy.getResult(0));
  copy.erase();
  empty.getDefiningOp()->erase();
  return info;
}

FailureOr<TensorInfo> EntryCompiler::materialize(Value v, Location loc) {
  if (auto it = tensors.find(v); it != tensors.end())
    return it->second;
  if (auto constant = v.getDefiningOp<arith::ConstantOp>())
    return materializeConstant(constant);
  auto it = views.find(v);
  if (it == views.end())
    return emitError(loc) << "sparcast-aot: this value is not computed by a "
                             "kernel";
  const View &view = it->second;
  std::vector<LaunchDim> shape;
  for (auto [d, size] : llvm::enumerate(view.type.getShape()))
    shape.push_back(ShapedType::isDynamic(size) ? view.source.shape[d]
                                                : LaunchDim::of(size));
  // The entry's result when returned (a slice of a padded product), else
  // an intermediate.
  TensorInfo dst = bindResult(v, shape);
  // A value defined outside a dispatch's branch is copied whichever
  // branch runs (the other may read the copy made here).
  std::optional<LaunchCondition> branch = condition;
  if (v.getParentBlock() == &func.getBody().front())
    condition.reset();
  llvm::scope_exit restore([&] { condition = branch; });
  CopySpec spec;
  spec.srcType = view.source.type;
  spec.dstType = view.type;
  spec.offsets = view.offsets;
  spec.extent = view.extent;
  spec.src = view.source.name;
  spec.dst = dst.name;
  spec.batch = shape[0];
  FailureOr<KernelLaunch> launch =
      buildCopyKernel(loc, gpuModule, nextKernelName("copy"), spec);
  if (failed(launch) || failed(addLaunch(*launch, loc)))
    return failure();
  tensors[v] = dst;
  return dst;
}

GemmKernelOptions EntryCompiler::gemmOptions() const {
  GemmKernelOptions kernelOptions;
  kernelOptions.chip = options.chip;
  kernelOptions.schedule = options.schedule;
  return kernelOptions;
}

FailureOr<GemmBinding> EntryCompiler::bindMatmul(BatchMatmulOp op) {
  GemmBinding binding;
  Location loc = op.getLoc();
  // A rhs that is a view of another tensor may be read where it is by the
  // Hopper kernels' tensor map (and, padded along K, by the multistage
  // kernel's copies).
  std::optional<View> rhsView = viewOf(op.getRhs(), views, tensors);
  bool absorbPad = false, inPlace = false;
  bool hopper = usesHopperGemmPath(op, gemmOptions());
  if (rhsView && views.count(op.getRhs()) &&
      (hopper || usesMultistageGemmPath(op, gemmOptions()))) {
    const View &v = *rhsView;
    RankedTensorType src = v.source.type;
    // A rhs [B, K, N] that only pads K is read unpadded: TMA (or the
    // producer threads' copies) zero-fill the rows past the source's K.
    absorbPad = src.getRank() == 3 && !op.getTransposeRhs() &&
                llvm::all_of(v.offsets, [](int64_t o) { return o == 0; }) &&
                v.extent == SmallVector<int64_t>(src.getShape()) &&
                v.type.getDimSize(0) == src.getDimSize(0) &&
                v.type.getDimSize(2) == src.getDimSize(2);
    // A slice of a shared 2-D weight (sc-split-concat-k's parts of it): the
    // tensor map starts at the slice, with the weight's rows (16-byte
    // aligned start and rows: TMA's).
    int64_t bytes = src.getElementTypeBitWidth() / 8;
    inPlace = hopper && src.getRank() == 2 && src.hasStaticShape() &&
              v.type.hasStaticShape() && src.getDimSize(1) * bytes % 16 == 0 &&
              v.extent == SmallVector<int64_t>(v.type.getShape()) &&
              (v.offsets[0] * src.getDimSize(1) + v.offsets[1]) * bytes % 16 == 0;
    if (absorbPad) {
      binding.rhs = v.source.name;
      binding.rhsSourceK = src.getDimSize(1);
      if (report)
        *report << "padding of " << v.source.name << " along K ("
                << src.getDimSize(1) << " -> " << v.type.getDimSize(1)
                << ") left to the kernel's zero fill (TMA's, or its "
                   "threads' copies')\n";
    } else if (inPlace) {
      binding.rhs = v.source.name;
      binding.rhsSourceRowElems = src.getDimSize(1);
      binding.rhsSourceOffsetElems = v.offsets[0] * src.getDimSize(1) + v.offsets[1];
    }
  }
  if (!absorbPad && !inPlace) {
    FailureOr<TensorInfo> rhs = materialize(op.getRhs(), loc);
    if (failed(rhs))
      return failure();
    binding.rhs = rhs->name;
  }
  FailureOr<TensorInfo> lhs = materialize(op.getLhs(), loc);
  if (failed(lhs))
    return failure();
  binding.lhs = lhs->name;
  for (Value v : op.getEpilogueIns()) {
    FailureOr<TensorInfo> in = materialize(v, loc);
    if (failed(in))
      return failure();
    binding.epilogueIns.push_back(in->name);
    binding.epilogueInBatches.push_back(in->shape.empty() ? LaunchDim::of(1)
                                                          : in->shape[0]);
  }
  Value batched =
      op.getLhs().getType().getRank() == 3 ? op.getLhs() : op.getRhs();
  std::optional<View> batchedView = viewOf(batched, views, tensors);
  binding.batchSymbol = batchedView ? batchedView->source.shape[0].symbol : "";
  LaunchDim batch = binding.batchOf(op.getType());
  std::vector<LaunchDim> shape = {batch,
                                  LaunchDim::of(op.getType().getDimSize(1)),
                                  LaunchDim::of(op.getType().getDimSize(2))};
  // (Summed rows are added into the result: zeroed before every call.)
  binding.result = bindResult(op.getResult(), shape, op.getSumRows()).name;
  // Split-K: room for the most parts the kernel runs.
  DenseSplit split = denseSplitOf(op);
  if (split.maxParts > 0)
    binding.split = newSplitKWorkspaces(
        LaunchDim::of(split.maxParts * split.wordsPerPart),
        LaunchDim::of(split.maxParts * split.arrivalsPerTile));
  return binding;
}

/// Whether a kernel parameter of type `t` takes what `p` passes: a tensor
/// map is a pointer, a tensor a memref, a dim an index (log-linear tables:
/// a memref the runtime fills).
static bool paramTakes(Type t, const LaunchParam &p) {
  switch (p.kind) {
  case LaunchParam::Kind::Tma:
    return isa<LLVM::LLVMPointerType>(t);
  case LaunchParam::Kind::Memref:
  case LaunchParam::Kind::LogLinearTables:
    return isa<MemRefType>(t);
  case LaunchParam::Kind::Dim:
    return t.isIndex() || t.isInteger();
  }
  return false;
}

/// Where a kernel comes from, for the report: " [from FILE:LINE]" or
/// " [from node NAME]" (an imported model's node), else nothing.
static std::string sourceOf(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
    return sourceOf(fused.getLocations().front());
  if (auto name = dyn_cast<NameLoc>(loc))
    return " [from node " + name.getName().str() + "]";
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return " [from " + llvm::sys::path::filename(file.getFilename()).str() +
           ":" + std::to_string(file.getLine()) + "]";
  return "";
}

// The runtime passes the manifest's parameters in order: a kernel whose
// signature disagrees (count, or a map where a memref is taken) would read
// one argument as another on the GPU, so it is refused here.
LogicalResult EntryCompiler::addLaunch(const KernelLaunch &launch,
                                       Location loc) {
  auto kernel = gpuModule.lookupSymbol<gpu::GPUFuncOp>(launch.kernel);
  if (!kernel)
    return emitError(loc) << "internal error: no kernel " << launch.kernel
                          << " in " << gpuModule.getName();
  ArrayRef<Type> inputs = kernel.getFunctionType().getInputs();
  bool same = inputs.size() == launch.params.size();
  for (size_t i = 0; same && i < inputs.size(); ++i)
    same = paramTakes(inputs[i], launch.params[i]);
  if (!same)
    return emitError(loc) << "internal error: kernel " << launch.kernel
                          << "'s parameters do not match its launch's ("
                          << inputs.size() << " vs " << launch.params.size()
                          << ")";
  // The runtime expands a memref parameter by its tensor's rank (sizes and
  // strides): a kernel taking another rank would read the next parameters
  // in their place.
  for (auto [input, param] : llvm::zip(inputs, launch.params)) {
    auto memref = dyn_cast<MemRefType>(input);
    if (!memref || param.kind != LaunchParam::Kind::Memref)
      continue;
    const TensorInfo *tensor = nullptr;
    for (const std::vector<TensorInfo> *list :
         {&args, &results, &workspace, &reshapes})
      for (const TensorInfo &t : *list)
        if (t.name == param.tensor)
          tensor = &t;
    if (!tensor)
      return emitError(loc) << "internal error: kernel " << launch.kernel
                            << " takes unknown tensor '" << param.tensor << "'";
    if (tensor->type.getRank() != memref.getRank())
      return emitError(loc)
             << "internal error: kernel " << launch.kernel << " takes "
             << param.tensor << " as a rank-" << memref.getRank()
             << " memref, the tensor has rank " << tensor->type.getRank();
  }
  // A launch grid known at compile time must fit the hardware's limits
  // (grid dims of symbols are checked by the runtime at each call).
  const int64_t gridLimits[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
  for (int i = 0; i < 3; ++i) {
    const LaunchDim &g = launch.grid[i];
    if (g.symbol.empty() && (g.constant < 1 || g.constant > gridLimits[i]))
      return emitError(loc) << "sparcast-aot: kernel " << launch.kernel
                            << " would need grid dim " << i << " = "
                            << g.constant << ", outside [1, " << gridLimits[i]
                            << "]";
  }
  // Tensor maps go by value (128-byte grid constants): compileToPTX turns
  // the marked pointer arguments into them, the runtime passes the maps.
  for (auto [i, param] : llvm::enumerate(launch.params))
    if (param.kind == LaunchParam::Kind::Tma)
      kernel.setArgAttr(i, ScDialect::getTensorMapAttrName(),
                        UnitAttr::get(kernel.getContext()));
  json::Object entry = launchJson(launch, gpuModule.getName());
  if (condition && !condition->all.empty())
    entry[condition->key()] = condition->toJson();
  if (condition && condition->tuneGroup >= 0) {
    json::Object tune{{key::kGroup, condition->tuneGroup},
                      {key::kChoice, condition->tuneChoice}};
    if (!condition->tuneFallback)
      tune[key::kFallback] = false;
    entry[key::kTune] = std::move(tune);
  }
  if (report) {
    *report << "kernel " << launch.summary;
    if (condition && !condition->all.empty())
      *report << " (launched when " << condition->str() << ")";
    if (condition && condition->all.empty())
      *report << " (tuning alternative " << condition->tuneChoice
              << (condition->tuneFallback ? ", the default" : "") << ")";
    *report << sourceOf(loc) << "\n";
  }
  launches.push_back(std::move(entry));
  return success();
}

LogicalResult EntryCompiler::visitAssembleHybrid(AssembleHybridOp op) {
  HybridWeightBinding weight;
  std::string *names[] = {&weight.kinds, &weight.slots, &weight.dense,
                          &weight.sparse, &weight.meta};
  for (auto [name, operand] : llvm::zip(names, op->getOperands())) {
    FailureOr<TensorInfo> info = materialize(operand, op.getLoc());
    if (failed(info))
      return failure();
    *name = info->name;
    if (operand == op.getDense())
      weight.numDense = info->shape[0];
    if (operand == op.getSparse())
      weight.numSparse = info->shape[0];
  }
  hybridWeights[op.getResult()] = weight;
  return success();
}

LogicalResult EntryCompiler::visitAssembleCsr(AssembleCsrOp op) {
  CsrBinding rows;
  std::string *names[] = {&rows.rowPtr, &rows.words, &rows.values};
  for (auto [name, operand] : llvm::zip(names, op->getOperands())) {
    FailureOr<TensorInfo> info = materialize(operand, op.getLoc());
    if (failed(info))
      return failure();
    *name = info->name;
  }
  csrRows[op.getResult()] = rows;
  return success();
}

LogicalResult EntryCompiler::visitSparseMatmul(SparseMatmulOp op) {
  std::string why = sparseMatmulLimitation(op);
  auto lhs = csrRows.find(op.getLhs()), rhs = csrRows.find(op.getRhs());
  if (why.empty() && (lhs == csrRows.end() || rhs == csrRows.end()))
    why = "both row sets must be sc.assemble_csr of the entry's buffers";
  if (!why.empty())
    return op.emitError() << "sparcast-aot: no kernel for this "
                             "sc.sparse_matmul: "
                          << why;
  SparseMatmulBinding binding;
  binding.lhs = lhs->second;
  binding.rhs = rhs->second;
  FailureOr<TensorInfo> lhsHead = materialize(op.getLhsHead(), op.getLoc());
  FailureOr<TensorInfo> rhsHead = materialize(op.getRhsHead(), op.getLoc());
  if (failed(lhsHead) || failed(rhsHead))
    return failure();
  binding.lhsHead = lhsHead->name;
  binding.rhsHead = rhsHead->name;
  std::vector<TensorInfo> ins;
  for (Value v : op.getEpilogueIns()) {
    FailureOr<TensorInfo> in = materialize(v, op.getLoc());
    if (failed(in))
      return failure();
    binding.epilogueIns.push_back(in->name);
    ins.push_back(*in);
  }
  // The heads' rows are the result's: M queries and N items.
  binding.rows = lhsHead->shape[0];
  binding.items = rhsHead->shape[0];
  // A selection of each row's elements above a threshold, its only
  // consumer, runs in the tile kernel: the scores are never written.
  SelectRowsAboveOp select;
  if (op->hasOneUse())
    select = dyn_cast<SelectRowsAboveOp>(*op->user_begin());
  // The sparse parts' products go to a zeroed workspace unless a selection
  // rescores the pairs they touch or they can be added to the result after
  // the epilogue.
  if (needsScoresWorkspace(op, select)) {
    auto f32 = Float32Type::get(op.getContext());
    binding.scores =
        newWorkspace(RankedTensorType::get(op.getType().getShape(), f32),
                     {binding.rows, binding.items}, /*zeroInit=*/true)
            .name;
  }
  if (select) {
    FailureOr<TensorInfo> thresholds =
        materialize(select.getThresholds(), select.getLoc());
    if (failed(thresholds))
      return failure();
    binding.thresholds = thresholds->name;
    LaunchDim capacity = LaunchDim::of(select.getCapacity());
    // The slots are taken by atomic adds from zero, on every call.
    binding.counts =
        bindResult(select.getCounts(), {binding.rows}, /*zeroInit=*/true).name;
    binding.values =
        bindResult(select.getValues(), {binding.rows, capacity}).name;
    binding.cols = bindResult(select.getCols(), {binding.rows, capacity}).name;
    fusedSelections.insert(select);
  } else {
    binding.result =
        bindResult(op.getResult(), {binding.rows, binding.items}).name;
  }
  FailureOr<std::vector<KernelLaunch>> launches = buildSparseMatmulKernels(
      op, gpuModule, nextKernelName("similarity"), binding, select);
  if (failed(launches))
    return failure();
  // An epilogue operand read at the row (or column) index, such as the
  // norms, must hold M (or N) elements: the runtime checks it before the
  // launch (each row set's dims have their own symbols).
  if (Block *body = op.getEpilogue().empty() ? nullptr : &op.getEpilogue().front())
    body->walk([&](tensor::ExtractOp extract) {
      auto arg = dyn_cast<BlockArgument>(extract.getTensor());
      if (!arg || arg.getArgNumber() < 3 || extract.getIndices().size() != 1)
        return;
      const TensorInfo &in = ins[arg.getArgNumber() - 3];
      Value index = extract.getIndices()[0];
      const LaunchDim *bound = index == body->getArgument(1)   ? &binding.rows
                               : index == body->getArgument(2) ? &binding.items
                                                               : nullptr;
      if (!bound || bound->symbol.empty() || in.shape[0].symbol.empty())
        return;
      for (KernelLaunch &launch : *launches)
        if (llvm::any_of(launch.params, [&](const LaunchParam &p) {
              return p.tensor == in.name;
            }))
          launch.atMost.push_back({bound->symbol, in.shape[0].symbol});
    });
  for (const KernelLaunch &launch : *launches)
    if (failed(addLaunch(launch, op.getLoc())))
      return failure();
  return success();
}

LogicalResult EntryCompiler::visitHybridMatmul(BatchMatmulOp op) {
  auto weight = hybridWeights.find(op.getRhs());
  std::string why = hybridGemmLimitation(op, options.chip);
  if (why.empty() && weight == hybridWeights.end())
    why = "the hybrid-tiled weight must be an sc.assemble_hybrid of the entry";
  if (!why.empty())
    return op.emitError() << "sparcast-aot: no kernel for this hybrid-tiled "
                             "GEMM: "
                          << why;
  GemmBinding binding;
  FailureOr<TensorInfo> lhs = materialize(op.getLhs(), op.getLoc());
  if (failed(lhs))
    return failure();
  binding.lhs = lhs->name;
  binding.batchSymbol = lhs->shape[0].symbol;
  for (Value v : op.getEpilogueIns()) {
    FailureOr<TensorInfo> in = materialize(v, op.getLoc());
    if (failed(in))
      return failure();
    binding.epilogueIns.push_back(in->name);
    binding.epilogueInBatches.push_back(in->shape.empty() ? LaunchDim::of(1)
                                                          : in->shape[0]);
  }
  binding.result =
      bindResult(op.getResult(), {binding.batchOf(op.getType()),
                                  LaunchDim::of(op.getType().getDimSize(1)),
                                  LaunchDim::of(op.getType().getDimSize(2))})
          .name;
  // Split-K: every part of every tile.
  SplitKBinding split;
  HybridSplit parts = hybridSplitOf(op);
  if (parts.splits > 1) {
    LaunchDim tiles = binding.batchOf(op.getType()).times(parts.tilesPerBatch);
    split = newSplitKWorkspaces(tiles.times(parts.splits * parts.wordsPerPart),
                                tiles.times(parts.arrivalsPerTile));
  }
  FailureOr<KernelLaunch> launch = buildHybridGemmKernel(
      op, gpuModule, nextKernelName("gemm"), binding, weight->second, split);
  if (failed(launch) || failed(addLaunch(*launch, op.getLoc())))
    return failure();
  return success();
}

FailureOr<std::vector<LaunchDim>> EntryCompiler::shapeOf(Value v,
                                                        Location loc) {
  auto type = cast<RankedTensorType>(v.getType());
  if (auto it = tensors.find(v); it != tensors.end())
    return it->second.shape;
  if (auto it = emptyShapes.find(v); it != emptyShapes.end())
    return it->second;
  // A tensor.empty's dynamic sizes are values the entry knows.
  auto empty = v.getDefiningOp<tensor::EmptyOp>();
  std::vector<LaunchDim> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      shape.push_back(LaunchDim::of(type.getDimSize(d)));
      continue;
    }
    auto known = empty ? dims.find(empty.getDynamicSize(d)) : dims.end();
    if (known == dims.end())
      return emitError(loc) << "sparcast-aot: dim " << d
                            << " of this tensor is not known to the entry";
    shape.push_back(known->second);
  }
  return shape;
}

/// The constant every element of `t` holds when `t` is a fill of one (a
/// linalg.fill, or its generic form: parallel loops yielding a constant,
/// given or as a scalar input), else null.
static TypedAttr filledConstant(Value t) {
  Type element = getElementTypeOrSelf(t.getType());
  auto constantOf = [&](Value v) -> TypedAttr {
    auto constant = v.getDefiningOp<arith::ConstantOp>();
    return constant && constant.getType() == element ? constant.getValue()
                                                     : TypedAttr();
  };
  if (auto fill = t.getDefiningOp<linalg::FillOp>())
    return constantOf(fill.value());
  auto generic = t.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumReductionLoops() != 0 ||
      generic->getNumResults() != 1)
    return {};
  Block *body = generic.getBody();
  if (!llvm::hasSingleElement(body->without_terminator()) &&
      !body->without_terminator().empty())
    return {};
  Value yielded = body->getTerminator()->getOperand(0);
  if (!body->without_terminator().empty()) {
    // The constant inside the body.
    if (yielded.getDefiningOp() != &body->front())
      return {};
    return constantOf(yielded);
  }
  if (auto arg = dyn_cast<BlockArgument>(yielded)) {
    if (arg.getOwner() != body || arg.getArgNumber() >= generic.getNumDpsInputs())
      return {};
    return constantOf(generic.getDpsInputs()[arg.getArgNumber()]);
  }
  return constantOf(yielded);
}

LogicalResult EntryCompiler::visitGeneric(linalg::GenericOp op) {
  if (fusedIntoReductions.contains(op))
    return success();
  // A fill only generics start from (their initial values): each takes
  // the constant itself, so the fill needs no kernel.
  if (filledConstant(op->getResult(0)) &&
      llvm::all_of(op->getResult(0).getUses(), [](OpOperand &use) {
        auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
        return user && user.isDpsInit(&use);
      }))
    return success();
  std::string why = genericKernelLimitation(op);
  if (!why.empty())
    return op.emitError() << "sparcast-aot: no kernel for this linalg.generic: "
                          << why;
  GenericBinding binding;
  for (Value in : op.getDpsInputs()) {
    if (in.getDefiningOp<arith::ConstantOp>()) {
      binding.inputs.push_back("");
      continue;
    }
    FailureOr<TensorInfo> info = materialize(in, op.getLoc());
    if (failed(info))
      return failure();
    binding.inputs.push_back(info->name);
  }
  for (Value t : genericGatheredTensors(op)) {
    FailureOr<TensorInfo> info = materialize(t, op.getLoc());
    if (failed(info))
      return failure();
    binding.gathered.push_back(info->name);
  }
  Value init = op.getDpsInits()[0];
  // A fill of a constant (a reduction's start): the constant in the
  // kernel; the fill is then built only if something else reads it.
  bool readsInit = !op.getBody()->getArgument(op.getNumDpsInputs()).use_empty();
  TypedAttr fillValue = filledConstant(init);
  if (readsInit && fillValue) {
    binding.initValue = fillValue;
  } else if (readsInit && !init.getDefiningOp<tensor::EmptyOp>()) {
    FailureOr<TensorInfo> info = materialize(init, op.getLoc());
    if (failed(info))
      return failure();
    binding.init = info->name;
  }
  // The output's sizes: a fill taken as a constant has no tensor of its
  // own, its destination's sizes are the same.
  Value sized = init;
  while (filledConstant(sized) && !tensors.count(sized))
    sized = cast<DestinationStyleOpInterface>(sized.getDefiningOp()).getDpsInits()[0];
  FailureOr<std::vector<LaunchDim>> shape = shapeOf(sized, op.getLoc());
  if (failed(shape))
    return failure();
  binding.outputShape = *shape;
  // A mean's division after its sum: applied in the sum's kernel, which
  // then writes the consumer's result.
  binding.consumer = fusableConsumer(op);
  Value stored = op->getResult(0);
  if (binding.consumer) {
    fusedIntoReductions.insert(binding.consumer);
    stored = binding.consumer->getResult(0);
  }
  binding.output = bindResult(stored, *shape).name;
  FailureOr<KernelLaunch> launch = buildGenericKernel(
      op, gpuModule, nextKernelName("generic"), binding);
  if (failed(launch) || failed(addLaunch(*launch, op.getLoc())))
    return failure();
  return success();
}

/// A gather no GEMM epilogue or attention took (the IKBO passes take the
/// broadcasts they find): the generated kernel of its linalg form, put in
/// its place, each element read through the index (an index past the
/// table reads 0). The gather is left unused.
LogicalResult EntryCompiler::visitGatherRows(GatherRowsOp op) {
  Operation *before = op->getPrevNode();
  ImplicitLocOpBuilder b(op.getLoc(), op);
  Value gathered =
      sc::detail::buildGatherRows(b, op.getSource(), op.getIndices());
  op.getResult().replaceAllUsesWith(gathered);
  // The sizes of its output (tensor.dim, tensor.empty), then the generic.
  Operation *next = before ? before->getNextNode() : &op->getBlock()->front();
  for (; next != op.getOperation(); next = next->getNextNode())
    if (failed(visit(*next)))
      return failure();
  return success();
}

LogicalResult EntryCompiler::visitMatmul(BatchMatmulOp op) {
  if (isa_and_nonnull<HybridTilesAttr>(op.getRhs().getType().getEncoding()))
    return visitHybridMatmul(op);
  FailureOr<GemmBinding> binding = bindMatmul(op);
  if (failed(binding))
    return failure();
  FailureOr<KernelLaunch> launch = buildGemmKernel(
      op, gpuModule, nextKernelName("gemm"), *binding, gemmOptions());
  if (failed(launch) || failed(addLaunch(*launch, op.getLoc())))
    return failure();
  return success();
}


TensorInfo EntryCompiler::bindResult(Value result,
                                     std::vector<LaunchDim> shape,
                                     bool zeroInit) {
  // A dispatch's branches write their result where the scf.if's goes:
  // bound by the first branch, shared by the second.
  if (result.hasOneUse())
    if (auto yield = dyn_cast<scf::YieldOp>(*result.user_begin())) {
      Value merged = yield->getParentOp()->getResult(
          result.use_begin()->getOperandNumber());
      if (!tensors.count(merged))
        tensors[merged] = bindResult(merged, shape, zeroInit);
      tensors[result] = tensors.at(merged);
      return tensors.at(result);
    }
  auto type = cast<RankedTensorType>(result.getType());
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  TensorInfo out;
  // Returned as it is, or through reshapes only it reads: then the result
  // has the returned shape and the kernel writes a view of it.
  SmallVector<Value> chain = reshapeChain(result);
  Value returned = chain.empty() ? result : chain.back();
  std::optional<unsigned> resultIndex;
  for (OpOperand &use : returned.getUses())
    if (use.getOwner() == ret)
      resultIndex = use.getOperandNumber();
  std::vector<LaunchDim> returnedShape = shape;
  std::string why;
  for (Value v : chain) {
    FailureOr<std::vector<LaunchDim>> next = reshapedShape(
        returnedShape, cast<RankedTensorType>(v.getType()),
        groupsOf(v.getDefiningOp()), why);
    if (failed(next)) {
      resultIndex.reset(); // visitReshape reports it
      break;
    }
    returnedShape = *next;
  }
  if (resultIndex) {
    out = TensorInfo{"result" + std::to_string(*resultIndex),
                     cast<RankedTensorType>(returned.getType()), returnedShape,
                     "", zeroInit};
    if (results.size() <= *resultIndex)
      results.resize(*resultIndex + 1);
    results[*resultIndex] = out;
    if (!chain.empty()) {
      TensorInfo view{"view" + std::to_string(reshapes.size()), type, shape, ""};
      view.viewOf = out.name;
      reshapes.push_back(view);
      out = view;
    }
  } else {
    out = newWorkspace(type, shape, zeroInit);
  }
  tensors[result] = out;
  return out;
}


LogicalResult EntryCompiler::visitAttention(AttentionOp op) {
  Location loc = op.getLoc();
  AttentionBinding binding;
  FailureOr<TensorInfo> q = materialize(op.getQuery(), loc);
  FailureOr<TensorInfo> k = materialize(op.getKey(), loc);
  FailureOr<TensorInfo> v = materialize(op.getValue(), loc);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  binding.query = q->name;
  binding.key = k->name;
  binding.value = v->name;
  if (Value index = op.getIndex()) {
    FailureOr<TensorInfo> idx = materialize(index, loc);
    if (failed(idx))
      return failure();
    binding.index = idx->name;
  }
  binding.batchSymbol = q->shape[0].symbol;
  binding.keyBatchSymbol = k->shape[0].symbol;
  binding.queryLenSymbol = q->shape[2].symbol;
  binding.keyLenSymbol = k->shape[2].symbol;
  // V has K's (possibly dynamic) length: the kernel reads both with it, so
  // the runtime must check that they agree.
  if (!v->shape[2].symbol.empty() && v->shape[2].symbol != k->shape[2].symbol)
    for (TensorInfo &a : args)
      if (a.name == v->name) {
        a.shape[2] = k->shape[2];
        tensors[op.getValue()].shape[2] = k->shape[2];
      }
  // P in f16 needs V in f16: converted once here, not block by block in
  // the kernel (each V block is read by many query blocks).
  if (attentionKernelTakesF16Value(op)) {
    RankedTensorType f16Type = RankedTensorType::get(
        v->type.getShape(), Float16Type::get(op.getContext()));
    ConvertSpec spec;
    spec.srcType = v->type;
    spec.dstType = f16Type;
    spec.src = v->name;
    std::vector<LaunchDim> shape = v->shape;
    shape[2] = k->shape[2];
    spec.dst = newWorkspace(f16Type, shape).name;
    FailureOr<KernelLaunch> convert =
        buildConvertKernel(loc, gpuModule, nextKernelName("convert"), spec);
    if (failed(convert) || failed(addLaunch(*convert, loc)))
      return failure();
    binding.value = spec.dst;
  }
  std::vector<LaunchDim> shape = {q->shape[0], q->shape[1], q->shape[2],
                                  v->shape[3]};
  binding.result = bindResult(op.getResult(), shape).name;
  // Which candidates a CTA takes depends on the index's values, known only
  // on the device: a kernel before the attention makes the tables. With
  // grouping, the grouping kernel sorts the candidates by request and, for
  // the pairs kernel, pairs neighbours of one request; otherwise the pairs
  // kernel's pairing kernel pairs them in index order.
  auto i32 = IntegerType::get(op.getContext(), 32);
  LaunchDim users = k->shape[0], candidates = q->shape[0];
  // An int32 [B] table, one entry a candidate.
  auto candidateTable = [&](bool zeroInit) {
    return newWorkspace(RankedTensorType::get({q->type.getDimSize(0)}, i32),
                        {candidates}, zeroInit)
        .name;
  };
  AttentionConfigAttr config = getAttentionConfig(op);
  bool pairs = config.getWalk() == AttentionWalk::pairs;
  if (config.getGroupCandidates()) {
    GroupCandidatesSpec spec;
    spec.index = binding.index;
    spec.users = users;
    spec.order = candidateTable(/*zeroInit=*/false);
    if (pairs)
      spec.pairs = candidateTable(/*zeroInit=*/false);
    FailureOr<KernelLaunch> grouping = buildGroupCandidatesKernel(
        loc, gpuModule, nextKernelName("group"), spec);
    if (failed(grouping) || failed(addLaunch(*grouping, loc)))
      return failure();
    binding.order = spec.order;
    binding.pairs = spec.pairs;
  } else if (pairs) {
    PairCandidatesSpec spec;
    spec.index = binding.index;
    spec.waiting = newWorkspace(RankedTensorType::get({k->type.getDimSize(0)}, i32),
                                {users}, /*zeroInit=*/true)
                       .name;
    spec.pairs = candidateTable(/*zeroInit=*/true);
    spec.batch = candidates;
    FailureOr<KernelLaunch> pairing = buildPairCandidatesKernel(
        loc, gpuModule, nextKernelName("pairs"), spec);
    if (failed(pairing) || failed(addLaunch(*pairing, loc)))
      return failure();
    binding.pairs = spec.pairs;
  }
  FailureOr<KernelLaunch> launch =
      buildAttentionKernel(op, gpuModule, nextKernelName("attention"), binding,
                           options.chip, options.attentionFromKernelIR,
                           options.ampereAttention);
  if (failed(launch) || failed(addLaunch(*launch, op.getLoc())))
    return failure();
  return success();
}

LogicalResult EntryCompiler::visit(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](BatchMatmulOp m) { return visitMatmul(m); })
      .Case([&](AttentionOp a) { return visitAttention(a); })
      .Case([&](AssembleHybridOp a) { return visitAssembleHybrid(a); })
      .Case([&](AssembleCsrOp a) { return visitAssembleCsr(a); })
      .Case([&](SparseMatmulOp m) { return visitSparseMatmul(m); })
      .Case([&](SelectRowsAboveOp m) -> LogicalResult {
        if (fusedSelections.contains(m))
          return success();
        return m.emitError() << "sparcast-aot: sc.select_rows_above runs "
                                "only as the one consumer of an "
                                "sc.sparse_matmul (fused into its kernel)";
      })
      .Case([&](linalg::GenericOp g) { return visitGeneric(g); })
      .Case([&](GatherRowsOp g) { return visitGatherRows(g); })
      // Outputs' shapes, read by the kernels that write them.
      .Case([&](tensor::EmptyOp) { return success(); })
      .Case([&](tensor::ExtractSliceOp s) { return visitSlice(s); })
      .Case([&](tensor::ConcatOp c) { return visitConcat(c); })
      .Case([&](tensor::PadOp p) { return visitPad(p); })
      .Case([&](tensor::ExpandShapeOp e) {
        return visitReshape(e, e.getSrc(), e.getReassociationIndices());
      })
      .Case([&](tensor::CollapseShapeOp c) {
        return visitReshape(c, c.getSrc(), c.getReassociationIndices());
      })
      .Case([&](arith::ConstantOp c) {
        if (auto value = dyn_cast<IntegerAttr>(c.getValue());
            value && c.getType().isIndex())
          dims[c.getResult()] = LaunchDim::of(value.getInt());
        return success();
      })
      .Case([&](tensor::DimOp d) { return visitDim(d); })
      .Case([&](arith::MulIOp m) { return visitMul(m); })
      .Case([&](arith::CmpIOp c) { return visitCmp(c); })
      .Case([&](arith::AndIOp a) { return visitAnd(a); })
      .Case([&](scf::IfOp i) { return visitIf(i); })
      .Case([&](scf::IndexSwitchOp i) { return visitIndexSwitch(i); })
      .Default([&](Operation *other) {
        return other->emitError()
               << "sparcast-aot: '" << other->getName()
               << "' is not supported in an entry yet (entries are "
                  "made of sc.batch_matmul, sc.attention, slices and "
                  "zero padding, and dispatches on the dims "
                  "for now; run --sc-ikbo-pipeline on model graphs)";
      });
}

LogicalResult EntryCompiler::visitDim(tensor::DimOp op) {
  std::optional<int64_t> index = op.getConstantIndex();
  if (auto it = emptyShapes.find(op.getSource());
      index && it != emptyShapes.end()) {
    dims[op.getResult()] = it->second[*index];
    return success();
  }
  std::optional<View> view = viewOf(op.getSource(), views, tensors);
  if (!index || !view)
    return op.emitError() << "sparcast-aot: only constant dims of entry "
                             "tensors are supported";
  // A view's dynamic dims are its source's (pads and slices are static).
  int64_t size = view->type.getDimSize(*index);
  dims[op.getResult()] = ShapedType::isDynamic(size)
                             ? view->source.shape[*index]
                             : LaunchDim::of(size);
  return success();
}

LogicalResult EntryCompiler::visitMul(arith::MulIOp op) {
  auto lhs = dims.find(op.getLhs()), rhs = dims.find(op.getRhs());
  if (lhs == dims.end() || rhs == dims.end() ||
      (!lhs->second.symbol.empty() && !rhs->second.symbol.empty()) ||
      lhs->second.divisor != 1 || rhs->second.divisor != 1)
    return op.emitError() << "sparcast-aot: only a dim times a constant is "
                             "supported";
  dims[op.getResult()] = lhs->second.symbol.empty()
                             ? rhs->second.times(lhs->second.constant)
                             : lhs->second.times(rhs->second.constant);
  return success();
}

LogicalResult EntryCompiler::visitCmp(arith::CmpIOp op) {
  auto lhs = dims.find(op.getLhs()), rhs = dims.find(op.getRhs());
  using P = arith::CmpIPredicate;
  P p = op.getPredicate();
  if (lhs == dims.end() || rhs == dims.end() ||
      !llvm::is_contained({P::sge, P::uge, P::slt, P::ult}, p))
    return op.emitError() << "sparcast-aot: only dims compared by >= or < "
                             "are supported";
  LaunchCondition c;
  c.all.push_back({lhs->second, rhs->second, p == P::sge || p == P::uge});
  conditions[op.getResult()] = c;
  return success();
}

LogicalResult EntryCompiler::visitAnd(arith::AndIOp op) {
  auto lhs = conditions.find(op.getLhs()), rhs = conditions.find(op.getRhs());
  if (lhs == conditions.end() || rhs == conditions.end() ||
      lhs->second.unless || rhs->second.unless)
    return op.emitError() << "sparcast-aot: only conjunctions of dims "
                             "compared by >= or < are supported";
  LaunchCondition c = lhs->second;
  c.all.append(rhs->second.all);
  conditions[op.getResult()] = c;
  return success();
}

LogicalResult EntryCompiler::visitIf(scf::IfOp op) {
  auto cond = conditions.find(op.getCondition());
  if (cond == conditions.end() || condition || op.getElseRegion().empty())
    return op.emitError() << "sparcast-aot: only a dispatch on the dims "
                             "with two branches, not nested, is supported";
  // The branches are the alternatives of one tune group: the condition
  // chooses, unless the runtime measures (scSetTuning).
  int group = dispatches++;
  for (auto [choice, region, when] :
       {std::tuple{0, &op.getThenRegion(), cond->second},
        std::tuple{1, &op.getElseRegion(), cond->second.negated()}}) {
    when.tuneGroup = group;
    when.tuneChoice = choice;
    if (failed(compileBranch(region->front(), when, op.getResults())))
      return failure();
  }
  return success();
}

LogicalResult EntryCompiler::compileBranch(Block &block, LaunchCondition when,
                                           ValueRange results) {
  condition = when;
  for (Operation &inner : block.without_terminator())
    if (failed(visit(inner)))
      return failure();
  condition.reset();
  auto yield = cast<scf::YieldOp>(block.getTerminator());
  for (auto [yielded, result] : llvm::zip(yield.getOperands(), results)) {
    auto it = tensors.find(yielded);
    if (it == tensors.end() || (tensors.count(result) &&
                                tensors.at(result).name != it->second.name))
      return yield.emitError() << "sparcast-aot: every branch must compute "
                                  "its result by a kernel";
    tensors[result] = it->second;
  }
  return success();
}

LogicalResult EntryCompiler::visitIndexSwitch(scf::IndexSwitchOp op) {
  std::optional<int64_t> arg = getConstantIntValue(op.getArg());
  if (!arg || *arg != 0 || condition ||
      !llvm::equal(op.getCases(), llvm::seq<int64_t>(1, op.getNumCases() + 1)))
    return op.emitError() << "sparcast-aot: only tuning alternatives are "
                             "supported (sc-tune-gemm-schedules: a switch on "
                             "0 with cases 1, 2, ..., not nested)";
  // The regions are one tune group's alternatives: the default (choice 0)
  // runs until the runtime has measured, case k is choice k.
  int group = dispatches++;
  SmallVector<std::pair<int, Block *>> branches = {
      {0, &op.getDefaultBlock()}};
  for (auto [k, region] : llvm::enumerate(op.getCaseRegions()))
    branches.push_back({static_cast<int>(k) + 1, &region.front()});
  for (auto [choice, block] : branches) {
    LaunchCondition when;
    when.tuneGroup = group;
    when.tuneChoice = choice;
    when.tuneFallback = choice == 0;
    if (failed(compileBranch(*block, when, op.getResults())))
      return failure();
  }
  return success();
}

LogicalResult EntryCompiler::compile() {
  if (failed(bindArguments()))
    return failure();
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (Operation &op : func.getBody().front().without_terminator())
    if (failed(visit(op)))
      return failure();
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    // A returned view (a slice) is copied into the result.
    if (!tensors.count(v) && views.count(v) &&
        failed(materialize(v, ret.getLoc())))
      return failure();
    auto it = tensors.find(v);
    if (i >= results.size() || results[i].name.empty() || it == tensors.end() ||
        it->second.name != results[i].name)
      return ret.emitError() << "sparcast-aot: result #" << i
                             << " must be produced by a kernel of the entry";
  }
  return success();
}
