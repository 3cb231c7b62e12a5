//===- RuntimeTest.cpp - manifest reading and argument checks -------------===//
//
// Everything the runtime decides before touching CUDA: manifest parsing and
// the checks each call goes through. Runs without a GPU; scRun itself must
// answer SC_ERROR_UNSUPPORTED with a message where no driver exists.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Support/LogLinearPattern.h"
#include "Manifest.h"
#include "sparcast/runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <cmath>
#include <vector>
#include <string>

#include <unistd.h>

using namespace sparcast::rt;

namespace {

// One entry: out[B, 4, 16] = w[4, 8] @ e[B, 8, 16] (+ user[idx[b]]).
constexpr const char *kManifest = R"json({
  "format": "sparcast-artifact-2",
  "modules": [{"name": "k", "ptx": "k.ptx", "cubin": "k.sm_90a.cubin", "chip": "sm_90a"}],
  "entries": [{
    "name": "gemm",
    "args": [
      {"name": "w", "dtype": "f16", "shape": [4, 8]},
      {"name": "e", "dtype": "f16", "shape": ["B", 8, 16]},
      {"name": "user", "dtype": "f32", "shape": ["U", 4, 16]},
      {"name": "idx", "dtype": "i32", "shape": ["B"], "index_into": "U"}
    ],
    "results": [{"name": "out", "dtype": "f16", "shape": ["B", 4, 16]}],
    "workspace": [{"name": "ws0", "dtype": "f16", "shape": [4, 13]},
                  {"name": "ws1", "dtype": "f32", "shape": ["U", 4, 16]},
                  {"name": "ws2", "dtype": "i32", "shape": ["U"], "zero_init": true}],
    "launches": [{
      "module": "k", "kernel": "gemm0", "grid": ["B/2+U/2", 1, "B"], "block": [128, 1, 1],
      "smem": 66560, "at_most": [["U", "B"]],
      "params": [
        {"kind": "tma", "tensor": "w", "dims": [8, 4], "strides": [16], "box": [64, 128], "swizzle": 128, "offset": 32},
        {"kind": "tma", "tensor": "e", "dims": [16, 8, "B"], "strides": [32, 256], "box": [64, 64, 1], "swizzle": 128},
        {"kind": "memref", "tensor": "out"},
        {"kind": "memref", "tensor": "user"},
        {"kind": "memref", "tensor": "idx"},
        {"kind": "dim", "dim": "B*4"},
        {"kind": "dim", "dim": "B*3/64"},
        {"kind": "log_linear_tables", "query_len": "B", "key_len": 16, "block": 128,
         "local_width": 1, "anchors": 5, "causal": 1}
      ]
    }]
  }]
})json";

scTensor tensor(uintptr_t address, scDType dtype, std::initializer_list<int64_t> shape) {
  scTensor t{};
  t.data = reinterpret_cast<void *>(address);
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  int i = 0;
  for (int64_t s : shape)
    t.shape[i++] = s;
  return t;
}

class ValidateTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(parseManifest(kManifest, manifest, error)) << error;
    args[0] = tensor(0x1000, SC_F16, {4, 8});
    args[1] = tensor(0x2000, SC_F16, {6, 8, 16});
    args[2] = tensor(0x3000, SC_F32, {3, 4, 16});
    args[3] = tensor(0x4000, SC_I32, {6});
    results[0] = tensor(0x5000, SC_F16, {6, 4, 16});
  }
  bool validate(std::string &error) {
    DimBindings dims;
    return validateCall(*manifest.findEntry("gemm"), args, 4, results, 1, dims,
                        error);
  }
  Manifest manifest;
  scTensor args[4];
  scTensor results[1];
};

/// kManifest with `from` replaced by `to` must be refused with `message`.
struct ManifestEdit {
  std::string from, to, message;
};

void expectRejected(const ManifestEdit &edit) {
  std::string text = kManifest;
  size_t at = text.find(edit.from);
  ASSERT_NE(at, std::string::npos) << edit.from;
  text.replace(at, edit.from.size(), edit.to);
  Manifest m;
  std::string error;
  EXPECT_FALSE(parseManifest(text, m, error)) << edit.to;
  EXPECT_NE(error.find(edit.message), std::string::npos)
      << "expected '" << edit.message << "', got '" << error << "'";
}

/// What the JSON layer (nlohmann-json) refuses before the manifest model is
/// read: each case a status-free failure with a message, never a crash.
TEST(Manifest, RejectsMalformedJson) {
  struct Case {
    std::string text, message;
  };
  std::string deep = std::string(200, '[') + std::string(200, ']');
  std::string deepInside = std::string(kManifest);
  deepInside.insert(deepInside.rfind('}'), ", \"x\": " + deep);
  std::string repeated = std::string(kManifest);
  repeated.insert(repeated.find('{') + 1, "\"format\": \"sparcast-artifact-2\", ");
  const Case cases[] = {
      {"", "unexpected end of input"},
      {"{\"format\": ", "unexpected end of input"},
      {std::string(kManifest).substr(0, 100), "(offset 10"},
      {std::string(kManifest) + " x", "offset"},
      {"{\"a\": [1, 2,]}", "offset"},
      {"{\"a\": \"\\u12G4\"}", "offset"},
      {deep, "nesting deeper than 64"},
      {deepInside, "nesting deeper than 64"},
      {repeated, "key \"format\" repeated"},
      {"[1, 2]", "expected an object"},
      {"{\"format\": 2}", "manifest.format: expected a string"},
  };
  for (const Case &c : cases) {
    Manifest m;
    std::string error;
    EXPECT_FALSE(parseManifest(c.text, m, error)) << c.text.substr(0, 80);
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "expected '" << c.message << "', got '" << error << "'";
    EXPECT_EQ(error.rfind("manifest", 0), 0u) << error;
  }
}

