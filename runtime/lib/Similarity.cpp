//===- Similarity.cpp - scSimilarity: a whole similarity job streamed -----===//
//
// The C entry of sparcast.similarity's shape (docs/sparse-similarity.md):
// the host inspector (head, split, items' tail by dimension, packing) and
// the artifact's two entries run over chunks of items. Top k and threshold
// pairs come from `cosine_candidates` (the selection fused into the tile
// kernel) and are merged on the host; a chunk where a query has more
// candidates than slots is halved, down to chunks no larger than the slots
// (which cannot overflow). The first top-k chunk takes every score (no
// threshold yet), so no dense scores are ever read back.
//
//===----------------------------------------------------------------------===//

#include "DeviceMemory.h"
#include "Status.h"
#include "sparcast/Support/BlockCsr.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace sparcast;
using namespace sparcast::rt;

namespace {

// The layout of examples/similarity.mlir's #sc.block_csr.
constexpr int64_t kBlockSize = 1024;
constexpr int32_t kOffsetBits = 10;
constexpr const char *kDense = "cosine", *kCandidates = "cosine_candidates";

#define SC_RETURN_IF_ERROR(expr)                                               \
  do {                                                                         \
    if (scStatus sc_status_ = (expr))                                          \
      return sc_status_;                                                       \
  } while (0)

scStatus invalid(const std::string &why) {
  return setError(SC_ERROR_INVALID_ARGUMENT, "scSimilarity: " + why);
}

/// A checked row set.
struct Rows {
  int64_t rows = 0, dim = 0;
  const int64_t *indptr = nullptr, *indices = nullptr;
  const float *values = nullptr;
  int64_t nnz() const { return indptr[rows]; }
};

scStatus checkRows(const char *what, const scCsrRows *in, Rows &out) {
  if (!in || !in->indptr)
    return invalid(std::string("null ") + what);
  out = {in->rows, in->dim, in->indptr, in->indices, in->values};
  if (in->rows < 1)
    return invalid(std::string(what) + ": no rows");
  int64_t nnz = in->indptr[in->rows];
  if (nnz > 0 && (!in->indices || !in->values))
    return invalid(std::string("null ") + what + " indices or values");
  csr::Shape shape{in->rows, in->dim, kBlockSize, kOffsetBits};
  std::string why = csr::checkShape(shape);
  if (why.empty())
    why = csr::checkCsr(shape, in->indptr, in->indices, in->values, nnz);
  return why.empty() ? SC_OK : invalid(std::string(what) + ": " + why);
}

/// Packed rows (#sc.block_csr buffers), at least one entry long: an
/// entry's tensors have no zero-sized dims (an unread entry when empty).
struct Packed {
  std::vector<int32_t> ptr;
  std::vector<uint32_t> words;
  std::vector<float> values, norms;
};

Packed pack(int64_t rows, int64_t dim, const int64_t *indptr,
            const int64_t *indices, const float *values) {
  Packed p;
  int64_t nnz = indptr[rows];
  p.ptr.resize(rows + 1);
  p.words.resize(std::max<int64_t>(nnz, 1), 0);
  p.values.resize(std::max<int64_t>(nnz, 1), 0);
  p.norms.resize(rows);
  csr::pack({rows, dim, kBlockSize, kOffsetBits}, indptr, indices, values,
            p.ptr.data(), p.words.data(), p.values.data(), p.norms.data());
  return p;
}

/// Rows split at the head: the dense head (rows x width, zero-padded
/// columns) and the tail's CSR arrays.
struct Split {
  std::vector<float> head;
  std::vector<int64_t> tailPtr, tailIndices;
  std::vector<float> tailValues;
};

Split split(const Rows &r, int64_t first, int64_t stop,
            const std::vector<int64_t> &head, int64_t width) {
  int64_t count = stop - first, base = r.indptr[first];
  std::vector<int64_t> ptr(count + 1);
  for (int64_t i = 0; i <= count; ++i)
    ptr[i] = r.indptr[first + i] - base;
  Split s;
  std::vector<float> dense(count * head.size());
  s.tailPtr.resize(count + 1);
  s.tailIndices.resize(std::max<int64_t>(ptr[count], 1));
  s.tailValues.resize(std::max<int64_t>(ptr[count], 1));
  int64_t n = csr::splitHead({count, r.dim, kBlockSize, kOffsetBits},
                             ptr.data(), r.indices + base, r.values + base,
                             head, dense.data(), s.tailPtr.data(),
                             s.tailIndices.data(), s.tailValues.data());
  s.tailIndices.resize(n);
  s.tailValues.resize(n);
  s.head.assign(count * width, 0.0f);
  for (int64_t i = 0; i < count; ++i)
    std::copy_n(dense.begin() + i * head.size(), head.size(),
                s.head.begin() + i * width);
  return s;
}

/// `body(q)` for every query q < m, the queries split over the host's
/// cores (each q touches only its own row of the results).
template <typename Body> void forEachQuery(int64_t m, Body &&body) {
  int64_t workers = std::max<int64_t>(
      1, std::min<int64_t>(std::thread::hardware_concurrency(), m / 256));
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (int64_t q = m * w / workers; q < m * (w + 1) / workers; ++q)
        body(q);
    });
  for (int64_t q = 0; q < m / workers; ++q)
    body(q);
  for (std::thread &t : threads)
    t.join();
}

