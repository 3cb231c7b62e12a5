//===- EntryCompiler.h - one entry function into kernels --------*- C++ -*-===//
//
// What sparcast-aot knows of an entry while compiling it (named tensors,
// views, launch conditions) and the compiler that turns its body into
// kernel launches. Internal to lib/Target/AOT.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_LIB_TARGET_AOT_ENTRYCOMPILER_H
#define SPARCAST_LIB_TARGET_AOT_ENTRYCOMPILER_H

#include "sparcast/Conversion/ScToGPU/GemmKernel.h"
#include "sparcast/Conversion/ScToGPU/SimilarityKernel.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Support/ManifestSchema.h"
#include "sparcast/Target/AOT.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::sc::aot {

namespace json = llvm::json;
using namespace sparcast::manifest;

/// A launch dim as the manifest writes it: an integer or "SYMBOL*F/D".
json::Value dimJson(const LaunchDim &d);

/// A tensor the runtime knows by name: an argument, a result or a
/// workspace buffer.
struct TensorInfo {
  std::string name;
  RankedTensorType type;
  std::vector<LaunchDim> shape;
  std::string indexInto;
  /// Result or workspace: zeroed by the runtime before each call's kernels.
  bool zeroInit = false;
  /// Argument only: dim 0 may be 0 (a hybrid-tiled weight without dense
  /// or without 2:4 tiles).
  bool mayBeEmpty = false;
  /// View only: the argument, result or workspace tensor whose buffer this
  /// one is under another shape of as many elements (a reshape).
  std::string viewOf = {};
};

/// A value that is a box of a named tensor, zero-padded: what chains of
/// tensor.extract_slice / tensor.pad denote until something needs them.
struct View {
  TensorInfo source;
  SmallVector<int64_t> offsets; // into the source
  SmallVector<int64_t> extent;  // of the source box, kDynamic = whole dim
  RankedTensorType type;        // of the value
};

/// A comparison of the call's dims: lhs >= rhs, or lhs < rhs.
struct DimComparison {
  LaunchDim lhs, rhs;
  bool atLeast = true;
  json::Object toJson() const {
    return json::Object{{key::kLhs, dimJson(lhs)},
                        {key::kCmp, atLeast ? ">=" : "<"},
                        {key::kRhs, dimJson(rhs)}};
  }
  std::string str() const {
    auto text = [](const LaunchDim &d) {
      json::Value v = dimJson(d);
      if (auto s = v.getAsString())
        return s->str();
      return std::to_string(*v.getAsInteger());
    };
    return text(lhs) + (atLeast ? " >= " : " < ") + text(rhs);
  }
};

/// A condition on the call's dims under which a launch runs (a GEMM
/// dispatched at run time, sc-dispatch-gemm-schedule): every comparison
/// holds, or with `unless`, not every one. The manifest's `when` (one
/// comparison as an object, several as a list) or `unless` (a list).
struct LaunchCondition {
  SmallVector<DimComparison> all;
  bool unless = false;
  /// The dispatch this is a branch of (its launches' `tune` group) and the
  /// branch's place in it, which the runtime may choose by measuring.
  int tuneGroup = -1, tuneChoice = -1;
  /// Whether the branch's launches run while the runtime has not measured
  /// (a dispatch's branches: by their conditions; tuning alternatives: the
  /// default only).
  bool tuneFallback = true;
  LaunchCondition negated() const {
    LaunchCondition n = *this;
    if (all.size() == 1)
      n.all[0].atLeast = !n.all[0].atLeast;
    else
      n.unless = !unless;
    return n;
  }
  StringRef key() const { return unless ? key::kUnless : key::kWhen; }
  json::Value toJson() const {
    if (all.size() == 1 && !unless)
      return all[0].toJson();
    json::Array list;
    for (const DimComparison &c : all)
      list.push_back(c.toJson());
    return list;
  }
  std::string str() const {
    std::string text;
    for (const DimComparison &c : all)
      text += (text.empty() ? "" : " and ") + c.str();
    return unless ? "not (" + text + ")" : text;
  }
};

/// A tensor's manifest object, and its shape as the C header documents it.
json::Object tensorJson(const TensorInfo &t);
std::string shapeString(const TensorInfo &t);

/// Compiles one entry function into kernels of `gpuModule`.
class EntryCompiler {
public:
  EntryCompiler(func::FuncOp func, gpu::GPUModuleOp gpuModule,
                const AotOptions &options, raw_ostream *report)
      : func(func), gpuModule(gpuModule), options(options), report(report) {}

  LogicalResult compile();

  /// Once compiled: the entry's manifest object (name, args, results,
  /// workspace, launches, views; takes the launches) and the C header's
  /// comment lines on its tensors.
  json::Object takeManifestEntry();
  std::string headerDoc() const;