/// Values of the wrong type, or integers out of int64's range, name the
/// path of the bad value.
TEST(Manifest, RejectsWronglyTypedValues) {
  const ManifestEdit cases[] = {
      {"\"smem\": 66560", "\"smem\": \"1024\"", ".smem: expected an integer"},
      {"\"smem\": 66560", "\"smem\": 99999999999999999999",
       ".smem: expected an integer"},
      {"\"smem\": 66560", "\"smem\": 18446744073709551615",
       "integer out of range"},
      {"\"smem\": 66560", "\"smem\": 1.5", ".smem: expected an integer"},
      {"\"modules\": [", "\"modules\": {\"a\": 1}, \"x\": [",
       "modules: expected an array"},
      {"\"block\": [128, 1, 1]", "\"block\": {}", "expected 3 sizes"},
      {"\"name\": \"gemm\"", "\"name\": null", "expected a string"},
  };
  for (const ManifestEdit &c : cases)
    expectRejected(c);
}

TEST(Manifest, ReadsEntriesLaunchesAndDims) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kManifest, m, error)) << error;
  const EntrySpec *e = m.findEntry("gemm");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->launches.size(), 1u);
  const LaunchSpec &l = e->launches[0];
  EXPECT_EQ(l.grid[2].symbol, "B");
  // A sum of terms (candidate pairs plus one per request at most).
  ASSERT_EQ(l.grid[0].plus.size(), 1u);
  EXPECT_EQ(l.grid[0].str(), "B/2+U/2");
  EXPECT_EQ(l.grid[0].evaluate({{"B", 7}, {"U", 3}}), 6);
  EXPECT_EQ(l.grid[0].evaluate({{"B", 7}}), -1);
  EXPECT_EQ(l.sharedBytes, 66560);
  ASSERT_EQ(l.params.size(), 8u);
  EXPECT_EQ(l.params[0].offsetBytes, 32);
  EXPECT_EQ(l.params[1].kind, ParamSpec::Kind::Tma);
  EXPECT_EQ(l.params[1].offsetBytes, 0);
  EXPECT_EQ(l.params[1].dims[2].symbol, "B");
  EXPECT_EQ(l.params[5].dim.factor, 4);
  // ceil(3 B / 64): tiles over a dynamic length.
  EXPECT_EQ(l.params[6].dim.divisor, 64);
  EXPECT_EQ(l.params[6].dim.evaluate({{"B", 100}}), 5);
  EXPECT_EQ(l.params[6].dim.evaluate({{"B", 128}}), 6);
  EXPECT_EQ(l.params[6].dim.str(), "B*3/64");
  // Mask tables the runtime builds per call.
  EXPECT_EQ(l.params[7].kind, ParamSpec::Kind::LogLinearTables);
  EXPECT_EQ(l.params[7].queryLen.symbol, "B");
  EXPECT_EQ(l.params[7].keyLen.constant, 16);
  EXPECT_EQ(l.params[7].maskBlock, 128);
  EXPECT_EQ(l.params[7].anchors, 5);
  EXPECT_EQ(l.params[7].causal, 1);
  EXPECT_EQ(e->args[3].indexInto, "U");
  // Flags the runtime zeroes before each call's kernels.
  ASSERT_EQ(e->workspace.size(), 3u);
  EXPECT_FALSE(e->workspace[1].zeroInit);
  EXPECT_TRUE(e->workspace[2].zeroInit);
}

TEST(Manifest, RejectsBrokenManifests) {
  const ManifestEdit cases[] = {
      {"sparcast-artifact-2", "sparcast-artifact-1", "unsupported format"},
      {"\"module\": \"k\"", "\"module\": \"missing\"", "unknown module"},
      {"\"grid\": [\"B/2+U/2\", 1, \"B\"]", "\"grid\": [1, 1, \"Q\"]", "no argument shape binds"},
      {"\"B/2+U/2\"", "\"B/2+Q\"", "no argument shape binds"},
      {"\"B/2+U/2\"", "\"B/2+\"", "or a sum of such terms"},
      {"\"B/2+U/2\"", "\"+U\"", "or a sum of such terms"},
      {"\"tensor\": \"user\"", "\"tensor\": \"nobody\"", "unknown tensor"},
      {"\"dtype\": \"f32\"", "\"dtype\": \"f64\"", "unknown dtype"},
      {"\"box\": [64, 128]", "\"box\": [64]", "as many box sizes"},
      {"\"B*4\"", "\"B*x\"", "SYMBOL*FACTOR"},
      {"\"B*3/64\"", "\"B*3/0\"", "SYMBOL[*FACTOR]/DIVISOR"},
      {"\"B*3/64\"", "\"/64\"", "SYMBOL[*FACTOR]/DIVISOR"},
      {"\"block\": 128,", "\"block\": 0,", "needs block > 0"},
      {"\"query_len\": \"B\"", "\"query_len\": \"Q\"", "no argument shape binds"},
      {"\"anchors\": 5,", "", "missing integer \"anchors\""},
      {"[[\"U\", \"B\"]]", "[[\"U\", \"Z\"]]", "at_most uses dim \"Z\""},
      {"[[\"U\", \"B\"]]", "[\"U\"]", "expected an array of [symbol, symbol]"},
      {"\"ws1\", \"dtype\": \"f32\", \"shape\": [\"U\"", "\"ws1\", \"dtype\": \"f32\", \"shape\": [\"V\"",
       "workspace ws1 uses dim \"V\""},
      {"\"zero_init\": true", "\"zero_init\": 1", "zero_init: expected true or false"},
      {"\"ptx\": \"k.ptx\"", "\"ptx\": \"../k.ptx\"", "not a plain file name"},
      {"\"ptx\": \"k.ptx\"", "\"ptx\": \"/etc/passwd\"", "not a plain file name"},
      {"\"cubin\": \"k.sm_90a.cubin\"", "\"cubin\": \"..\"", "not a plain file name"},
      {"\"smem\": 66560", "\"smem\": -1", "expected 0 to 232448 bytes"},
      {"\"block\": [128, 1, 1]", "\"block\": [0, 1, 1]", "sizes must lie in [1, 1024]"},
      {"\"block\": [128, 1, 1]", "\"block\": [1024, 2, 1]", "more than 1024 threads"},
      {"\"box\": [64, 128]", "\"box\": [64, -128]", "box sizes must lie in [1, 256]"},
      {"\"swizzle\": 128", "\"swizzle\": 7", "expected 0, 32, 64 or 128"},
      {"\"offset\": 32", "\"offset\": 8", "a non-negative multiple of 16"},
      {"\"offset\": 32", "\"offset\": -16", "a non-negative multiple of 16"},
      {"[[\"U\", \"B\"]]", "[[\"\", \"B\"]]", "expected an array of [symbol, symbol]"},
  };
  for (const ManifestEdit &c : cases)
    expectRejected(c);
}