/// A device buffer, grown on demand (Job::reserve), freed with the job.
struct DeviceBuffer {
  void *ptr = nullptr;
  size_t bytes = 0;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { deviceFree(ptr); }
};

scTensor tensor(const DeviceBuffer &b, scDType dtype,
                std::initializer_list<int64_t> shape) {
  scTensor t{};
  t.data = b.ptr;
  t.dtype = dtype;
  t.rank = int32_t(shape.size());
  std::copy(shape.begin(), shape.end(), t.shape);
  return t;
}

/// One job: the inspector's query side once, items a chunk at a time.
class Job {
public:
  Job(scModule *module, const Rows &queries, const Rows &items,
      const scSimilarityJob &job)
      : module(module), queries(queries), items(items), job(job) {}

  scStatus run(float *topValues, int64_t *topIds, uint64_t *peak);

private:
  scStatus prepare();
  scStatus slotsPerQuery();
  /// `b` at least `bytes` long; the device memory held counted.
  scStatus reserve(DeviceBuffer &b, size_t bytes);
  scStatus upload(DeviceBuffer &b, const void *data, size_t bytes);
  scStatus loadItems(int64_t first, int64_t stop);
  std::vector<scTensor> arguments();
  scStatus runEntry(const char *entry, std::vector<scTensor> args,
                    std::vector<scTensor> results);
  /// Items [first, stop) through cosine_candidates above each query's
  /// threshold; halved while a query overflows. `take` gets each chunk's
  /// candidates.
  template <typename Take>
  scStatus candidates(int64_t first, int64_t stop,
                      const std::vector<float> &thresholds, Take &&take);
  scStatus topK(float *topValues, int64_t *topIds);
  scStatus pairs();
  scStatus dense();

  scModule *module;
  Rows queries, items;
  const scSimilarityJob &job;
  std::vector<int64_t> head;
  int64_t width = 16, capacity = 0, chunk = 0;
  size_t held = 0, peakHeld = 0;
  DeviceBuffer qHead, qPtr, qWords, qValues, qInverseNorms;
  DeviceBuffer iHead, dPtr, dWords, dValues, iInverseNorms, theta;
  DeviceBuffer counts, slotValues, slotCols, scores, workspace;
  int64_t qEntries = 0, loadedItems = 0, loadedEntries = 0;
};

scStatus Job::reserve(DeviceBuffer &b, size_t bytes) {
  if (bytes <= b.bytes)
    return SC_OK;
  // A kernel queued earlier may still read the old buffer.
  SC_RETURN_IF_ERROR(synchronize(job.stream));
  deviceFree(b.ptr);
  b.ptr = nullptr;
  held -= b.bytes;
  b.bytes = 0;
  SC_RETURN_IF_ERROR(deviceAlloc(bytes, b.ptr));
  b.bytes = bytes;
  held += bytes;
  peakHeld = std::max(peakHeld, held);
  return SC_OK;
}

