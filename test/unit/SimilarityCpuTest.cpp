//===- SimilarityCpuTest.cpp - the CPU meaning of sparse cosine similarity ===//
//
// sc.assemble_csr, sc.sparse_matmul with the cosine epilogue and sc.top_k
// through their reference lowering, on rows packed by scCsrPack's code
// (BlockCsr.h) with Zipf-like ids (floor(D u^3): a few columns in most
// rows), empty rows included: the cosines equal an fp64 brute force within
// 1e-6 and the top k are the k largest of each row, ties to the lower item.
//
//===----------------------------------------------------------------------===//

#include "sparcast/ExecutionEngine/CpuRunner.h"
#include "sparcast/InitAll.h"
#include "sparcast/Support/BlockCsr.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

using namespace mlir;
using namespace mlir::sc;
namespace csr = sparcast::csr;

namespace {

constexpr int64_t kDim = 300, kTopK = 5;

/// Random rows of about `perRow` ids drawn as floor(D u^3), sorted and
/// unique; the rows listed in `empty` have none.
struct Rows {
  std::vector<int64_t> indptr{0}, indices;
  std::vector<float> values;
};
Rows makeRows(int64_t rows, int64_t perRow, std::set<int64_t> empty,
              std::mt19937 &rng) {
  std::uniform_real_distribution<double> u(0, 1), v(0.1, 2);
  Rows out;
  for (int64_t r = 0; r < rows; ++r) {
    std::set<int64_t> ids;
    if (!empty.count(r))
      for (int64_t j = 0; j < perRow; ++j)
        ids.insert(int64_t(kDim * std::pow(u(rng), 3)));
    for (int64_t id : ids) {
      out.indices.push_back(id);
      out.values.push_back(float(v(rng)));
    }
    out.indptr.push_back(int64_t(out.indices.size()));
  }
  return out;
}

/// The packed buffers as the function's four arguments for these rows.
void packInto(const Rows &rows, const csr::Shape &s, std::vector<HostTensor> &args) {
  int64_t nnz = int64_t(rows.indices.size());
  ASSERT_EQ(csr::checkCsr(s, rows.indptr.data(), rows.indices.data(),
                          rows.values.data(), nnz),
            "");
  size_t first = args.size();
  args.emplace_back(ElementKind::i32, ArrayRef<int64_t>{s.rows + 1});
  args.emplace_back(ElementKind::i32, ArrayRef<int64_t>{nnz});
  args.emplace_back(ElementKind::f32, ArrayRef<int64_t>{nnz});
  args.emplace_back(ElementKind::f32, ArrayRef<int64_t>{s.rows});
  HostTensor &ptr = args[first], &ids = args[first + 1], &vals = args[first + 2],
             &norms = args[first + 3];
  csr::pack(s, rows.indptr.data(), rows.indices.data(), rows.values.data(),
            static_cast<int32_t *>(ptr.getData()),
            static_cast<uint32_t *>(ids.getData()),
            static_cast<float *>(vals.getData()),
            static_cast<float *>(norms.getData()));
}

constexpr const char *kSimilarity = R"mlir(
#csr = #sc.block_csr<block_size = 64, id_bits = 22, offset_bits = 10>
func.func @f(%qp: tensor<{0}xi32>, %qi: tensor<?xi32>, %qv: tensor<?xf32>, %qn: tensor<{1}xf32>,
             %ip: tensor<{2}xi32>, %ii: tensor<?xi32>, %iv: tensor<?xf32>, %in: tensor<{3}xf32>)
    -> (tensor<{1}x{3}xf32>, tensor<{1}x{4}xf32>, tensor<{1}x{4}xi32>,
        tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %q = sc.assemble_csr %qp, %qi, %qv : tensor<{0}xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<{1}x{5}xf32, #csr>
  %i = sc.assemble_csr %ip, %ii, %iv : tensor<{2}xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<{3}x{5}xf32, #csr>
  %cos = sc.sparse_matmul %q, %i epilogue_ins(%qn, %in : tensor<{1}xf32>, tensor<{3}xf32>)
      : tensor<{1}x{5}xf32, #csr>, tensor<{3}x{5}xf32, #csr> -> tensor<{1}x{3}xf32> {{
  ^bb0(%dot: f32, %m: index, %n: index, %a: tensor<{1}xf32>, %b: tensor<{3}xf32>):
    %x = tensor.extract %a[%m] : tensor<{1}xf32>
    %y = tensor.extract %b[%n] : tensor<{3}xf32>
    %p = arith.mulf %x, %y : f32
    %zero = arith.constant 0.0 : f32
    %none = arith.cmpf oeq, %p, %zero : f32
    %c = arith.divf %dot, %p : f32
    %r = arith.select %none, %zero, %c : f32
    sc.yield %r : f32
  }
  %v, %ix = sc.top_k %cos {{k = {4} : i64} : tensor<{1}x{3}xf32> -> tensor<{1}x{4}xf32>, tensor<{1}x{4}xi32>
  %pr, %pc, %pv = sc.select_above %cos {{threshold = 0.2 : f32} : tensor<{1}x{3}xf32> -> tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
  return %cos, %v, %ix, %pr, %pc, %pv : tensor<{1}x{3}xf32>, tensor<{1}x{4}xf32>, tensor<{1}x{4}xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}
)mlir";

double brute(const Rows &a, int64_t r, const Rows &b, int64_t c) {
  std::map<int64_t, double> row;
  double na = 0, nb = 0, dot = 0;
  for (int64_t j = a.indptr[r]; j < a.indptr[r + 1]; ++j) {
    row[a.indices[j]] = a.values[j];
    na += double(a.values[j]) * a.values[j];
  }
  for (int64_t j = b.indptr[c]; j < b.indptr[c + 1]; ++j) {
    nb += double(b.values[j]) * b.values[j];
    auto it = row.find(b.indices[j]);
    if (it != row.end())
      dot += it->second * b.values[j];
  }
  return na * nb == 0 ? 0 : dot / std::sqrt(na * nb);
}

TEST(SimilarityCpuTest, CosineAndTopKOfPackedRows) {
  DialectRegistry registry;
  registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  std::mt19937 rng(11);
  const int64_t numQueries = 7, numItems = 12;
  Rows queries = makeRows(numQueries, 9, {3}, rng);
  Rows items = makeRows(numItems, 8, {0, 10}, rng);
  csr::Shape qs{numQueries, kDim, 64, 10}, is{numItems, kDim, 64, 10};
  std::vector<HostTensor> args;
  packInto(queries, qs, args);
  packInto(items, is, args);

  std::string text = llvm::formatv(kSimilarity, numQueries + 1, numQueries,
                                   numItems + 1, numItems, kTopK, kDim);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto compiled = CpuFunction::compile(*module, "f");
  ASSERT_TRUE(succeeded(compiled));
  FailureOr<std::vector<HostTensor>> outs = (*compiled)->call(args);
  ASSERT_TRUE(succeeded(outs));
  const HostTensor &cos = (*outs)[0], &top = (*outs)[1], &topIds = (*outs)[2];

  int64_t sharing = 0;
  for (int64_t q = 0; q < numQueries; ++q) {
    for (int64_t i = 0; i < numItems; ++i) {
      double want = brute(queries, q, items, i);
      sharing += want != 0;
      EXPECT_NEAR(cos.get(q * numItems + i), want, 1e-6) << q << ", " << i;
    }
    // The k largest of the row, ties to the lower item.
    std::vector<int64_t> order(numItems);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      double x = cos.get(q * numItems + a), y = cos.get(q * numItems + b);
      return x != y ? x > y : a < b;
    });
    for (int64_t t = 0; t < kTopK; ++t) {
      EXPECT_EQ(topIds.get(q * kTopK + t), double(order[t])) << q << ", " << t;
      EXPECT_EQ(top.get(q * kTopK + t), cos.get(q * numItems + order[t]));
    }
  }
  // The pairs above 0.2, row-major, from the same scores.
  const HostTensor &pairRows = (*outs)[3], &pairCols = (*outs)[4],
                   &pairValues = (*outs)[5];
  int64_t next = 0;
  for (int64_t q = 0; q < numQueries; ++q)
    for (int64_t i = 0; i < numItems; ++i) {
      double c = cos.get(q * numItems + i);
      if (!(c > 0.2f))
        continue;
      ASSERT_LT(next, pairRows.getNumElements());
      EXPECT_EQ(pairRows.get(next), q);
      EXPECT_EQ(pairCols.get(next), i);
      EXPECT_EQ(pairValues.get(next), c);
      ++next;
    }
  EXPECT_EQ(next, pairRows.getNumElements());
  EXPECT_GT(next, 0);
  EXPECT_LT(next, numQueries * numItems);
  // Not vacuous: most pairs of non-empty rows share a dimension; the empty
  // rows (query 3, items 0 and 10) share none.
  EXPECT_GT(sharing, (numQueries - 1) * (numItems - 2) / 2);
  for (int64_t i = 0; i < numItems; ++i)
    EXPECT_EQ(cos.get(3 * numItems + i), 0);
}