/// A tensor map's reach: a [4 x 8] f16 slice at byte 32 of rows of 16
/// bytes ends at byte 32 + 3 * 16 + 7 * 2 + 2 = 96; a 3-D map at its
/// tensor's end exactly.
TEST(Manifest, TensorMapReach) {
  EXPECT_EQ(tensorMapEnd(32, {8, 4}, {16}, 2), 96u);
  EXPECT_EQ(tensorMapEnd(0, {16, 8, 5}, {32, 256}, 2), 5u * 256u);
  EXPECT_EQ(tensorMapEnd(0, {1}, {}, 4), 4u);
}

/// Truncations and byte flips of a valid manifest never crash the reader:
/// they parse or they fail with a message.
TEST(Manifest, SurvivesCorruptedInput) {
  std::string text = kManifest;
  uint64_t state = 42;
  auto next = [&]() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(state >> 33);
  };
  for (int round = 0; round < 2000; ++round) {
    std::string corrupted = text;
    if (round % 3 == 0) {
      corrupted.resize(next() % text.size());
    } else {
      static const char kBytes[] = "{}[],:\"0123456789-abcBU*. \\";
      for (int flips = 1 + round % 4; flips > 0; --flips)
        corrupted[next() % corrupted.size()] =
            kBytes[next() % (sizeof(kBytes) - 1)];
    }
    Manifest m;
    std::string error;
    if (!parseManifest(corrupted, m, error)) {
      EXPECT_FALSE(error.empty()) << corrupted;
    }
  }
}

TEST_F(ValidateTest, AcceptsAConsistentCallAndBindsDims) {
  DimBindings dims;
  std::string error;
  ASSERT_TRUE(validateCall(*manifest.findEntry("gemm"), args, 4, results, 1,
                           dims, error))
      << error;
  EXPECT_EQ(dims["B"], 6);
  EXPECT_EQ(dims["U"], 3);
}

TEST_F(ValidateTest, LaysOutTheWorkspaceFromTheDims) {
  DimBindings dims = {{"B", 6}, {"U", 3}};
  WorkspaceLayout layout = layoutWorkspace(*manifest.findEntry("gemm"), dims);
  ASSERT_EQ(layout.offsets.size(), 3u);
  EXPECT_EQ(layout.offsets[0], 0u);
  // ws0 is 4 * 13 * 2 = 104 bytes; ws1 starts at the next 256-byte boundary,
  // ws2 (3 * 4 bytes) after ws1's 768 bytes.
  EXPECT_EQ(layout.offsets[1], 256u);
  EXPECT_EQ(layout.offsets[2], 256u + 768u);
  EXPECT_EQ(layout.bytes, 256u + 768u + 3 * 4);
}

TEST_F(ValidateTest, RejectsMoreUsersThanTheLaunchAllows) {
  // The launch needs U <= B (at_most); 7 users for 6 candidates is refused.
  args[2] = tensor(0x3000, SC_F32, {7, 4, 16});
  std::string error;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("kernel gemm0 needs U <= B, got U = 7 and B = 6"),
            std::string::npos)
      << error;
}

/// `manifest` (kManifest by default) with the launch's condition given as
/// `key: json` ("when" with one comparison or a list, or "unless" with a
/// list).
std::string withConditions(const std::string &key, const std::string &json,
                           std::string manifest = kManifest) {
  std::string at = "\"at_most\": [[\"U\", \"B\"]],";
  manifest.replace(manifest.find(at), at.size(),
                   at + " \"" + key + "\": " + json + ",");
  return manifest;
}

/// The manifest with the launch run only when `lhs cmp rhs` (a kernel of a
/// GEMM dispatched on the dims).
std::string withCondition(const std::string &lhs, const std::string &cmp,
                          const std::string &rhs) {
  return withConditions("when", "{\"lhs\": " + lhs + ", \"cmp\": \"" + cmp +
                                    "\", \"rhs\": " + rhs + "}");
}

TEST(Manifest, ReadsLaunchConditions) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(withCondition("\"B\"", ">=", "\"U*4\""), m, error))
      << error;
  const LaunchSpec &l = m.findEntry("gemm")->launches[0];
  ASSERT_EQ(l.when.size(), 1u);
  EXPECT_TRUE(l.when[0].atLeast);
  EXPECT_FALSE(l.unless);
  EXPECT_TRUE(l.runsWith({{"B", 12}, {"U", 3}}));
  EXPECT_FALSE(l.runsWith({{"B", 11}, {"U", 3}}));
  ASSERT_TRUE(parseManifest(withCondition("\"B\"", "<", "\"U*4\""), m, error))
      << error;
  EXPECT_FALSE(m.findEntry("gemm")->launches[0].runsWith({{"B", 12}, {"U", 3}}));
  EXPECT_TRUE(m.findEntry("gemm")->launches[0].runsWith({{"B", 11}, {"U", 3}}));
  // Without a condition a launch always runs.
  ASSERT_TRUE(parseManifest(kManifest, m, error)) << error;
  EXPECT_TRUE(m.findEntry("gemm")->launches[0].runsWith({}));
}