scStatus Job::upload(DeviceBuffer &b, const void *data, size_t bytes) {
  SC_RETURN_IF_ERROR(reserve(b, bytes));
  return copyToDevice(b.ptr, data, bytes, job.stream);
}

scStatus Job::prepare() {
  csr::Head h = csr::chooseHead(
      csr::columnCounts(queries.rows, queries.dim, queries.indptr,
                        queries.indices),
      csr::columnCounts(items.rows, items.dim, items.indptr, items.indices),
      job.maxHead ? job.maxHead : 16);
  head = h.columns;
  width = std::max<int64_t>(16, (int64_t(head.size()) + 15) / 16 * 16);
  Split q = split(queries, 0, queries.rows, head, width);
  Packed tail = pack(queries.rows, queries.dim, q.tailPtr.data(),
                     q.tailIndices.data(), q.tailValues.data());
  std::vector<float> inverse(queries.rows);
  csr::inverseRowNorms(queries.rows, queries.indptr, queries.values,
                       inverse.data());
  qEntries = int64_t(tail.values.size());
  SC_RETURN_IF_ERROR(upload(qHead, q.head.data(), q.head.size() * 4));
  SC_RETURN_IF_ERROR(upload(qPtr, tail.ptr.data(), tail.ptr.size() * 4));
  SC_RETURN_IF_ERROR(upload(qWords, tail.words.data(), tail.words.size() * 4));
  SC_RETURN_IF_ERROR(upload(qValues, tail.values.data(), tail.values.size() * 4));
  return upload(qInverseNorms, inverse.data(), inverse.size() * 4);
}

scStatus Job::loadItems(int64_t first, int64_t stop) {
  int64_t count = stop - first;
  Split s = split(items, first, stop, head, width);
  // The tail by dimension: D rows over the chunk's items.
  int64_t nnz = int64_t(s.tailValues.size());
  std::vector<int64_t> tPtr(items.dim + 1), tIndices(std::max<int64_t>(nnz, 1));
  std::vector<float> tValues(std::max<int64_t>(nnz, 1));
  csr::transpose(count, items.dim, s.tailPtr.data(), s.tailIndices.data(),
                 s.tailValues.data(), tPtr.data(), tIndices.data(),
                 tValues.data());
  Packed byDim = pack(items.dim, count, tPtr.data(), tIndices.data(),
                      tValues.data());
  // The full rows' inverse norms (indptr's offsets index the values as
  // they are).
  std::vector<float> inverse(count);
  csr::inverseRowNorms(count, items.indptr + first, items.values,
                       inverse.data());
  SC_RETURN_IF_ERROR(upload(iHead, s.head.data(), s.head.size() * 4));
  SC_RETURN_IF_ERROR(upload(dPtr, byDim.ptr.data(), byDim.ptr.size() * 4));
  SC_RETURN_IF_ERROR(upload(dWords, byDim.words.data(), byDim.words.size() * 4));
  SC_RETURN_IF_ERROR(upload(dValues, byDim.values.data(), byDim.values.size() * 4));
  SC_RETURN_IF_ERROR(upload(iInverseNorms, inverse.data(), inverse.size() * 4));
  loadedItems = count;
  loadedEntries = int64_t(byDim.values.size());
  return SC_OK;
}

std::vector<scTensor> Job::arguments() {
  int64_t m = queries.rows;
  // The items' buffers only grow: their sizes come from the chunk loaded.
  return {tensor(qHead, SC_F32, {m, width}),
          tensor(iHead, SC_F32, {loadedItems, width}),
          tensor(qPtr, SC_I32, {m + 1}),
          tensor(qWords, SC_I32, {qEntries}),
          tensor(qValues, SC_F32, {qEntries}),
          tensor(dPtr, SC_I32, {items.dim + 1}),
          tensor(dWords, SC_I32, {loadedEntries}),
          tensor(dValues, SC_F32, {loadedEntries}),
          tensor(qInverseNorms, SC_F32, {m}),
          tensor(iInverseNorms, SC_F32, {loadedItems})};
}

