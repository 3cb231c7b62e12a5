//===- ManifestFuzzer.cpp - libFuzzer target: manifest reader + checks ----===//
//
// Any bytes as manifest.json: the reader either refuses them with a
// message or yields a manifest whose every entry is then validated against
// tensors shaped from its own argument specs (dims bound to small sizes
// and to sizes near the overflow limits), and its workspace laid out. None
// of it may crash, hang, throw or overflow (built with ASan + UBSan).
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

using namespace sparcast::rt;

namespace {
/// A tensor matching `spec` with every symbolic dim `size` (16-byte aligned
/// fake address: nothing is dereferenced).
scTensor tensorFor(const TensorSpec &spec, int64_t size) {
  scTensor t{};
  t.data = reinterpret_cast<void *>(uintptr_t(1) << 20);
  t.dtype = spec.dtype;
  t.rank = static_cast<int32_t>(spec.shape.size());
  for (int32_t d = 0; d < t.rank && d < SC_MAX_RANK; ++d) {
    const DimExpr &dim = spec.shape[d];
    int64_t value = dim.constant;
    if (dim.isSymbolic() && __builtin_mul_overflow(size, dim.factor, &value))
      value = INT64_MAX;
    t.shape[d] = value;
  }
  return t;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Manifest manifest;
  std::string error;
  if (!parseManifest(text, manifest, error)) {
    if (error.empty())
      __builtin_trap(); // every refusal has a message
    return 0;
  }
  for (const EntrySpec &entry : manifest.entries) {
    if (entry.args.size() > 64 || entry.results.size() > 64)
      continue;
    for (int64_t dimSize : {int64_t(1), int64_t(7), int64_t(1) << 40}) {
      std::vector<scTensor> args, results;
      for (const TensorSpec &spec : entry.args)
        args.push_back(tensorFor(spec, dimSize));
      for (const TensorSpec &spec : entry.results)
        results.push_back(tensorFor(spec, dimSize));
      DimBindings dims;
      if (validateCall(entry, args.data(), static_cast<int32_t>(args.size()),
                       results.data(), static_cast<int32_t>(results.size()),
                       dims, error))
        (void)layoutWorkspace(entry, dims);
      else if (error.empty())
        __builtin_trap();
    }
  }
  return 0;
}