TEST(Manifest, ReadsTuneGroups) {
  // A dispatch's alternative: group 3, choice 1.
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(withConditions("tune", "{\"group\": 3, \"choice\": 1}"),
                            m, error))
      << error;
  const LaunchSpec &l = m.findEntry("gemm")->launches[0];
  EXPECT_EQ(l.tuneGroup, 3);
  EXPECT_EQ(l.tuneChoice, 1);
  EXPECT_TRUE(l.tuneFallback);
  // A tuning alternative that is not the default: never run untuned.
  ASSERT_TRUE(parseManifest(withConditions("tune", "{\"group\": 0, \"choice\": 2, "
                                                   "\"fallback\": false}"),
                            m, error))
      << error;
  EXPECT_FALSE(m.findEntry("gemm")->launches[0].tuneFallback);
  EXPECT_FALSE(parseManifest(withConditions("tune", "{\"group\": 0, \"choice\": 2, "
                                                    "\"fallback\": 1}"),
                             m, error));
  // Without one, no group.
  ASSERT_TRUE(parseManifest(kManifest, m, error)) << error;
  EXPECT_EQ(m.findEntry("gemm")->launches[0].tuneGroup, -1);
  for (const char *bad : {"{\"group\": 3}", "{\"group\": -1, \"choice\": 0}",
                          "{\"group\": 0, \"choice\": 16}", "7",
                          "{\"group\": \"a\", \"choice\": 0}"}) {
    EXPECT_FALSE(parseManifest(withConditions("tune", bad), m, error)) << bad;
    EXPECT_NE(error.find("tune"), std::string::npos) << error;
  }
}

TEST(Runtime, SetTuningChecksItsArguments) {
  EXPECT_EQ(scSetTuning(nullptr, 0, nullptr), SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("scSetTuning"), std::string::npos);
}

TEST(Manifest, ReadsConjunctionsOfLaunchConditions) {
  // B >= 4 U and B >= 2048: the dispatched kernel and its complement.
  const std::string both =
      "[{\"lhs\": \"B\", \"cmp\": \">=\", \"rhs\": \"U*4\"}, "
      "{\"lhs\": \"B\", \"cmp\": \">=\", \"rhs\": 2048}]";
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(withConditions("when", both), m, error)) << error;
  const LaunchSpec &l = m.findEntry("gemm")->launches[0];
  ASSERT_EQ(l.when.size(), 2u);
  EXPECT_TRUE(l.runsWith({{"B", 2048}, {"U", 3}}));
  EXPECT_FALSE(l.runsWith({{"B", 1024}, {"U", 3}}));   // too few candidates
  EXPECT_FALSE(l.runsWith({{"B", 2048}, {"U", 600}})); // too few per user
  ASSERT_TRUE(parseManifest(withConditions("unless", both), m, error)) << error;
  const LaunchSpec &u = m.findEntry("gemm")->launches[0];
  EXPECT_TRUE(u.unless);
  EXPECT_FALSE(u.runsWith({{"B", 2048}, {"U", 3}}));
  EXPECT_TRUE(u.runsWith({{"B", 1024}, {"U", 3}}));
  EXPECT_TRUE(u.runsWith({{"B", 2048}, {"U", 600}}));
}

TEST(Manifest, RejectsBrokenConjunctions) {
  struct Case {
    std::string key, json, message;
  };
  const std::string one = "{\"lhs\": \"B\", \"cmp\": \">=\", \"rhs\": 4}";
  const Case cases[] = {
      {"when", "[]", "expected at least one comparison"},
      {"unless", one, "launches[0].unless: expected a list of comparisons"},
      {"when", "[" + one + ", {\"lhs\": \"B\"}]", "when[1]: expected {\"lhs\": dim"},
      {"unless", "[" + one + ", {\"lhs\": \"Q\", \"cmp\": \"<\", \"rhs\": 1}]",
       "when uses dim \"Q\""},
  };
  for (const Case &c : cases) {
    Manifest m;
    std::string error;
    EXPECT_FALSE(parseManifest(withConditions(c.key, c.json), m, error));
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "expected '" << c.message << "', got '" << error << "'";
  }
  // Not both.
  Manifest m;
  std::string error;
  EXPECT_FALSE(parseManifest(
      withConditions("unless", "[" + one + "]", withConditions("when", one)), m,
      error));
  EXPECT_NE(error.find("\"when\" or \"unless\", not both"), std::string::npos)
      << error;
}

TEST(Manifest, RejectsBrokenLaunchConditions) {
  struct Case {
    std::string lhs, cmp, rhs, message;
  };
  const Case cases[] = {
      {"\"B\"", "==", "\"U*4\"", "expected \">=\" or \"<\", got \"==\""},
      {"\"B\"", ">=", "\"Q*4\"", "when uses dim \"Q\""},
      {"\"B\"", ">=", "[]", "expected {\"lhs\": dim"},
  };
  for (const Case &c : cases) {
    Manifest m;
    std::string error;
    EXPECT_FALSE(parseManifest(withCondition(c.lhs, c.cmp, c.rhs), m, error));
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "expected '" << c.message << "', got '" << error << "'";
  }
}