scStatus Job::runEntry(const char *entry, std::vector<scTensor> args,
                       std::vector<scTensor> results) {
  uint64_t bytes = 0;
  SC_RETURN_IF_ERROR(scWorkspaceBytes(module, entry, args.data(),
                                      int32_t(args.size()), results.data(),
                                      int32_t(results.size()), &bytes));
  SC_RETURN_IF_ERROR(reserve(workspace, bytes));
  return scRunWithWorkspace(module, entry, args.data(), int32_t(args.size()),
                            results.data(), int32_t(results.size()),
                            workspace.ptr, workspace.bytes, job.stream, 0);
}

template <typename Take>
scStatus Job::candidates(int64_t first, int64_t stop,
                         const std::vector<float> &thresholds, Take &&take) {
  int64_t m = queries.rows;
  SC_RETURN_IF_ERROR(loadItems(first, stop));
  SC_RETURN_IF_ERROR(upload(theta, thresholds.data(), m * 4));
  SC_RETURN_IF_ERROR(reserve(counts, m * 4));
  SC_RETURN_IF_ERROR(reserve(slotValues, m * capacity * 4));
  SC_RETURN_IF_ERROR(reserve(slotCols, m * capacity * 4));
  std::vector<scTensor> args = arguments();
  args.push_back(tensor(theta, SC_F32, {m}));
  SC_RETURN_IF_ERROR(runEntry(kCandidates, args,
                              {tensor(counts, SC_I32, {m}),
                               tensor(slotValues, SC_F32, {m, capacity}),
                               tensor(slotCols, SC_I32, {m, capacity})}));
  std::vector<int32_t> found(m);
  SC_RETURN_IF_ERROR(copyToHost(found.data(), counts.ptr, m * 4, job.stream));
  int64_t most = *std::max_element(found.begin(), found.end());
  if (most > capacity) {
    // Fewer items a chunk, fewer candidates a query; a chunk no larger
    // than half the slots cannot overflow (a pair takes a slot on its head
    // and again when its tail rescores it).
    int64_t middle = first + (stop - first) / 2 / 128 * 128;
    if (middle <= first || stop - first <= capacity / 2)
      return setError(SC_ERROR_INTERNAL,
                      "scSimilarity: a query has more candidates than items");
    SC_RETURN_IF_ERROR(candidates(first, middle, thresholds, take));
    return candidates(middle, stop, thresholds, take);
  }
  std::vector<float> values(m * std::max<int64_t>(most, 1));
  std::vector<int32_t> cols(m * std::max<int64_t>(most, 1));
  SC_RETURN_IF_ERROR(copyRowsToHost(values.data(), most * 4, slotValues.ptr,
                                    capacity * 4, most * 4, m, job.stream));
  SC_RETURN_IF_ERROR(copyRowsToHost(cols.data(), most * 4, slotCols.ptr,
                                    capacity * 4, most * 4, m, job.stream));
  return take(first, most, found, values, cols);
}

/// Calls `fn(column, value)` for each of query q's candidates in a chunk's
/// slots (`found[q]` of them, `width` a row), skipping the emptied ones
/// (column -1: the rescoring kernel appended the pair's exact score).
template <typename Fn>
static void forEachCandidate(int64_t q, int64_t width,
                             const std::vector<int32_t> &found,
                             const std::vector<float> &values,
                             const std::vector<int32_t> &cols, Fn fn) {
  for (int64_t j = 0; j < found[q]; ++j)
    if (cols[q * width + j] >= 0)
      fn(cols[q * width + j], values[q * width + j]);
}

