//===- CpuRunner.cpp - run tensor functions on the host CPU ---------------===//

#include "sparcast/ExecutionEngine/CpuRunner.h"
#include "sparcast/Dialect/SC/IR/ScDialect.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::sc;

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

static size_t bytesOf(ElementKind kind) {
  switch (kind) {
  case ElementKind::f32:
  case ElementKind::i32:
    return 4;
  case ElementKind::f16:
  case ElementKind::bf16:
    return 2;
  case ElementKind::i8:
    return 1;
  }
  return 4;
}

static const llvm::fltSemantics &semanticsOf(ElementKind kind) {
  return kind == ElementKind::f16 ? llvm::APFloat::IEEEhalf()
                                  : llvm::APFloat::BFloat();
}

HostTensor::HostTensor(ElementKind kind, ArrayRef<int64_t> shape)
    : kind(kind), shape(shape) {
  data.assign(getNumElements() * bytesOf(kind), 0);
}

int64_t HostTensor::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double HostTensor::get(int64_t i) const {
  const uint8_t *p = data.data() + i * bytesOf(kind);
  switch (kind) {
  case ElementKind::f32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case ElementKind::i32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElementKind::i8:
    return static_cast<int8_t>(*p);
  case ElementKind::f16:
  case ElementKind::bf16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    llvm::APFloat f(semanticsOf(kind), llvm::APInt(16, bits));
    return f.convertToFloat();
  }
  }
  return 0;
}