TEST_F(ValidateTest, ChecksOnlyTheLaunchesThatRun) {
  // 7 users for 6 candidates break the launch's U <= B, which is checked
  // only when the launch runs: here when B >= 4 U, which does not hold.
  std::string error;
  ASSERT_TRUE(parseManifest(withCondition("\"B\"", ">=", "\"U*4\""), manifest,
                            error))
      << error;
  args[2] = tensor(0x3000, SC_F32, {7, 4, 16});
  EXPECT_TRUE(validate(error)) << error;
  ASSERT_TRUE(parseManifest(withCondition("\"B\"", "<", "\"U*4\""), manifest,
                            error))
      << error;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("kernel gemm0 needs U <= B"), std::string::npos) << error;
}

TEST_F(ValidateTest, ChecksOnlyTheLaunchesThatRunUnlessListed) {
  // The launch runs unless B >= 4 U and B >= 2: with 7 users for 6
  // candidates the first does not hold, so it runs and its U <= B fails;
  // with 1 user both hold and it does not run.
  const std::string both =
      "[{\"lhs\": \"B\", \"cmp\": \">=\", \"rhs\": \"U*4\"}, "
      "{\"lhs\": \"B\", \"cmp\": \">=\", \"rhs\": 2}]";
  std::string error;
  ASSERT_TRUE(parseManifest(withConditions("unless", both), manifest, error))
      << error;
  args[2] = tensor(0x3000, SC_F32, {7, 4, 16});
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("kernel gemm0 needs U <= B"), std::string::npos) << error;
  args[2] = tensor(0x3000, SC_F32, {1, 4, 16});
  EXPECT_TRUE(validate(error)) << error;
}

TEST_F(ValidateTest, RejectsWrongDtype) {
  args[0].dtype = SC_F32;
  std::string error;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("argument 'w': expected dtype f16, got f32"),
            std::string::npos)
      << error;
}

TEST(Manifest, RejectsRepeatedNames) {
  std::string text = kManifest;
  size_t modules = text.find("\"modules\": [") + 12;
  text.insert(modules, R"({"name": "k", "ptx": "other.ptx"}, )");
  Manifest m;
  std::string error;
  EXPECT_FALSE(parseManifest(text, m, error));
  EXPECT_NE(error.find("module \"k\" named twice"), std::string::npos) << error;

  // The one entry twice.
  text = kManifest;
  size_t entries = text.find("\"entries\": [") + 12;
  size_t end = text.rfind(']');
  std::string entry = text.substr(entries, end - entries);
  text.insert(end, ", " + entry);
  EXPECT_FALSE(parseManifest(text, m, error));
  EXPECT_NE(error.find("entry \"gemm\" named twice"), std::string::npos)
      << error;
}

// Views: another shape of a tensor's buffer (a reshape), read by name.
TEST(Manifest, ReadsViewsAndRefusesBrokenOnes) {
  std::string text = kManifest;
  std::string workspace = R"("workspace": [)";
  size_t at = text.find(workspace);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, R"("views": [{"name": "e2", "dtype": "f16", "shape": ["B", 128], "of": "e"}], )");
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(text, m, error)) << error;
  const TensorSpec *view = m.findEntry("gemm")->findTensor("e2");
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->viewOf, "e");
  EXPECT_EQ(view->shape.size(), 2u);
  auto rejected = [&](const std::string &from, const std::string &to,
                      const std::string &message) {
    std::string broken = text;
    size_t where = broken.find(from);
    ASSERT_NE(where, std::string::npos) << from;
    broken.replace(where, from.size(), to);
    Manifest bad;
    std::string why;
    EXPECT_FALSE(parseManifest(broken, bad, why)) << to;
    EXPECT_NE(why.find(message), std::string::npos)
        << "expected '" << message << "', got '" << why << "'";
  };
  rejected(R"("of": "e")", R"("of": "nothing")", "view e2 is not of an argument");
  rejected(R"("dtype": "f16", "shape": ["B", 128], "of": "e")",
           R"("dtype": "f32", "shape": ["B", 128], "of": "e")", "of its dtype");
  rejected(R"(, "of": "e")", "", "a view names its tensor");
  rejected(R"("name": "e2")", R"("name": "w")", "tensor \"w\" named twice");
  rejected(R"({"name": "ws0", "dtype": "f16", "shape": [4, 13]})",
           R"({"name": "ws0", "dtype": "f16", "shape": [4, 13], "of": "e"})",
           "only views name a tensor");
}

/// A caller's dtype field may hold any integer; it is refused by value.
TEST_F(ValidateTest, RejectsUnknownDtypeValues) {
  int32_t bogus = 77;
  std::memcpy(&args[0].dtype, &bogus, sizeof(bogus));
  std::string error;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("an unknown dtype (77)"), std::string::npos) << error;
}

/// Dims whose sizes overflow 64 bits are refused, not wrapped.
TEST_F(ValidateTest, RejectsSizesThatOverflow) {
  int64_t huge = int64_t(1) << 60;
  args[1].shape[0] = huge;
  args[3].shape[0] = huge;
  results[0].shape[0] = huge;
  std::string error;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("overflows"), std::string::npos) << error;
}

TEST_F(ValidateTest, RejectsWrongStaticDim) {
  args[1].shape[1] = 9;
  std::string error;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("argument 'e' dim 1: expected 8, got 9"),
            std::string::npos)
      << error;
}