scStatus Job::topK(float *topValues, int64_t *topIds) {
  int64_t m = queries.rows, n = items.rows, k = job.k;
  using Scored = std::pair<float, int64_t>;
  // Larger first, equal values by the lower item; NaN last.
  auto before = [](const Scored &a, const Scored &b) {
    if (std::isnan(a.first) || std::isnan(b.first))
      return !std::isnan(a.first) && std::isnan(b.first);
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  std::vector<std::vector<Scored>> best(m);
  const float none = -std::numeric_limits<float>::infinity();
  std::vector<float> thresholds(m, none);
  auto take = [&](int64_t first, int64_t width,
                  const std::vector<int32_t> &found,
                  const std::vector<float> &values,
                  const std::vector<int32_t> &cols) {
    forEachQuery(m, [&](int64_t q) {
      std::vector<Scored> &row = best[q];
      forEachCandidate(q, width, found, values, cols, [&](int32_t c, float v) {
        row.emplace_back(v, first + c);
      });
      std::size_t keep = std::min<std::size_t>(k, row.size());
      std::partial_sort(row.begin(), row.begin() + keep, row.end(), before);
      row.resize(keep);
      thresholds[q] = int64_t(row.size()) == k && !std::isnan(row.back().first)
                          ? row.back().first
                          : none;
    });
    return SC_OK;
  };
  // Every score of the first items (no threshold yet: as many items as
  // half the slots, which cannot overflow), then chunks sized so that about
  // k * chunk / seen candidates a query stay under a quarter of the slots.
  int64_t stop = std::min(n, capacity / 2);
  SC_RETURN_IF_ERROR(candidates(0, stop, thresholds, take));
  while (stop < n) {
    int64_t size = std::max<int64_t>(128, stop * capacity / (4 * k) / 128 * 128);
    int64_t first = stop;
    stop = std::min(n, first + std::min(size, chunk));
    SC_RETURN_IF_ERROR(candidates(first, stop, thresholds, take));
  }
  for (int64_t q = 0; q < m; ++q)
    for (int64_t j = 0; j < k; ++j) {
      bool has = j < int64_t(best[q].size());
      topValues[q * k + j] = has ? best[q][j].first : none;
      topIds[q * k + j] = has ? best[q][j].second : -1;
    }
  return SC_OK;
}

scStatus Job::pairs() {
  int64_t m = queries.rows, n = items.rows;
  std::vector<float> thresholds(m, job.threshold);
  auto take = [&](int64_t first, int64_t width,
                  const std::vector<int32_t> &found,
                  const std::vector<float> &values,
                  const std::vector<int32_t> &cols) {
    std::vector<int64_t> rows, columns;
    std::vector<float> scores;
    for (int64_t q = 0; q < m; ++q) {
      std::vector<std::pair<int32_t, float>> row;
      forEachCandidate(q, width, found, values, cols,
                       [&](int32_t c, float v) { row.emplace_back(c, v); });
      std::sort(row.begin(), row.end());
      for (auto [c, v] : row) {
        rows.push_back(q);
        columns.push_back(first + c);
        scores.push_back(v);
      }
    }
    if (!rows.empty())
      job.onPairs(job.user, int64_t(rows.size()), rows.data(), columns.data(),
                  scores.data());
    return SC_OK;
  };
  for (int64_t first = 0; first < n; first += chunk)
    SC_RETURN_IF_ERROR(
        candidates(first, std::min(n, first + chunk), thresholds, take));
  return SC_OK;
}

scStatus Job::dense() {
  int64_t m = queries.rows, n = items.rows;
  for (int64_t first = 0; first < n; first += chunk) {
    int64_t stop = std::min(n, first + chunk);
    SC_RETURN_IF_ERROR(loadItems(first, stop));
    SC_RETURN_IF_ERROR(reserve(scores, m * (stop - first) * 4));
    SC_RETURN_IF_ERROR(runEntry(kDense, arguments(),
                                {tensor(scores, SC_F32, {m, stop - first})}));
    SC_RETURN_IF_ERROR(synchronize(job.stream));
    job.onScores(job.user, first, stop - first,
                 static_cast<const float *>(scores.ptr));
  }
  return SC_OK;
}

scStatus Job::slotsPerQuery() {
  // The candidates entry's second result is [M, slots]; asked with the
  // first items loaded.
  SC_RETURN_IF_ERROR(loadItems(0, std::min<int64_t>(items.rows, 128)));
  std::vector<scTensor> args = arguments();
  args.push_back(tensor(qInverseNorms, SC_F32, {queries.rows}));
  int32_t rank = 0;
  int64_t shape[SC_MAX_RANK] = {};
  SC_RETURN_IF_ERROR(scResultShape(module, kCandidates, args.data(),
                                   int32_t(args.size()), 1, &rank, shape));
  capacity = rank == 2 ? shape[1] : 0;
  if (capacity < 128)
    return invalid("the artifact's cosine_candidates has fewer than 128 "
                   "slots a query");
  return SC_OK;
}

scStatus Job::run(float *topValues, int64_t *topIds, uint64_t *peak) {
  SC_RETURN_IF_ERROR(prepare());
  if (job.k > 0 || job.hasThreshold)
    SC_RETURN_IF_ERROR(slotsPerQuery());
  chunk = job.chunkItems;
  if (!chunk) {
    // The scores (or the candidates' workspace) and the items' inputs.
    size_t free = 0, total = 0;
    SC_RETURN_IF_ERROR(deviceMemoryInfo(free, total));
    double perItem = queries.rows * 4.0 + width * 4.0 + 64.0;
    chunk = std::max<int64_t>(
        128, std::min<int64_t>(items.rows, int64_t(0.4 * free / perItem)) /
                 128 * 128);
  }
  scStatus s = job.k > 0          ? topK(topValues, topIds)
               : job.hasThreshold ? pairs()
                                  : dense();
  if (peak)
    *peak = peakHeld;
  return s;
}

} // namespace

