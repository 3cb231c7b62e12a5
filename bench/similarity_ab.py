"""A/B of similarity artifacts on the benchmark job (5,000 x 200,000 Zipf
rows, D = 1.2M, --head dims): the dense cosine and the GPU-only top-100 (the
package's chunks: the first densely, the others through cosine_candidates)
of each artifact, interleaved rounds, then each one's kernels under the
profiler. Each top-100 is checked against torch.topk of the dense scores.
An artifact named PATH:norms (one built before the entries took inverse
norms) is given the rows' norms, as 1 / the inverse norms (within an ulp of
csr_pack's).

  python3 bench/similarity_ab.py bench/artifacts/similarity bench/artifacts/BEFORE:norms ...
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from similarity_check import timed, zipf_csr  # noqa: E402


def kernel_ms(fn):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return {e.key: (getattr(e, "self_device_time_total", 0) or getattr(e, "self_cuda_time_total", 0)) / 1000
            for e in prof.key_averages()
            if (getattr(e, "self_device_time_total", 0) or getattr(e, "self_cuda_time_total", 0))
            and "similarity" in e.key}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("artifacts", nargs="+")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--head", type=int, default=16)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    gen = torch.Generator().manual_seed(0)
    M, N, D = 5000, 200000, 1200000
    q, i = zipf_csr(M, 43, D, gen), zipf_csr(N, 38, D, gen)
    impl = sys.modules["sparcast.similarity"]
    modules = [sparcast.load(a.split(":")[0]) for a in args.artifacts]
    given_norms = [a.endswith(":norms") for a in args.artifacts]
    split = impl._Inspector(q, i, args.head, None)
    capacity = impl._candidate_slots(modules[0])
    chunks = impl._candidate_chunks(N, 100, capacity, N)
    chunk_in = [split.inputs(a, b).to("cuda").args for a, b in chunks]
    whole = sparcast.similarity_inputs(q, i, max_head=args.head).to("cuda").args

    def as_norms(a):  # arguments 8 and 9 (inverse norms) as 1 / them, 0 for 0
        norms = lambda n: torch.where(n > 0, 1 / n.double(), 0).float()
        return list(a[:8]) + [norms(a[8]), norms(a[9])] + list(a[10:])
    norm_chunks = [as_norms(a) for a in chunk_in]
    norm_whole = as_norms(whole)
    dense = torch.empty(M, N, device="cuda")
    modules[0].cosine(*(norm_whole if given_norms[0] else whole), out=[dense])
    want = torch.topk(dense, 100, dim=1).values

    def top100(mod, norms=False):
        v = ids = None
        for c, ((a, _), a_) in enumerate(zip(chunks, norm_chunks if norms else chunk_in)):
            found = (impl._candidates_top_k(mod, a_, v[:, -1].contiguous(), a, 100, capacity) if c
                     else impl._chunk_top_k(mod.cosine(*a_), a, 100))
            assert found is not None, "a query overflowed its slots"
            v, ids = impl._merge_top_k(v, ids, found[0], found[1], 100)
        return v, ids

    report = {"gpu": torch.cuda.get_device_name(), "head": args.head, "chunks": chunks, "artifacts": []}
    mine = torch.empty_like(dense)
    for path, mod, norms in zip(args.artifacts, modules, given_norms):
        v, ids = top100(mod, norms)
        err = max((v - want).abs().max().item(), (dense.gather(1, ids) - v).abs().max().item())
        # Each dense result against the first artifact's.
        mod.cosine(*(norm_whole if norms else whole), out=[mine])
        differ = (mine - dense).abs().max().item()
        report["artifacts"].append({"path": path, "top100_err": err, "dense_vs_first": differ,
                                    "ok": err < 1e-6 and differ < 1e-6,
                                    "dense_ms": [], "top100_ms": []})
    del mine
    for _ in range(args.rounds):
        for row, mod, norms in zip(report["artifacts"], modules, given_norms):
            w = norm_whole if norms else whole
            row["dense_ms"].append(timed(lambda: mod.cosine(*w, out=[dense]), 3))
            row["top100_ms"].append(timed(lambda: top100(mod, norms), 3))
    for row, mod, norms in zip(report["artifacts"], modules, given_norms):
        w = norm_whole if norms else whole
        row["dense_parts"] = kernel_ms(lambda: mod.cosine(*w, out=[dense]))
        row["top100_parts"] = kernel_ms(lambda: top100(mod, norms))
        print("%s: dense %.2f ms, top-100 %.2f ms (err %.1e, dense vs the first %.1e: %s)\n  dense parts %s\n  top-100 parts %s"
              % (row["path"], min(row["dense_ms"]), min(row["top100_ms"]), row["top100_err"],
                 row["dense_vs_first"], "ok" if row["ok"] else "WRONG",
                 ", ".join("%s %.2f" % (k.split("similarity0_")[-1], t) for k, t in row["dense_parts"].items()),
                 ", ".join("%s %.2f" % (k.split("similarity0_")[-1], t) for k, t in row["top100_parts"].items())))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