TEST(Manifest, RefusesSumsAsTensorDims) {
  // Sums are for grids: a tensor's dim binds one symbol.
  std::string text = kManifest;
  std::string from = "\"shape\": [\"B\", 4, 16]";
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(), "\"shape\": [\"B+U\", 4, 16]");
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(text, m, error)) << error;
  scTensor args[4] = {tensor(0x1000, SC_F16, {4, 8}),
                      tensor(0x2000, SC_F16, {6, 8, 16}),
                      tensor(0x3000, SC_F32, {3, 4, 16}),
                      tensor(0x4000, SC_I32, {6})};
  scTensor results[1] = {tensor(0x5000, SC_F16, {9, 4, 16})};
  DimBindings dims;
  EXPECT_FALSE(validateCall(*m.findEntry("gemm"), args, 4, results, 1, dims,
                            error));
  EXPECT_NE(error.find("a tensor dim cannot be B+U"), std::string::npos)
      << error;
}

TEST_F(ValidateTest, RejectsInconsistentDynamicDims) {
  results[0].shape[0] = 5;
  std::string error;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("B = 5 but an earlier tensor has B = 6"),
            std::string::npos)
      << error;
}

TEST_F(ValidateTest, RejectsWrongRankNullAndMisalignedPointers) {
  std::string error;
  args[3].rank = 2;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("expected rank 1, got 2"), std::string::npos) << error;
  args[3].rank = 1;
  args[2].data = nullptr;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("null data pointer"), std::string::npos) << error;
  args[2].data = reinterpret_cast<void *>(0x3002);
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("16-byte aligned"), std::string::npos) << error;
}

// A tensor whose manifest entry says so (a count of hybrid tiles of one
// kind) may have no rows, and then no data; others may not.
TEST_F(ValidateTest, AcceptsAnEmptyDimZeroWhereTheManifestAllowsIt) {
  std::string error;
  args[2] = tensor(0, SC_F32, {0, 4, 16});
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("expected a positive size, got 0"), std::string::npos)
      << error;
  std::string text = kManifest;
  std::string user = R"("name": "user", "dtype": "f32", "shape": ["U", 4, 16])";
  size_t at = text.find(user);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + user.size(), R"(, "may_be_empty": true)");
  ASSERT_TRUE(parseManifest(text, manifest, error)) << error;
  EXPECT_TRUE(validate(error)) << error;
  // Only its dim 0.
  args[2] = tensor(0x3000, SC_F32, {3, 0, 16});
  EXPECT_FALSE(validate(error));
  expectRejected({R"("shape": ["U", 4, 16]})", R"("shape": ["U", 4, 16], "may_be_empty": 1})",
                  "expected true or false"});
}

TEST_F(ValidateTest, RejectsNonPositiveSizesAndOversizedGrids) {
  std::string error;
  args[1].shape[0] = 0;
  args[3].shape[0] = 0;
  results[0].shape[0] = 0;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("expected a positive size, got 0"), std::string::npos)
      << error;
  args[1].shape[0] = args[3].shape[0] = results[0].shape[0] = 70000;
  EXPECT_FALSE(validate(error));
  EXPECT_NE(error.find("grid dim 2 = 70000, outside [1, 65535]"),
            std::string::npos)
      << error;
}

TEST_F(ValidateTest, RejectsWrongTensorCount) {
  DimBindings dims;
  std::string error;
  EXPECT_FALSE(validateCall(*manifest.findEntry("gemm"), args, 3, results, 1,
                            dims, error));
  EXPECT_NE(error.find("expected 4 arguments and 1 results, got 3 and 1"),
            std::string::npos)
      << error;
}

/// The runtime's tables for dynamic lengths are the compiler's for static
/// ones (one shared definition), including partial last blocks.
TEST(RuntimeLogLinear, TablesMatchTheDefinition) {
  for (int64_t length : {1, 100, 128, 1000, 4096, 16384}) {
    for (bool causal : {false, true}) {
      int64_t count = 0;
      std::vector<int32_t> offsets(length / 64 + 2);
      ASSERT_EQ(scLogLinearTables(length, length, 64, 1, 7, causal,
                                  offsets.data(), nullptr, 0, &count),
                SC_OK)
          << scGetLastError();
      std::vector<int32_t> indices(count);
      ASSERT_EQ(scLogLinearTables(length, length, 64, 1, 7, causal,
                                  offsets.data(), indices.data(), count,
                                  &count),
                SC_OK);
      int64_t blocks = (length + 63) / 64;
      sparcast::LogLinearParams p;
      p.causal = causal;
      for (int64_t q = 0; q < blocks; ++q) {
        std::vector<int64_t> want = sparcast::logLinearKeptBlocks(q, blocks, p);
        std::vector<int64_t> got(indices.begin() + offsets[q],
                                 indices.begin() + offsets[q + 1]);
        ASSERT_EQ(got, want) << "length " << length << " q " << q;
      }
    }
  }
}

TEST(RuntimeLogLinear, RejectsBadParameters) {
  int32_t offsets[8];
  int32_t indices[4];
  int64_t count = 0;
  EXPECT_EQ(scLogLinearTables(256, 256, 100, 1, 7, 0, offsets, nullptr, 0,
                              &count),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("power of two"),
            std::string::npos);
  EXPECT_EQ(scLogLinearTables(256, 256, 64, 1, 7, 0, offsets, indices, 4,
                              &count),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("capacity"), std::string::npos);
  // Query block 1 is past the only key block, with nothing to keep.
  EXPECT_EQ(scLogLinearTables(128, 64, 64, 0, 0, 0, offsets, nullptr, 0,
                              &count),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("keeps no key block"),
            std::string::npos);
  // Lengths past 2^24 blocks are refused; a huge local width is clipped to
  // the key blocks (it used to loop over every distance).
  EXPECT_EQ(scLogLinearTables(int64_t(1) << 40, 256, 64, 1, 7, 0, offsets,
                              nullptr, 0, &count),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("at most 2^24 blocks"),
            std::string::npos);
  EXPECT_EQ(scLogLinearTables(256, 256, 64, INT64_MAX, 0, 0, offsets, nullptr,
                              0, &count),
            SC_OK)
      << scGetLastError();
  EXPECT_EQ(count, 16); // 4 query blocks keep all 4 key blocks
}

