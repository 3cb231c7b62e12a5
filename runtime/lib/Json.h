//===- Json.h - a small JSON reader for manifests ---------------*- C++ -*-===//
//
// The runtime is built on machines without LLVM (the GPU machine has only
// CUDA), so it cannot use llvm::json; this reader covers what manifest.json
// uses: objects, arrays, strings (no \u escapes beyond ASCII), integers,
// numbers, booleans and null.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_RUNTIME_JSON_H
#define SPARCAST_RUNTIME_JSON_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sparcast::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  bool isInteger = false;
  int64_t integer = 0;
  std::string string;
  std::vector<Value> array;
  std::map<std::string, Value> object;

  const Value *get(const std::string &key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
  }
};

/// Parses `text`. On failure returns false and sets `error` (with offset).
bool parse(const std::string &text, Value &out, std::string &error);

} // namespace sparcast::json

#endif // SPARCAST_RUNTIME_JSON_H
