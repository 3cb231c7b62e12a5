"""Exact cosine similarity of sparse rows with Sparcast: Zipf-distributed
TF-IDF-like rows generated on the host, the top k items of every query (or
the pairs above a threshold) on the GPU, streamed over the items.

    sparcast-aot examples/similarity.mlir -o /tmp/similarity
    python3 examples/similarity.py /tmp/similarity --queries 50000 --items 2000000 --k 100

The artifact is compiled from examples/similarity.mlir; the inspector (the
head of frequent dimensions, the split, the items by dimension) runs on
the host (docs/sparse-similarity.md).
"""

import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import sparcast  # noqa: E402


def zipf_rows(rows, per_row, dim, gen):
    """rows x dim CSR with about per_row ids a row drawn as floor(dim u^3)
    (a few dimensions in most rows, most of them rare), values in [0.1, 2)."""
    u = torch.rand(rows, per_row, generator=gen, dtype=torch.float64)
    ids = torch.sort((dim * u ** 3).long().clamp_(max=dim - 1), dim=1).values
    keep = torch.ones_like(ids, dtype=torch.bool)
    keep[:, 1:] = ids[:, 1:] != ids[:, :-1]
    indptr = torch.zeros(rows + 1, dtype=torch.int64)
    indptr[1:] = keep.sum(1).cumsum(0)
    indices = ids[keep]
    values = torch.rand(indices.numel(), generator=gen) * 1.9 + 0.1
    return torch.sparse_csr_tensor(indptr, indices, values, size=(rows, dim))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("artifact")
    p.add_argument("--queries", type=int, default=5000)
    p.add_argument("--items", type=int, default=200000)
    p.add_argument("--dim", type=int, default=1200000)
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--threshold", type=float)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    gen = torch.Generator().manual_seed(args.seed)
    queries = zipf_rows(args.queries, 43, args.dim, gen)
    items = zipf_rows(args.items, 38, args.dim, gen)
    module = sparcast.load(args.artifact)
    torch.cuda.reset_peak_memory_stats()
    start = time.time()
    if args.threshold is not None:
        rows, cols, values = sparcast.similarity(queries, items, artifact=module, threshold=args.threshold)
        torch.cuda.synchronize()
        print("%d pairs above %g" % (rows.numel(), args.threshold))
    else:
        values, ids = sparcast.similarity(queries, items, artifact=module, k=args.k)
        torch.cuda.synchronize()
        print("query 0's best items:", ids[0, :5].tolist(), values[0, :5].tolist())
    print("%d x %d over D = %d: %.1f s, peak GPU memory %.1f GiB"
          % (args.queries, args.items, args.dim, time.time() - start,
             torch.cuda.max_memory_allocated() / 2 ** 30))


if __name__ == "__main__":
    main()