void HostTensor::set(int64_t i, double v) {
  uint8_t *p = data.data() + i * bytesOf(kind);
  switch (kind) {
  case ElementKind::f32: {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
    return;
  }
  case ElementKind::i32: {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(p, &x, 4);
    return;
  }
  case ElementKind::i8:
    *p = static_cast<uint8_t>(static_cast<int8_t>(v));
    return;
  case ElementKind::f16:
  case ElementKind::bf16: {
    llvm::APFloat f(v);
    bool lost;
    f.convert(semanticsOf(kind), llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = f.bitcastToAPInt().getZExtValue();
    std::memcpy(p, &bits, 2);
    return;
  }
  }
}

static std::optional<ElementKind> kindOf(Type type) {
  if (type.isF32())
    return ElementKind::f32;
  if (type.isF16())
    return ElementKind::f16;
  if (type.isBF16())
    return ElementKind::bf16;
  if (type.isSignlessInteger(32))
    return ElementKind::i32;
  if (type.isSignlessInteger(8))
    return ElementKind::i8;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

/// Candidate -> user map: every user gets at least one candidate (when
/// there are enough), the rest spread unevenly at random.
static std::vector<int32_t> makeIndex(int64_t users, int64_t candidates,
                                      bool shuffle, std::mt19937_64 &rng) {
  std::vector<int32_t> index(candidates);
  std::vector<int64_t> counts(users, 0);
  int64_t i = 0;
  for (; i < std::min(users, candidates); ++i)
    counts[i] = 1;
  std::uniform_int_distribution<int64_t> anyUser(0, users - 1);
  for (; i < candidates; ++i)
    ++counts[anyUser(rng)];
  int64_t at = 0;
  for (int64_t u = 0; u < users; ++u)
    for (int64_t c = 0; c < counts[u]; ++c)
      index[at++] = static_cast<int32_t>(u);
  if (shuffle)
    std::shuffle(index.begin(), index.end(), rng);
  return index;
}

/// The function's sc.assemble_hybrid ops whose five buffers are its
/// arguments (their argument numbers), the random weights' packings.
static SmallVector<SmallVector<unsigned, 5>> packedArguments(func::FuncOp func) {
  SmallVector<SmallVector<unsigned, 5>> packed;
  func.walk([&](AssembleHybridOp op) {
    SmallVector<unsigned, 5> args;
    for (Value v : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(v);
          arg && arg.getOwner() == &func.front())
        args.push_back(arg.getArgNumber());
    if (args.size() == 5)
      packed.push_back(args);
  });
  return packed;
}

/// A random valid packing in the tensors `t` (kinds, slots, dense, sparse,
/// meta; docs/hybrid-tiles.md): each tile zero, dense or 2:4 at random
/// while its kind's buffer has planes left, metadata of valid positions.
static void makeRandomPacking(MutableArrayRef<HostTensor *> t,
                              std::mt19937_64 &rng) {
  HostTensor &kinds = *t[0], &slots = *t[1], &meta = *t[4];
  int64_t planes[3] = {0, t[2]->getShape()[0], t[3]->getShape()[0]};
  int64_t used[3] = {0, 0, 0};
  std::uniform_int_distribution<int> anyKind(0, 2);
  for (int64_t tile = 0; tile < kinds.getNumElements(); ++tile) {
    int kind = anyKind(rng);
    if (kind != 0 && used[kind] == planes[kind])
      kind = 0;
    kinds.set(tile, kind);
    slots.set(tile, kind == 0 ? -1 : used[kind]++);
  }
  // The six nibbles of two positions in order.
  const uint32_t nibbles[6] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
  std::uniform_int_distribution<int> anyNibble(0, 5);
  for (int64_t w = 0; w < meta.getNumElements(); ++w) {
    uint32_t word = 0;
    for (int j = 0; j < 8; ++j)
      word |= nibbles[anyNibble(rng)] << (4 * j);
    meta.set(w, static_cast<int32_t>(word));
  }
}

FailureOr<std::vector<HostTensor>>
mlir::sc::makeRandomInputs(func::FuncOp func, const InputSpec &spec) {
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> uniform(-spec.floatScale,
                                                 spec.floatScale);
  std::vector<HostTensor> inputs;
  SmallVector<SmallVector<unsigned, 5>> packed = packedArguments(func);
  auto isPacked = [&](unsigned arg) {
    return llvm::any_of(packed, [&](ArrayRef<unsigned> args) {
      return llvm::is_contained(args, arg);
    });
  };
  for (auto [i, argType] : llvm::enumerate(func.getArgumentTypes())) {
    auto type = dyn_cast<RankedTensorType>(argType);
    std::optional<ElementKind> kind =
        type ? kindOf(type.getElementType()) : std::nullopt;
    if (!kind)
      return func.emitError() << "cannot make a random value for argument #"
                              << i << " of type " << argType;
    auto lineage = func.getArgAttrOfType<LineageKindAttr>(
        i, ScDialect::getLineageAttrName());
    LineageKind lk = lineage ? lineage.getValue() : LineageKind::shared;
    SmallVector<int64_t> shape(type.getShape());
    for (auto [d, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size))
        continue;
      if (d == 0 && lk == LineageKind::request)
        size = spec.users;
      else if (d == 0 &&
               (lk == LineageKind::candidate || lk == LineageKind::index))
        size = spec.candidates;
      else
        size = spec.otherDynamicSize;
    }
    // Host tensors of the test sizes: refuse what would not fit in memory
    // (2^30 elements, 4 GiB of f32) instead of failing to allocate.
    constexpr int64_t kMaxElements = int64_t(1) << 30;
    int64_t elements = 1;
    for (int64_t size : shape)
      if (size < 0 || (size > 0 && elements > kMaxElements / size))
        return func.emitError() << "argument #" << i
                                << " would hold more than 2^30 elements";
      else
        elements *= size;
    HostTensor tensor(*kind, shape);
    if (lk == LineageKind::index) {
      std::vector<int32_t> index =
          makeIndex(spec.users, shape[0], spec.shuffleIndex, rng);
      for (auto [j, v] : llvm::enumerate(index))
        tensor.set(j, v);
    } else if ((*kind == ElementKind::i32 || *kind == ElementKind::i8) &&
               !isPacked(i)) {
      return func.emitError() << "integer argument #" << i
                              << " needs #sc.lineage<index> (or to be a "
                                 "buffer of an sc.assemble_hybrid)";
    } else {
      for (int64_t j = 0; j < tensor.getNumElements(); ++j)
        tensor.set(j, uniform(rng));
    }
    inputs.push_back(std::move(tensor));
  }
  for (ArrayRef<unsigned> args : packed) {
    SmallVector<HostTensor *, 5> tensors;
    for (unsigned arg : args)
      tensors.push_back(&inputs[arg]);
    makeRandomPacking(tensors, rng);
  }
  return inputs;
}

//===----------------------------------------------------------------------===//
// CpuFunction
//===----------------------------------------------------------------------===//

FailureOr<std::unique_ptr<CpuFunction>>
CpuFunction::compile(ModuleOp module, StringRef name) {
  auto func = module.lookupSymbol<func::FuncOp>(name);
  if (!func)
    return module.emitError() << "no function @" << name;
  std::unique_ptr<CpuFunction> result(new CpuFunction());
  result->name = name.str();
  for (Type t : func.getArgumentTypes()) {
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || !kindOf(type.getElementType()))
      return func.emitError() << "unsupported argument type " << t;
    result->argRanks.push_back(type.getRank());
  }
  if (func.getNumResults() == 0)
    return func.emitError() << "expected at least one result";
  for (Type t : func.getResultTypes()) {
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || !kindOf(type.getElementType()))
      return func.emitError() << "unsupported result type " << t;
    result->resultRanks.push_back(type.getRank());
    result->resultKinds.push_back(*kindOf(type.getElementType()));
  }
  func->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));

  PassManager pm(module.getContext());
  buildScCpuReferencePipeline(pm);
  if (failed(pm.run(module)))
    return failure();

  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  ExecutionEngineOptions options;
  static const StringRef sharedLibs[] = {SPARCAST_C_RUNNER_UTILS};
  options.sharedLibPaths = sharedLibs;
  // `transformer` is a function_ref: the function must outlive create().
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  options.transformer = optimize;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine)
    return module.emitError() << "cannot JIT-compile: "
                              << llvm::toString(engine.takeError());
  result->engine = std::move(*engine);
  return result;
}