// Fewer items than k: the tail is -inf and -1; NaN ranks first. Above a
// threshold: strictly above, NaN never.
constexpr const char *kTopKShort = R"mlir(
func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x5xf32>, tensor<2x5xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %v, %i = sc.top_k %x {k = 5 : i64} : tensor<2x3xf32> -> tensor<2x5xf32>, tensor<2x5xi32>
  %r, %c, %s = sc.select_above %x {threshold = 0.5 : f32} : tensor<2x3xf32> -> tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
  return %v, %i, %r, %c, %s : tensor<2x5xf32>, tensor<2x5xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}
)mlir";

TEST(SimilarityCpuTest, TopKPadsShortRowsAndRanksNaNFirstThresholdSkipsNaN) {
  DialectRegistry registry;
  registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kTopKShort, &context);
  ASSERT_TRUE(module);
  auto compiled = CpuFunction::compile(*module, "f");
  ASSERT_TRUE(succeeded(compiled));
  std::vector<HostTensor> args;
  HostTensor &x = args.emplace_back(ElementKind::f32, ArrayRef<int64_t>{2, 3});
  double values[] = {0.5, 2, 0.5, -1, std::nan(""), 3};
  for (int64_t i = 0; i < 6; ++i)
    x.set(i, values[i]);
  FailureOr<std::vector<HostTensor>> outs = (*compiled)->call(args);
  ASSERT_TRUE(succeeded(outs));
  const HostTensor &v = (*outs)[0], &ids = (*outs)[1];
  double inf = std::numeric_limits<double>::infinity();
  std::vector<double> wantIds = {1, 0, 2, -1, -1, 1, 2, 0, -1, -1};
  std::vector<double> wantValues = {2, 0.5, 0.5, -inf, -inf, NAN, 3, -1, -inf, -inf};
  for (int64_t t = 0; t < 10; ++t) {
    EXPECT_EQ(ids.get(t), wantIds[t]) << t;
    if (std::isnan(wantValues[t]))
      EXPECT_TRUE(std::isnan(v.get(t))) << t;
    else
      EXPECT_EQ(v.get(t), wantValues[t]) << t;
  }
  const HostTensor &rows = (*outs)[2], &cols = (*outs)[3], &above = (*outs)[4];
  ASSERT_EQ(rows.getNumElements(), 2);
  EXPECT_EQ(rows.get(0), 0);
  EXPECT_EQ(cols.get(0), 1);
  EXPECT_EQ(above.get(0), 2);
  EXPECT_EQ(rows.get(1), 1);
  EXPECT_EQ(cols.get(1), 2);
  EXPECT_EQ(above.get(1), 3);
}

