//===- CpuRunner.h - run tensor functions on the host CPU -------*- C++ -*-===//
//
// Runs one func.func of a module on the CPU through the reference lowering
// and MLIR's ExecutionEngine, on host tensors. This is how meaning-preserving
// rewrites are proven: the same random inputs go through the function before
// and after, and the results are compared.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_EXECUTIONENGINE_CPURUNNER_H
#define SPARCAST_EXECUTIONENGINE_CPURUNNER_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
}

namespace mlir::sc {

enum class ElementKind { f32, f16, bf16, i32, i8 };

/// A dense row-major tensor in host memory.
class HostTensor {
public:
  HostTensor(ElementKind kind, ArrayRef<int64_t> shape);

  ElementKind getKind() const { return kind; }
  ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getNumElements() const;
  void *getData() { return data.data(); }
  double get(int64_t i) const;
  /// Stores `v`, rounded to nearest-even for narrow floats.
  void set(int64_t i, double v);

private:
  ElementKind kind;
  SmallVector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// How to fill the arguments of a function from its types and lineage.
struct InputSpec {
  /// Rows of `#sc.lineage<request>` tensors (B_user).
  int64_t users = 3;
  /// Rows of `#sc.lineage<candidate>` and `index` tensors (B).
  int64_t candidates = 10;
  /// Size of every other dynamic dimension.
  int64_t otherDynamicSize = 7;
  /// Shuffle the candidate->request index instead of sorted runs.
  bool shuffleIndex = false;
  uint64_t seed = 1;
  /// Floats are drawn from [-floatScale, floatScale) (a whole model's
  /// activations saturate its sigmoid at 1).
  double floatScale = 1.0;
};

/// Random arguments for `func`: floats uniform in [-scale, scale); `index` tensors
/// give every user at least one candidate when there are enough candidates,
/// in runs of uneven lengths.
FailureOr<std::vector<HostTensor>> makeRandomInputs(func::FuncOp func,
                                                    const InputSpec &spec);

/// A function of a module lowered to LLVM and JIT-compiled.
class CpuFunction {
public:
  /// Lowers `module` in place with the CPU reference pipeline and compiles
  /// `name`, which must take and return ranked tensors.
  static FailureOr<std::unique_ptr<CpuFunction>> compile(ModuleOp module,
                                                         StringRef name);
  /// Calls the function: its results, in order.
  FailureOr<std::vector<HostTensor>> call(MutableArrayRef<HostTensor> args);

private:
  CpuFunction() = default;
  std::unique_ptr<ExecutionEngine> engine;
  std::string name;
  SmallVector<int64_t> argRanks;
  SmallVector<int64_t> resultRanks;
  SmallVector<ElementKind> resultKinds;
};

/// How far `got` is from `want`.
struct Difference {
  double maxAbs = 0;
  /// ||got - want||_F / ||want||_F (absolute when want is all zero).
  double relativeFrobenius = 0;
  /// ||want||_F: a zero reference would make any comparison vacuous.
  double referenceNorm = 0;
  bool allFinite = true;
  bool shapesMatch = true;
};
Difference compareTensors(const HostTensor &got, const HostTensor &want);

} // namespace mlir::sc

#endif // SPARCAST_EXECUTIONENGINE_CPURUNNER_H