namespace {
/// A strided memref descriptor of any rank, laid out as MLIR's C interface
/// expects: {allocated, aligned, offset, sizes[rank], strides[rank]}.
struct Descriptor {
  std::vector<int64_t> words;
  explicit Descriptor(int64_t rank) : words(3 + 2 * rank, 0) {}
  Descriptor(void *data, ArrayRef<int64_t> shape) : Descriptor(shape.size()) {
    words[0] = reinterpret_cast<int64_t>(data);
    words[1] = reinterpret_cast<int64_t>(data);
    int64_t stride = 1;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      words[3 + d] = shape[d];
      words[3 + shape.size() + d] = stride;
      stride *= shape[d];
    }
  }
};
} // namespace

FailureOr<std::vector<HostTensor>>
CpuFunction::call(MutableArrayRef<HostTensor> args) {
  if (args.size() != argRanks.size())
    return failure();
  // The C interface returns the results through one struct of their
  // descriptors (all 8-byte words, so they lie back to back).
  size_t resultWords = 0;
  for (int64_t rank : resultRanks)
    resultWords += 3 + 2 * rank;
  std::vector<int64_t> results(resultWords, 0);
  std::vector<Descriptor> descriptors;
  descriptors.reserve(args.size());
  for (HostTensor &arg : args)
    descriptors.emplace_back(arg.getData(), arg.getShape());
  std::vector<void *> pointers = {results.data()};
  for (Descriptor &d : descriptors)
    pointers.push_back(d.words.data());
  std::vector<void *> packed;
  for (void *&p : pointers)
    packed.push_back(&p);
  if (llvm::Error error =
          engine->invokePacked("_mlir_ciface_" + name, packed)) {
    llvm::errs() << "error: " << llvm::toString(std::move(error)) << "\n";
    return failure();
  }
  // Copy each (possibly strided) result out, then free the buffers the
  // lowered code allocated with malloc: once each, and never an argument's
  // (a function may return one of its arguments).
  std::vector<HostTensor> outs;
  SmallPtrSet<void *, 4> freed;
  for (HostTensor &arg : args)
    freed.insert(arg.getData());
  const int64_t *res = results.data();
  for (auto [rank, kind] : llvm::zip(resultRanks, resultKinds)) {
    SmallVector<int64_t> shape(res + 3, res + 3 + rank);
    HostTensor out(kind, shape);
    HostTensor view(kind, {}); // scratch for element decoding
    auto *base = reinterpret_cast<uint8_t *>(res[1]);
    size_t elementBytes = bytesOf(kind);
    for (int64_t i = 0; i < out.getNumElements(); ++i) {
      int64_t offset = res[2], rem = i;
      for (int64_t d = rank - 1; d >= 0; --d) {
        offset += (rem % shape[d]) * res[3 + rank + d];
        rem /= shape[d];
      }
      std::memcpy(view.getData(), base + offset * elementBytes, elementBytes);
      out.set(i, view.get(0));
    }
    outs.push_back(std::move(out));
    res += 3 + 2 * rank;
  }
  res = results.data();
  for (int64_t rank : resultRanks) {
    auto *allocated = reinterpret_cast<void *>(res[0]);
    if (freed.insert(allocated).second)
      std::free(allocated);
    res += 3 + 2 * rank;
  }
  return outs;
}

Difference mlir::sc::compareTensors(const HostTensor &got,
                                    const HostTensor &want) {
  Difference diff;
  if (got.getShape() != want.getShape()) {
    diff.shapesMatch = false;
    return diff;
  }
  double errSq = 0, refSq = 0;
  for (int64_t i = 0; i < want.getNumElements(); ++i) {
    double g = got.get(i), w = want.get(i);
    if (!std::isfinite(g) || !std::isfinite(w))
      diff.allFinite = false;
    double e = std::fabs(g - w);
    diff.maxAbs = std::max(diff.maxAbs, e);
    errSq += e * e;
    refSq += w * w;
  }
  diff.referenceNorm = std::sqrt(refSq);
  diff.relativeFrobenius =
      refSq > 0 ? std::sqrt(errSq / refSq) : std::sqrt(errSq);
  return diff;
}