/// The C API end to end on a temporary artifact directory.
TEST(RuntimeCApi, LoadsValidatesAndReportsMissingDriver) {
  char dir[] = "/tmp/sparcast-rt-test-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  std::string path = std::string(dir) + "/manifest.json";
  {
    std::ofstream out(path);
    out << kManifest;
  }
  scModule *m = nullptr;
  // The kernel files it names are checked at load.
  EXPECT_EQ(scModuleLoad(dir, &m), SC_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(scGetLastError()).find("k.ptx"), std::string::npos)
      << scGetLastError();
  std::string ptx = std::string(dir) + "/k.ptx";
  std::string cubin = std::string(dir) + "/k.sm_90a.cubin";
  ASSERT_EQ(symlink("/etc/hostname", ptx.c_str()), 0);
  std::ofstream(cubin) << "cubin";
  EXPECT_EQ(scModuleLoad(dir, &m), SC_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(scGetLastError()).find("resolves outside the artifact folder"),
            std::string::npos)
      << scGetLastError();
  std::remove(ptx.c_str());
  std::ofstream(ptx) << "ptx";
  ASSERT_EQ(scModuleLoad(dir, &m), SC_OK) << scGetLastError();
  ASSERT_EQ(scModuleNumEntries(m), 1);
  EXPECT_STREQ(scModuleEntryName(m, 0), "gemm");
  EXPECT_EQ(scModuleEntryName(m, 1), nullptr);

  scTensor args[4] = {tensor(0x1000, SC_F16, {4, 8}),
                      tensor(0x2000, SC_F16, {2, 8, 16}),
                      tensor(0x3000, SC_F32, {1, 4, 16}),
                      tensor(0x4000, SC_I32, {2})};
  scTensor results[1] = {tensor(0x5000, SC_F16, {2, 4, 16})};
  EXPECT_EQ(scValidate(m, "gemm", args, 4, results, 1), SC_OK)
      << scGetLastError();
  // The result's shape from the arguments alone: out[B, 4, 16] with B = 2.
  int32_t rank = 0;
  int64_t shape[SC_MAX_RANK] = {};
  ASSERT_EQ(scResultShape(m, "gemm", args, 4, 0, &rank, shape), SC_OK)
      << scGetLastError();
  EXPECT_EQ(rank, 3);
  EXPECT_EQ(std::vector<int64_t>(shape, shape + 3),
            (std::vector<int64_t>{2, 4, 16}));
  EXPECT_EQ(scResultShape(m, "gemm", args, 4, 1, &rank, shape),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("has no result #1"),
            std::string::npos);
  EXPECT_EQ(scResultShape(m, "gemm", args, 3, 0, &rank, shape),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("expected 4 arguments, got 3"),
            std::string::npos);
  uint64_t bytes = 0;
  ASSERT_EQ(scWorkspaceBytes(m, "gemm", args, 4, results, 1, &bytes), SC_OK);
  EXPECT_EQ(bytes, 256u + 1 * 4 * 16 * 4 + 1 * 4); // ws0, ws1, ws2
  // A caller's workspace that is too small is refused before anything runs.
  EXPECT_EQ(scRunWithWorkspace(m, "gemm", args, 4, results, 1,
                               reinterpret_cast<void *>(0x10000), bytes - 1,
                               nullptr, 0),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("needs a workspace of"),
            std::string::npos);
  EXPECT_EQ(scRunWithWorkspace(m, "gemm", args, 4, results, 1,
                               reinterpret_cast<void *>(0x10010), bytes,
                               nullptr, 0),
            SC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scGetLastError()).find("256-byte aligned"),
            std::string::npos);
  EXPECT_EQ(scValidate(m, "nope", args, 4, results, 1), SC_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(scGetLastError()).find("no entry named 'nope'"),
            std::string::npos);
  results[0].shape[2] = 17;
  EXPECT_EQ(scRun(m, "gemm", args, 4, results, 1, nullptr, 0),
            SC_ERROR_INVALID_ARGUMENT);
  results[0].shape[2] = 16;
  // No GPU here: bad arguments were caught above without one, a good call
  // says that the driver is missing (or, on a GPU machine, that these
  // made-up pointers are not device memory).
  scStatus status = scRun(m, "gemm", args, 4, results, 1, nullptr, 0);
  EXPECT_TRUE(status == SC_ERROR_UNSUPPORTED ||
              status == SC_ERROR_INVALID_ARGUMENT)
      << scGetLastError();
  EXPECT_STRNE(scGetLastError(), "");
  scModuleDestroy(m);

  EXPECT_EQ(scModuleLoad("/nonexistent-dir", &m), SC_ERROR_NOT_FOUND);
  EXPECT_EQ(m, nullptr);

  // A manifest must be a regular file under the size cap.
  std::remove(path.c_str());
  ASSERT_EQ(symlink("/dev/zero", path.c_str()), 0);
  EXPECT_EQ(scModuleLoad(dir, &m), SC_ERROR_NOT_FOUND);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(std::string(scGetLastError()).find("resolves outside the artifact folder"),
            std::string::npos)
      << scGetLastError();
  std::remove(path.c_str());
  ASSERT_EQ(truncate(path.c_str(), 0), -1); // (gone)
  {
    std::ofstream out(path);
  }
  ASSERT_EQ(truncate(path.c_str(), int64_t(17) << 20), 0);
  EXPECT_EQ(scModuleLoad(dir, &m), SC_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(scGetLastError()).find("larger than 16 MiB"),
            std::string::npos)
      << scGetLastError();
  std::remove(path.c_str());
  // A bad manifest is a status and a message with the file's path.
  {
    std::ofstream out(path);
    out << std::string(kManifest).substr(0, 200);
  }
  EXPECT_EQ(scModuleLoad(dir, &m), SC_ERROR_MANIFEST);
  EXPECT_NE(std::string(scGetLastError()).find(path + ": manifest.json: "),
            std::string::npos)
      << scGetLastError();
  std::remove(path.c_str());
  std::remove(ptx.c_str());
  std::remove(cubin.c_str());
  rmdir(dir);
}