  std::vector<TensorInfo> args, results, workspace, reshapes;
  /// Shapes of reshaped tensor.empty values (outputs' shapes only).
  DenseMap<Value, std::vector<LaunchDim>> emptyShapes;
  json::Array launches;

private:
  LogicalResult bindArguments();
  /// One op of the entry (or of a dispatch's branch).
  LogicalResult visit(Operation &op);
  /// Index values computed from the call's dims (tensor.dim, constants,
  /// products), and the conditions compared from them.
  LogicalResult visitDim(tensor::DimOp op);
  LogicalResult visitMul(arith::MulIOp op);
  LogicalResult visitCmp(arith::CmpIOp op);
  LogicalResult visitAnd(arith::AndIOp op);
  /// A dispatch: each branch's launches run under its condition.
  LogicalResult visitIf(scf::IfOp op);
  LogicalResult visitIndexSwitch(scf::IndexSwitchOp op);
  /// Compiles `block` (a dispatch's branch, a tuning alternative) with its
  /// launches under `when`; its yielded tensors become `results`.
  LogicalResult compileBranch(Block &block, LaunchCondition when,
                              ValueRange results);
  LogicalResult visitSlice(tensor::ExtractSliceOp op);
  /// tensor.concat past dim 0: each piece copied into its place.
  LogicalResult visitConcat(tensor::ConcatOp op);
  /// tensor.expand_shape / collapse_shape of a named tensor: the same
  /// buffer under the new shape.
  LogicalResult visitReshape(Operation *op, Value source,
                             ArrayRef<ReassociationIndices> groups);
  /// A tensor constant a kernel reads as an entry tensor: a kernel copying
  /// it from the kernels' module into a workspace.
  FailureOr<TensorInfo> materializeConstant(arith::ConstantOp op);
  LogicalResult visitPad(tensor::PadOp op);
  LogicalResult visitMatmul(BatchMatmulOp op);
  /// A GEMM whose rhs is a hybrid-tiled weight (y = x W^T).
  LogicalResult visitHybridMatmul(BatchMatmulOp op);
  /// sc.assemble_hybrid: binds the weight to its packed buffers.
  LogicalResult visitAssembleHybrid(AssembleHybridOp op);
  /// sc.assemble_csr: binds the rows to their buffers.
  LogicalResult visitAssembleCsr(AssembleCsrOp op);
  /// A split sc.sparse_matmul: the scatter and tile kernels.
  LogicalResult visitSparseMatmul(SparseMatmulOp op);
  /// A linalg.generic: a kernel of one thread per output element.
  LogicalResult visitGeneric(linalg::GenericOp op);
  LogicalResult visitGatherRows(GatherRowsOp op);
  /// The shape of `v` as the entry knows it (its dynamic dims' symbols).
  FailureOr<std::vector<LaunchDim>> shapeOf(Value v, Location loc);
  /// Binds `op`'s operands (materializing views the kernel cannot read) and
  /// its result.
  FailureOr<GemmBinding> bindMatmul(BatchMatmulOp op);
  GemmKernelOptions gemmOptions() const;
  LogicalResult visitAttention(AttentionOp op);
  /// The tensor `result` is written to: the caller's result when returned,
  /// else a new workspace tensor; with `zeroInit` the runtime zeroes it
  /// before each call (for kernels that accumulate into it).
  TensorInfo bindResult(Value result, std::vector<LaunchDim> shape,
                        bool zeroInit = false);
  /// The named tensor holding `v`: materializes views with a copy kernel.
  FailureOr<TensorInfo> materialize(Value v, Location loc);
  TensorInfo newWorkspace(RankedTensorType type, std::vector<LaunchDim> shape,
                          bool zeroInit = false);
  /// Split-K's workspaces: `partialWords` f32 partial sums and `arrivals`
  /// i32 counts, zeroed at each call.
  SplitKBinding newSplitKWorkspaces(LaunchDim partialWords, LaunchDim arrivals);
  std::string nextKernelName(StringRef what) {
    return llvm::formatv("{0}_{1}{2}", func.getSymName(), what, kernels++);
  }
  LogicalResult addLaunch(const KernelLaunch &launch, Location loc);

  func::FuncOp func;
  gpu::GPUModuleOp gpuModule;
  const AotOptions &options;
  raw_ostream *report;
  DenseMap<Value, TensorInfo> tensors;
  DenseMap<Value, View> views;
  /// Hybrid-tiled weights (sc.assemble_hybrid results): their buffers.
  DenseMap<Value, HybridWeightBinding> hybridWeights;
  /// Sparse rows (sc.assemble_csr results): their buffers.
  DenseMap<Value, CsrBinding> csrRows;
  /// Selections run inside the kernels of the product they consume.
  llvm::SmallPtrSet<Operation *, 2> fusedSelections;
  /// Element-wise generics a reduction's kernel applies (fusableConsumer):
  /// no kernel of their own.
  llvm::SmallPtrSet<Operation *, 4> fusedIntoReductions;
  DenseMap<Value, LaunchDim> dims;
  DenseMap<Value, LaunchCondition> conditions;
  /// The condition of the branch being compiled, if any.
  std::optional<LaunchCondition> condition;
  int kernels = 0;
  /// Dispatches compiled so far (each one `tune` group).
  int dispatches = 0;
};

} // namespace mlir::sc::aot

#endif // SPARCAST_LIB_TARGET_AOT_ENTRYCOMPILER_H
