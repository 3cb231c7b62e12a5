//===- TuneCache.cpp - tuned dispatch choices, persisted ------------------===//

#include "TuneCache.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace sparcast::rt;
using Json = nlohmann::json;

namespace {
/// The cache file's format tag.
constexpr const char *kFormat = "sparcast-tune-cache-1";
} // namespace

std::string sparcast::rt::shapeBucket(const DimBindings &dims,
                                      const std::string &except) {
  std::string out;
  for (const auto &[symbol, value] : dims) {
    if (symbol == except)
      continue;
    int64_t rounded = 1;
    while (rounded < value && rounded < (int64_t(1) << 62))
      rounded <<= 1;
    out += (out.empty() ? "" : ",") + symbol + "=" + std::to_string(rounded);
  }
  return out;
}

std::string sparcast::rt::contentHash(const std::string &bytes) {
  uint64_t h = 14695981039346656037ull; // FNV-1a 64
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::optional<int> TuneCache::lookup(const Scope &scope,
                                     const std::string &entry, int group,
                                     const std::string &bucket) const {
  auto it = choices.find(
      Key{scope.gpu, scope.driver, scope.artifact, entry, group, bucket});
  if (it == choices.end())
    return std::nullopt;
  return it->second.choice;
}

void TuneCache::insert(const Scope &scope, const std::string &entry, int group,
                       const std::string &bucket, Choice choice) {
  choices[Key{scope.gpu, scope.driver, scope.artifact, entry, group, bucket}] =
      std::move(choice);
}

bool TuneCache::load(const std::string &path, std::string &error) {
  std::ifstream in(path);
  if (!in)
    return true; // nothing tuned yet
  Json doc = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string &why) {
    error = "tuning cache " + path + ": " + why;
    return false;
  };
  if (doc.is_discarded() || !doc.is_object())
    return bad("not JSON");
  auto format = doc.find("format");
  auto list = doc.find("choices");
  if (format == doc.end() || *format != kFormat || list == doc.end() ||
      !list->is_array())
    return bad(std::string("not a cache of format ") + kFormat);
  std::map<Key, Choice> read;
  for (const Json &c : *list) {
    auto field = [&](const char *name) -> const Json * {
      auto it = c.find(name);
      return it == c.end() ? nullptr : &*it;
    };
    const Json *gpu = field("gpu"), *driver = field("driver"),
               *artifact = field("artifact"), *entry = field("entry"),
               *group = field("group"), *bucket = field("bucket"),
               *choice = field("choice"), *times = field("times_us");
    if (!c.is_object() || !gpu || !gpu->is_string() || !driver ||
        !driver->is_number_integer() || !artifact || !artifact->is_string() ||
        !entry || !entry->is_string() || !group ||
        !group->is_number_integer() || !bucket || !bucket->is_string() ||
        !choice || !choice->is_number_integer() || *choice < 0 ||
        *choice > 15 || (times && !times->is_array()))
      return bad("a choice without gpu, driver, artifact, entry, group, "
                 "bucket and a choice in [0, 15]");
    Choice value;
    value.choice = choice->get<int>();
    if (times)
      for (const Json &t : *times) {
        if (!t.is_number())
          return bad("times_us of other than numbers");
        value.timesUs.push_back(t.get<double>());
      }
    read[Key{gpu->get<std::string>(), driver->get<int>(),
             artifact->get<std::string>(), entry->get<std::string>(),
             group->get<int>(), bucket->get<std::string>()}] = value;
  }
  // What this process tuned wins over what the file says.
  for (auto &[key, value] : read)
    choices.emplace(key, value);
  return true;
}

bool TuneCache::save(const std::string &path, std::string &error) const {
  Json list = Json::array();
  for (const auto &[key, value] : choices) {
    const auto &[gpu, driver, artifact, entry, group, bucket] = key;
    list.push_back({{"gpu", gpu},
                    {"driver", driver},
                    {"artifact", artifact},
                    {"entry", entry},
                    {"group", group},
                    {"bucket", bucket},
                    {"choice", value.choice},
                    {"times_us", value.timesUs}});
  }
  Json doc = {{"format", kFormat}, {"choices", list}};
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << doc.dump(1) << "\n";
    if (!out) {
      error = "cannot write the tuning cache " + tmp;
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    error = "cannot replace the tuning cache " + path;
    return false;
  }
  return true;
}