// The split form the GPU runs (heads dense, tails sparse, the items' tail
// by dimension), with the epilogue body {6}, and the same product without
// an epilogue.
constexpr const char *kSplit = R"mlir(
#csr = #sc.block_csr<block_size = 64, id_bits = 22, offset_bits = 10>
func.func @f(%qh: tensor<{0}x{2}xf32>, %ih: tensor<{1}x{2}xf32>,
             %qp: tensor<{3}xi32>, %qi: tensor<?xi32>, %qv: tensor<?xf32>, %qn: tensor<{0}xf32>,
             %dp: tensor<{4}xi32>, %di: tensor<?xi32>, %dv: tensor<?xf32>, %in: tensor<{1}xf32>)
    -> (tensor<{0}x{1}xf32>, tensor<{0}x{1}xf32>) {
  %q = sc.assemble_csr %qp, %qi, %qv : tensor<{3}xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<{0}x{5}xf32, #csr>
  %d = sc.assemble_csr %dp, %di, %dv : tensor<{4}xi32>, tensor<?xi32>, tensor<?xf32> -> tensor<{5}x{1}xf32, #csr>
  %out = sc.sparse_matmul %q, %d head(%qh, %ih : tensor<{0}x{2}xf32>, tensor<{1}x{2}xf32>)
      epilogue_ins(%qn, %in : tensor<{0}xf32>, tensor<{1}xf32>) {{transpose_rhs}
      : tensor<{0}x{5}xf32, #csr>, tensor<{5}x{1}xf32, #csr> -> tensor<{0}x{1}xf32> {{
  ^bb0(%dot: f32, %m: index, %n: index, %a: tensor<{0}xf32>, %b: tensor<{1}xf32>):
    %x = tensor.extract %a[%m] : tensor<{0}xf32>
    %y = tensor.extract %b[%n] : tensor<{1}xf32>
    %zero = arith.constant 0.0 : f32
    {6}
  }
  %dot = sc.sparse_matmul %q, %d head(%qh, %ih : tensor<{0}x{2}xf32>, tensor<{1}x{2}xf32>) {{transpose_rhs}
      : tensor<{0}x{5}xf32, #csr>, tensor<{5}x{1}xf32, #csr> -> tensor<{0}x{1}xf32>
  return %out, %dot : tensor<{0}x{1}xf32>, tensor<{0}x{1}xf32>
}
)mlir";

