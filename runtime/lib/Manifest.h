//===- Manifest.h - artifact manifest model and argument checks -*- C++ -*-===//
//
// What sparcast-aot writes into manifest.json, and the checks every call
// goes through before anything is launched. No CUDA here: this part is
// tested on machines without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_RUNTIME_MANIFEST_H
#define SPARCAST_RUNTIME_MANIFEST_H

#include "sparcast/runtime.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparcast::rt {

using DimBindings = std::map<std::string, int64_t>;

/// A size known at compile time (`constant`) or ceil(`factor * symbol /
/// divisor`), e.g. the batch "B", the rows of a flattened batch "B*433", or
/// the 64-row tiles of a dynamic length "L/64".
struct DimExpr {
  std::string symbol;
  int64_t factor = 1;
  int64_t divisor = 1;
  int64_t constant = 0;
  /// Further terms added to this one ("B/2+U/2"; grids only).
  std::vector<DimExpr> plus;
  bool isSymbolic() const { return !symbol.empty(); }
  /// The value for `dims`; -1 when a symbol is unbound or it overflows.
  int64_t evaluate(const DimBindings &dims) const;
  std::string str() const;
};

struct TensorSpec {
  std::string name;
  scDType dtype = SC_F32;
  std::vector<DimExpr> shape;
  /// For index tensors: the symbol its values must stay below ("U").
  std::string indexInto;
  /// Workspace only: zeroed on the stream before the entry's first launch
  /// (e.g. the readiness flags of a multi-stage kernel).
  bool zeroInit = false;
  /// Arguments only: dim 0 may be 0 (a count of tiles of one kind).
  bool mayBeEmpty = false;
  /// Views only: the argument, result or workspace tensor whose buffer
  /// this one reads under its own shape (as many elements: a reshape).
  std::string viewOf;
};

struct ParamSpec {
  enum class Kind { Tma, Memref, Dim, LogLinearTables } kind = Kind::Memref;
  std::string tensor; // Tma, Memref
  // Tma: global dims innermost first, byte strides of dims 1.., box, swizzle.
  std::vector<DimExpr> dims;
  std::vector<DimExpr> stridesBytes;
  std::vector<int64_t> box;
  int64_t swizzleBytes = 0;
  // Tma: where the map starts in the tensor, in bytes (a multiple of 16).
  int64_t offsetBytes = 0;
  DimExpr dim; // Dim: an index-typed kernel parameter
  // LogLinearTables: BSR tables of #sc.log_linear for lengths known at
  // launch, built by the runtime (scLogLinearTables) and passed as a 1-D
  // i32 memref: offsets, then kept key blocks.
  DimExpr queryLen, keyLen;
  int64_t maskBlock = 0, localWidth = 0, anchors = 0, causal = 0;
};

struct LaunchSpec {
  std::string module;
  std::string kernel;
  DimExpr grid[3];
  int64_t block[3] = {1, 1, 1};
  int64_t sharedBytes = 0;
  std::vector<ParamSpec> params;
  /// Dims the launch needs ordered: {a, b} means a <= b (e.g. users <=
  /// candidates when a grid column per candidate also serves one user).
  std::vector<std::pair<std::string, std::string>> atMost;
  /// Launched only when every comparison of `when` holds for the call's
  /// dims (lhs >= rhs, or lhs < rhs), or with `unless`, when not every one
  /// does: one of the kernels of a GEMM dispatched on them.
  struct Condition {
    DimExpr lhs, rhs;
    bool atLeast = true;
    bool holds(const DimBindings &dims) const;
  };
  std::vector<Condition> when;
  bool unless = false;
  /// One alternative of a dispatch (`tune`): the launches of choice
  /// `tuneChoice` of group `tuneGroup` run together instead of those of
  /// the group's other choices. Which, the conditions say, unless the
  /// module tunes or its tuning cache has the call's shape bucket
  /// (scSetTuning).
  int tuneGroup = -1, tuneChoice = -1;
  /// Whether it runs (its conditions holding) while the module has not
  /// measured the call's bucket: a dispatch's branches, and a tuning
  /// group's default alternative.
  bool tuneFallback = true;
  bool runsWith(const DimBindings &dims) const {
    if (when.empty())
      return true;
    bool all = true;
    for (const Condition &c : when)
      all = all && c.holds(dims);
    return all != unless;
  }
};

struct EntrySpec {
  std::string name;
  std::vector<TensorSpec> args;
  std::vector<TensorSpec> results;
  /// Intermediates between kernels, placed in the workspace.
  std::vector<TensorSpec> workspace;
  /// Other shapes of those tensors' buffers (reshapes).
  std::vector<TensorSpec> views;
  std::vector<LaunchSpec> launches;
  /// The spec of tensor `name` (argument, result, workspace or view), or
  /// nullptr.
  const TensorSpec *findTensor(const std::string &name) const;
};

struct ModuleSpec {
  std::string name;
  std::string ptxFile;
  std::string cubinFile; // may be empty
  std::string chip;      // what the cubin was built for, e.g. "sm_90a"
};

struct Manifest {
  std::vector<ModuleSpec> modules;
  std::vector<EntrySpec> entries;
  const EntrySpec *findEntry(const std::string &name) const;
  const ModuleSpec *findModule(const std::string &name) const;
};

/// Parses and checks manifest.json text (every name a launch refers to
/// exists, every symbol is bound by some argument shape).
bool parseManifest(const std::string &text, Manifest &out, std::string &error);

size_t dtypeBytes(scDType dtype);

/// Where the last element a tensor map addresses ends, in bytes from the
/// tensor's start: the map's offset, then (dim - 1) strides along each dim
/// (`strides`: of dims 1..), then one element. The map stays inside a
/// tensor of at least that many bytes.
uint64_t tensorMapEnd(int64_t offsetBytes, const std::vector<uint64_t> &dims,
                      const std::vector<uint64_t> &strides,
                      uint64_t elementBytes);

/// Where each workspace tensor lives (byte offsets, 256-byte aligned) and
/// how many bytes the workspace needs, for these dims.
struct WorkspaceLayout {
  std::vector<size_t> offsets;
  uint64_t bytes = 0;
  /// The dims make some size overflow 64 bits (validateCall refuses them).
  bool overflow = false;
};

/// The bytes of a dense tensor of `shape`; false when that overflows 64 bits
/// (or a size is negative).
bool tensorBytes(scDType dtype, const int64_t *shape, int32_t rank,
                 uint64_t &bytes);
WorkspaceLayout layoutWorkspace(const EntrySpec &entry, const DimBindings &dims);
const char *dtypeName(scDType dtype);

/// Checks the caller's arguments against `entry` and binds the dynamic dims
/// their shapes give.
bool bindArguments(const EntrySpec &entry, const scTensor *args,
                   int32_t numArgs, DimBindings &dims, std::string &error);

/// The shape of result #`index` for the dims the arguments bound.
bool resultShape(const EntrySpec &entry, const DimBindings &dims,
                 int32_t index, std::vector<int64_t> &shape,
                 std::string &error);

/// Checks the caller's tensors against `entry` and binds the dynamic dims.
bool validateCall(const EntrySpec &entry, const scTensor *args,
                  int32_t numArgs, const scTensor *results, int32_t numResults,
                  DimBindings &dims, std::string &error);

} // namespace sparcast::rt

#endif // SPARCAST_RUNTIME_MANIFEST_H