/// A module with kManifest's entry named `names[i]` for each i (enough for
/// the checks made before anything runs), loaded from a fresh folder.
struct NamedEntries {
  char dir[32] = "/tmp/sparcast-rt-test-XXXXXX";
  scModule *module = nullptr;
  explicit NamedEntries(std::initializer_list<const char *> names) {
    if (!mkdtemp(dir))
      return;
    std::string text = kManifest;
    size_t begin = text.find("{\n    \"name\": \"gemm\"");
    size_t end = text.rfind("}]"); // the last entry's closing brace
    std::string entry = text.substr(begin, end + 1 - begin), entries;
    for (const char *name : names) {
      std::string e = entry;
      e.replace(e.find("\"gemm\""), 6, std::string("\"") + name + "\"");
      entries += (entries.empty() ? "" : ", ") + e;
    }
    text = text.substr(0, begin) + entries + text.substr(end + 1);
    std::ofstream(std::string(dir) + "/manifest.json") << text;
    std::ofstream(std::string(dir) + "/k.ptx") << "ptx";
    std::ofstream(std::string(dir) + "/k.sm_90a.cubin") << "cubin";
    if (scModuleLoad(dir, &module) != SC_OK)
      ADD_FAILURE() << scGetLastError();
  }
  ~NamedEntries() {
    scModuleDestroy(module);
    for (const char *f : {"/manifest.json", "/k.ptx", "/k.sm_90a.cubin"})
      std::remove((std::string(dir) + f).c_str());
    rmdir(dir);
  }
};

/// scSimilarity checks the whole job before it touches the GPU; without a
/// driver a good job says so.
TEST(RuntimeCApi, SimilarityRefusesBadJobsBeforeTheGpu) {
  std::function<scModule *()> similarityModule;
  // Two queries and three items over D = 2048, one item empty.
  std::vector<int64_t> qPtr = {0, 2, 3}, qIds = {1, 1500, 7},
                       iPtr = {0, 1, 1, 3}, iIds = {1, 7, 1500};
  std::vector<float> qValues = {1, 2, 3}, iValues = {4, 5, 6};
  scCsrRows queries = {2, 2048, qPtr.data(), qIds.data(), qValues.data()};
  scCsrRows items = {3, 2048, iPtr.data(), iIds.data(), iValues.data()};
  std::vector<float> top(2 * 2);
  std::vector<int64_t> ids(2 * 2);
  scSimilarityJob job{};
  job.k = 2;
  auto refused = [&](const char *message) {
    scStatus s = scSimilarity(similarityModule(), &queries, &items, &job,
                              top.data(), ids.data(), nullptr);
    EXPECT_EQ(s, SC_ERROR_INVALID_ARGUMENT) << message;
    EXPECT_NE(std::string(scGetLastError()).find(message), std::string::npos)
        << "expected '" << message << "', got '" << scGetLastError() << "'";
  };
  NamedEntries both({"cosine", "cosine_candidates"});
  similarityModule = [&] { return both.module; };
  ASSERT_TRUE(both.module);
  EXPECT_EQ(scSimilarity(nullptr, &queries, &items, &job, top.data(),
                         ids.data(), nullptr),
            SC_ERROR_INVALID_ARGUMENT);
  {
    NamedEntries one({"cosine"});
    similarityModule = [&] { return one.module; };
    refused("the artifact has no entry 'cosine_candidates'");
    similarityModule = [&] { return both.module; };
  }
  // The rows: sorted ids inside D, the same D on both sides.
  qIds = {1500, 1, 7};
  refused("queries: ");
  qIds = {1, 1500, 7};
  iIds[2] = 2048;
  refused("items: ");
  iIds[2] = 1500;
  items.dim = 4096;
  refused("queries over D = 2048, items over D = 4096");
  items.dim = 2048;
  queries.rows = 0;
  refused("queries: no rows");
  queries.rows = 2;
  // The job.
  job.k = 4;
  refused("k must be in [1, min(1024, items)] or 0, got 4");
  job.k = -1;
  refused("k must be");
  job.k = 2;
  EXPECT_EQ(scSimilarity(both.module, &queries, &items, &job, nullptr,
                         ids.data(), nullptr),
            SC_ERROR_INVALID_ARGUMENT);
  job.chunkItems = 100;
  refused("chunkItems must be a multiple of 128 or 0, got 100");
  job.chunkItems = 0;
  job.maxHead = 300;
  refused("maxHead must be in [1, 256] or 0, got 300");
  job.maxHead = 0;
  job.k = 0;
  refused("neither k, a threshold nor onScores");
  job.hasThreshold = 1;
  refused("a threshold without onPairs");
  job.onPairs = [](void *, int64_t, const int64_t *, const int64_t *,
                   const float *) {};
  job.threshold = std::nanf("");
  refused("a NaN threshold");
  job.threshold = 0.5f;
  // A good job: no GPU here (or, on a GPU machine, a module whose kernels
  // are not real): a status and a message, nothing written.
  top.assign(4, 7.0f);
  job.k = 2;
  scStatus s = scSimilarity(both.module, &queries, &items, &job, top.data(),
                            ids.data(), nullptr);
  EXPECT_NE(s, SC_OK);
  EXPECT_STRNE(scGetLastError(), "");
  EXPECT_EQ(top, std::vector<float>(4, 7.0f));
}

} // namespace