// The cosine as kSplit's epilogue body, zero against an empty row.
constexpr const char *kCosine = R"(%p = arith.mulf %x, %y : f32
    %none = arith.cmpf oeq, %p, %zero : f32
    %c = arith.divf %dot, %p : f32
    %r = arith.select %none, %zero, %c : f32
    sc.yield %r : f32)";

/// `rows` split at `head`: the dense head as an argument, the tail rows.
Rows splitInto(const Rows &rows, int64_t numRows,
               const std::vector<int64_t> &head, std::vector<HostTensor> &args) {
  csr::Shape s{numRows, kDim, 64, 10};
  HostTensor &dense = args.emplace_back(
      ElementKind::f32, ArrayRef<int64_t>{numRows, int64_t(head.size())});
  Rows tail;
  tail.indptr.resize(numRows + 1);
  tail.indices.resize(rows.indices.size());
  tail.values.resize(rows.values.size());
  int64_t n = csr::splitHead(s, rows.indptr.data(), rows.indices.data(),
                             rows.values.data(), head,
                             static_cast<float *>(dense.getData()),
                             tail.indptr.data(), tail.indices.data(),
                             tail.values.data());
  tail.indices.resize(n);
  tail.values.resize(n);
  return tail;
}

/// The head scCsrChooseHead picks for these rows.
csr::Head headOf(const Rows &queries, int64_t numQueries, const Rows &items,
                 int64_t numItems, int64_t maxHead) {
  return csr::chooseHead(csr::columnCounts(numQueries, kDim,
                                           queries.indptr.data(),
                                           queries.indices.data()),
                         csr::columnCounts(numItems, kDim, items.indptr.data(),
                                           items.indices.data()),
                         maxHead);
}

/// The arguments of kSplit for `queries` and `items` split at `head`: the
/// heads, the query tail packed with the full rows' norms, the items' tail
/// by dimension with the full items' norms.
std::vector<HostTensor> splitArguments(const Rows &queries, int64_t numQueries,
                                       const Rows &items, int64_t numItems,
                                       const std::vector<int64_t> &head) {
  std::vector<HostTensor> args;
  Rows queryTail = splitInto(queries, numQueries, head, args);
  Rows itemTail = splitInto(items, numItems, head, args);
  // The query tail packed, the full rows' norms.
  csr::Shape qs{numQueries, kDim, 64, 10};
  packInto(queryTail, qs, args);
  {
    std::vector<HostTensor> full;
    packInto(queries, qs, full);
    args.back() = std::move(full.back());
  }
  // The items' tail by dimension: kDim rows over the items.
  Rows byDim;
  byDim.indptr.resize(kDim + 1);
  byDim.indices.resize(itemTail.indices.size());
  byDim.values.resize(itemTail.values.size());
  csr::transpose(numItems, kDim, itemTail.indptr.data(), itemTail.indices.data(),
                 itemTail.values.data(), byDim.indptr.data(),
                 byDim.indices.data(), byDim.values.data());
  csr::Shape ds{kDim, numItems, 64, 10};
  packInto(byDim, ds, args);
  {
    std::vector<HostTensor> full;
    packInto(items, csr::Shape{numItems, kDim, 64, 10}, full);
    args.back() = std::move(full.back());
  }
  return args;
}