scStatus scSimilarity(scModule *module, const scCsrRows *queries,
                      const scCsrRows *items, const scSimilarityJob *job,
                      float *topValues, int64_t *topIds,
                      uint64_t *peakDeviceBytes) {
  return guarded("scSimilarity", [&]() -> scStatus {
    if (!module || !job)
      return invalid("null module or job");
    Rows q, i;
    SC_RETURN_IF_ERROR(checkRows("queries", queries, q));
    SC_RETURN_IF_ERROR(checkRows("items", items, i));
    if (q.dim != i.dim)
      return invalid("queries over D = " + std::to_string(q.dim) +
                     ", items over D = " + std::to_string(i.dim));
    if (job->k < 0 || job->k > 1024 || job->k > i.rows)
      return invalid("k must be in [1, min(1024, items)] or 0, got " +
                     std::to_string(job->k));
    if (job->k > 0 && (!topValues || !topIds))
      return invalid("null topValues or topIds");
    if (job->k == 0 && job->hasThreshold && !job->onPairs)
      return invalid("a threshold without onPairs");
    if (job->k == 0 && !job->hasThreshold && !job->onScores)
      return invalid("neither k, a threshold nor onScores");
    if (job->hasThreshold && std::isnan(job->threshold))
      return invalid("a NaN threshold");
    if (job->chunkItems < 0 || job->chunkItems % 128)
      return invalid("chunkItems must be a multiple of 128 or 0, got " +
                     std::to_string(job->chunkItems));
    if (job->maxHead < 0 || job->maxHead > 256)
      return invalid("maxHead must be in [1, 256] or 0, got " +
                     std::to_string(job->maxHead));
    for (const char *entry : {kDense, kCandidates}) {
      bool has = false;
      for (int32_t e = 0; e < scModuleNumEntries(module); ++e)
        has |= std::string(scModuleEntryName(module, e)) == entry;
      if (!has)
        return invalid(std::string("the artifact has no entry '") + entry +
                       "' (compile examples/similarity.mlir)");
    }
    Job work(module, q, i, *job);
    scStatus s = work.run(topValues, topIds, peakDeviceBytes);
    if (s == SC_OK)
      clearError();
    return s;
  });
}
