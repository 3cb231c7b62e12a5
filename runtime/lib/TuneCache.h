//===- TuneCache.h - tuned dispatch choices, persisted -----------*- C++ -*-===//
//
// Which alternative of a dispatch (the launches of one `tune` group of an
// entry) ran fastest for a shape bucket, measured on one GPU with one
// driver for one artifact, and kept in a JSON file that later processes
// read. No CUDA here: tested on machines without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_RUNTIME_TUNECACHE_H
#define SPARCAST_RUNTIME_TUNECACHE_H

#include "Manifest.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace sparcast::rt {

/// The bucket of a call's dims (but `except`): each rounded up to a power
/// of two ("B=1024,U=16"), so that nearby sizes share a tuning.
std::string shapeBucket(const DimBindings &dims, const std::string &except = "");

/// FNV-1a of `bytes` as 16 hex digits (the artifact's identity: its
/// manifest's text).
std::string contentHash(const std::string &bytes);

class TuneCache {
public:
  /// What a cached choice is valid for: the GPU's name, the driver's
  /// version and the artifact.
  struct Scope {
    std::string gpu;
    int driver = 0;
    std::string artifact;
    bool operator==(const Scope &o) const {
      return gpu == o.gpu && driver == o.driver && artifact == o.artifact;
    }
  };
  struct Choice {
    int choice = 0;
    /// Each alternative's median time, microseconds.
    std::vector<double> timesUs;
  };

  /// The choice of `group` of `entry` for `bucket` in `scope`, if tuned.
  std::optional<int> lookup(const Scope &scope, const std::string &entry,
                            int group, const std::string &bucket) const;
  void insert(const Scope &scope, const std::string &entry, int group,
              const std::string &bucket, Choice choice);
  /// Merges the file at `path` (a missing file is an empty cache); false
  /// with `error` when it is not a cache this runtime wrote.
  bool load(const std::string &path, std::string &error);
  /// Writes every choice to `path` (through a temporary file renamed over
  /// it, so that a reader never sees half a file).
  bool save(const std::string &path, std::string &error) const;
  size_t size() const { return choices.size(); }

private:
  using Key = std::tuple<std::string, int, std::string, std::string, int,
                         std::string>; // gpu, driver, artifact, entry, group, bucket
  std::map<Key, Choice> choices;
};

} // namespace sparcast::rt

#endif // SPARCAST_RUNTIME_TUNECACHE_H