// The split form against the unsplit product, on the CPU: the same cosines.
TEST(SimilarityCpuTest, SplitAtAHeadEqualsTheUnsplitProduct) {
  DialectRegistry registry;
  registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  std::mt19937 rng(23);
  const int64_t numQueries = 9, numItems = 14, maxHead = 6;
  Rows queries = makeRows(numQueries, 10, {4}, rng);
  Rows items = makeRows(numItems, 8, {2}, rng);
  csr::Head head = headOf(queries, numQueries, items, numItems, maxHead);
  ASSERT_EQ(int64_t(head.columns.size()), maxHead);
  // Not vacuous: the head carries most products, the tail some.
  EXPECT_GT(head.coverage, 0.5);
  EXPECT_LT(head.coverage, 1.0);

  std::vector<HostTensor> args =
      splitArguments(queries, numQueries, items, numItems, head.columns);
  std::string text =
      llvm::formatv(kSplit, numQueries, numItems, maxHead, numQueries + 1,
                    kDim + 1, kDim, kCosine);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto compiled = CpuFunction::compile(*module, "f");
  ASSERT_TRUE(succeeded(compiled));
  FailureOr<std::vector<HostTensor>> outs = (*compiled)->call(args);
  ASSERT_TRUE(succeeded(outs));
  const HostTensor &cos = (*outs)[0];
  int64_t sharing = 0;
  for (int64_t q = 0; q < numQueries; ++q)
    for (int64_t i = 0; i < numItems; ++i) {
      double want = brute(queries, q, items, i);
      sharing += want != 0;
      EXPECT_NEAR(cos.get(q * numItems + i), want, 1e-6) << q << ", " << i;
    }
  EXPECT_GT(sharing, (numQueries - 1) * (numItems - 1) / 2);
}

// The GPU adds the sparse part's products after an epilogue linear in the
// dot product, each scaled by the epilogue at 1 (SimilarityKernel.cpp):
// epilogue(head + tail) = epilogue(head) + epilogue(1) * tail. On the CPU,
// for each epilogue the analysis calls linear, the op's result equals that
// sum; for the ones it refuses, the identity fails on these rows (kSplit
// with each body).
TEST(SimilarityCpuTest, SparsePartAddsAfterALinearEpilogue) {
  DialectRegistry registry;
  registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  std::mt19937 rng(31);
  const int64_t numQueries = 7, numItems = 12, maxHead = 4;
  Rows queries = makeRows(numQueries, 40, {2}, rng);
  Rows items = makeRows(numItems, 30, {5}, rng);
  csr::Head head = headOf(queries, numQueries, items, numItems, maxHead);
  std::vector<HostTensor> args =
      splitArguments(queries, numQueries, items, numItems, head.columns);
  // Without the tail (the query tail's rows empty); without the heads;
  // and with every head product 1 and no tail: epilogue(1).
  std::vector<HostTensor> headOnly = args, tailOnly = args, one = args;
  for (int64_t r = 0; r <= numQueries; ++r) {
    headOnly[2].set(r, 0);
    one[2].set(r, 0);
  }
  for (int64_t i : {0, 1})
    for (int64_t e = 0; e < args[i].getNumElements(); ++e) {
      tailOnly[i].set(e, 0);
      one[i].set(e, e % maxHead == 0 ? 1 : 0);
    }
  struct Form {
    const char *body;
    bool linear;
  };
  const Form forms[] = {
      {kCosine, true},
      {R"(%s = arith.negf %dot : f32
    %t = arith.mulf %x, %s : f32
    %u = arith.divf %dot, %y : f32
    %r = arith.subf %t, %u : f32
    sc.yield %r : f32)", true},
      // Affine, quadratic, and a select on the dot: refused.
      {R"(%one = arith.constant 1.0 : f32
    %r = arith.addf %dot, %one : f32
    sc.yield %r : f32)", false},
      {R"(%r = arith.mulf %dot, %dot : f32
    sc.yield %r : f32)", false},
      {R"(%big = arith.cmpf ogt, %dot, %x : f32
    %r = arith.select %big, %dot, %zero : f32
    sc.yield %r : f32)", false},
  };
  for (const Form &form : forms) {
    std::string text = llvm::formatv(kSplit, numQueries, numItems,
                                     maxHead, numQueries + 1, kDim + 1, kDim,
                                     form.body);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << form.body;
    SmallVector<SparseMatmulOp> ops;
    module->walk([&](SparseMatmulOp op) { ops.push_back(op); });
    ASSERT_EQ(ops.size(), 2u);
    EXPECT_EQ(ops[0].isEpilogueLinearInProduct(), form.linear) << form.body;
    EXPECT_TRUE(ops[1].isEpilogueLinearInProduct()); // no region
    auto compiled = CpuFunction::compile(*module, "f");
    ASSERT_TRUE(succeeded(compiled));
    auto whole = (*compiled)->call(args), ofHeads = (*compiled)->call(headOnly),
         ofTails = (*compiled)->call(tailOnly), atOne = (*compiled)->call(one);
    ASSERT_TRUE(succeeded(whole) && succeeded(ofHeads) && succeeded(ofTails) &&
                succeeded(atOne));
    double worst = 0; // relative past 1
    int64_t withTail = 0;
    for (int64_t e = 0; e < numQueries * numItems; ++e) {
      double tail = (*ofTails)[1].get(e);
      withTail += tail != 0;
      double split = (*ofHeads)[0].get(e) + (*atOne)[0].get(e) * tail;
      double want = (*whole)[0].get(e);
      worst = std::max(worst, std::abs(want - split) /
                                  std::max(1.0, std::abs(want)));
    }
    EXPECT_GT(withTail, numQueries * numItems / 4); // not vacuous
    if (form.linear)
      EXPECT_LT(worst, 1e-6) << form.body;
    else if (std::string(form.body).find("cmpf") == std::string::npos)
      EXPECT_GT(worst, 1e-2) << form.body;
  }
}

