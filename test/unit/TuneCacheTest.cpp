//===- TuneCacheTest.cpp - the tuning cache, without a GPU ----------------===//
//
// Shape buckets, the artifact's identity and the cache file: what a tuned
// dispatch choice is kept under, and that a later process reads it back
// only for the same GPU, driver and artifact.
//
//===----------------------------------------------------------------------===//

#include "TuneCache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace sparcast::rt;

namespace {

std::string tempPath(const char *name) {
  return std::string(::testing::TempDir()) + name + std::to_string(getpid());
}

TEST(TuneCache, BucketsRoundDimsUpToPowersOfTwo) {
  EXPECT_EQ(shapeBucket({{"B", 1000}, {"U", 16}}), "B=1024,U=16");
  EXPECT_EQ(shapeBucket({{"B", 1025}, {"U", 17}}), "B=2048,U=32");
  EXPECT_EQ(shapeBucket({{"L", 1}, {"Z", 0}}), "L=1,Z=1");
  EXPECT_EQ(shapeBucket({}), "");
  EXPECT_EQ(shapeBucket({{"B", 3}, {"SMS", 132}}, "SMS"), "B=4");
}

TEST(TuneCache, HashesContent) {
  // FNV-1a 64 of the empty string and of "a".
  EXPECT_EQ(contentHash(""), "cbf29ce484222325");
  EXPECT_EQ(contentHash("a"), "af63dc4c8601ec8c");
  EXPECT_NE(contentHash("manifest 1"), contentHash("manifest 2"));
}

TEST(TuneCache, KeepsChoicesPerScope) {
  TuneCache cache;
  TuneCache::Scope h200{"NVIDIA H200", 13000, "abc"};
  TuneCache::Scope h100{"NVIDIA H100", 13000, "abc"};
  TuneCache::Scope other{"NVIDIA H200", 13000, "def"};
  cache.insert(h200, "lce", 0, "B=1024,U=16", {1, {40.0, 30.0}});
  EXPECT_EQ(cache.lookup(h200, "lce", 0, "B=1024,U=16"), 1);
  EXPECT_FALSE(cache.lookup(h100, "lce", 0, "B=1024,U=16"));
  EXPECT_FALSE(cache.lookup(other, "lce", 0, "B=1024,U=16"));
  EXPECT_FALSE(cache.lookup(h200, "lce", 1, "B=1024,U=16"));
  EXPECT_FALSE(cache.lookup(h200, "lce", 0, "B=2048,U=16"));
}

TEST(TuneCache, RoundTripsThroughItsFile) {
  std::string path = tempPath("tune-cache");
  std::remove(path.c_str());
  TuneCache::Scope scope{"NVIDIA H200", 13000, "abc"};
  std::string error;
  {
    TuneCache empty;
    ASSERT_TRUE(empty.load(path, error)) << error; // no file yet
    EXPECT_EQ(empty.size(), 0u);
  }
  TuneCache cache;
  cache.insert(scope, "lce", 0, "B=1024,U=16", {1, {40.5, 30.25}});
  cache.insert({"NVIDIA H100", 12080, "abc"}, "lce", 0, "B=1024,U=16", {0, {}});
  ASSERT_TRUE(cache.save(path, error)) << error;
  TuneCache read;
  ASSERT_TRUE(read.load(path, error)) << error;
  EXPECT_EQ(read.size(), 2u);
  EXPECT_EQ(read.lookup(scope, "lce", 0, "B=1024,U=16"), 1);
  EXPECT_EQ(read.lookup({"NVIDIA H100", 12080, "abc"}, "lce", 0, "B=1024,U=16"), 0);
  // What a process has tuned itself wins over the file's.
  TuneCache mine;
  mine.insert(scope, "lce", 0, "B=1024,U=16", {0, {1.0, 2.0}});
  ASSERT_TRUE(mine.load(path, error)) << error;
  EXPECT_EQ(mine.lookup(scope, "lce", 0, "B=1024,U=16"), 0);
  std::remove(path.c_str());
}

TEST(TuneCache, RefusesOtherFiles) {
  std::string path = tempPath("tune-cache-bad");
  std::string error;
  for (const char *text :
       {"not json", "[]", "{\"format\": \"other\", \"choices\": []}",
        "{\"format\": \"sparcast-tune-cache-1\", \"choices\": [{\"gpu\": 1}]}",
        "{\"format\": \"sparcast-tune-cache-1\", \"choices\": [{\"gpu\": \"g\", "
        "\"driver\": 1, \"artifact\": \"a\", \"entry\": \"e\", \"group\": 0, "
        "\"bucket\": \"\", \"choice\": 99}]}"}) {
    {
      std::ofstream out(path, std::ios::trunc);
      out << text;
    }
    TuneCache cache;
    error.clear();
    EXPECT_FALSE(cache.load(path, error)) << text;
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_EQ(cache.size(), 0u);
  }
  std::remove(path.c_str());
}

} // namespace