// Each row's elements above its own threshold, in column order up to the
// capacity; the count goes past it; empty slots are -inf / -1; NaN never.
constexpr const char *kSelectRows = R"mlir(
func.func @f(%x: tensor<3x6xf32>, %t: tensor<3xf32>) -> (tensor<3xi32>, tensor<3x2xf32>, tensor<3x2xi32>) {
  %n, %v, %c = sc.select_rows_above %x, %t {capacity = 2 : i64} : tensor<3x6xf32>, tensor<3xf32> -> tensor<3xi32>, tensor<3x2xf32>, tensor<3x2xi32>
  return %n, %v, %c : tensor<3xi32>, tensor<3x2xf32>, tensor<3x2xi32>
}
)mlir";

TEST(SimilarityCpuTest, SelectRowsAboveTheirThresholds) {
  DialectRegistry registry;
  registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSelectRows, &context);
  ASSERT_TRUE(module);
  auto compiled = CpuFunction::compile(*module, "f");
  ASSERT_TRUE(succeeded(compiled));
  std::vector<HostTensor> args;
  args.reserve(2); // the references below stay valid
  HostTensor &x = args.emplace_back(ElementKind::f32, ArrayRef<int64_t>{3, 6});
  HostTensor &t = args.emplace_back(ElementKind::f32, ArrayRef<int64_t>{3});
  double rows[3][6] = {{0.1, 0.5, 0.3, 0.5, std::nan(""), 0.2},  // above 0.3: 0.5, 0.5
                       {0.9, 0.8, 0.7, 0.6, 0.5, 0.4},           // above 0.45: five of them
                       {0.1, 0.2, 0.3, 0.1, 0.2, 0.3}};          // above 0.3: none
  double thresholds[3] = {0.3, 0.45, 0.3};
  for (int64_t r = 0; r < 3; ++r) {
    t.set(r, thresholds[r]);
    for (int64_t c = 0; c < 6; ++c)
      x.set(r * 6 + c, rows[r][c]);
  }
  FailureOr<std::vector<HostTensor>> outs = (*compiled)->call(args);
  ASSERT_TRUE(succeeded(outs));
  const HostTensor &n = (*outs)[0], &v = (*outs)[1], &c = (*outs)[2];
  EXPECT_EQ(n.get(0), 2);
  EXPECT_EQ(n.get(1), 5); // past the capacity: the first two written
  EXPECT_EQ(n.get(2), 0);
  double inf = std::numeric_limits<double>::infinity();
  std::vector<double> wantValues = {0.5, 0.5, 0.9, 0.8, -inf, -inf};
  std::vector<double> wantCols = {1, 3, 0, 1, -1, -1};
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_FLOAT_EQ(v.get(i), wantValues[i]) << i;
    EXPECT_EQ(c.get(i), wantCols[i]) << i;
  }
}

} // namespace
