"""A/B of hybrid-tiled GEMM builds (bench/hybrid_suite.mlir compiled by
each): every build's kernel checked against the fp32 product with the
unpacked weight (NaN-poisoned result), then the kernels' own time (CUDA
profiler) of each build and of cuBLAS on the dense weight, in interleaved
rounds, for each shape, mix and token count.

  python3 bench/hybrid_ab.py bench/artifacts/ab/old_hybrid_suite bench/artifacts/ab/new_hybrid_suite \
      --shapes 4096x11008,11008x4096 --tokens 1,2048 --mixes all_24,all_dense --out ab.json
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import rel_fro  # noqa: E402
from hybrid_check import MIXES, TOLERANCE, make_weight, pack  # noqa: E402
from kernel_times import cuda_events  # noqa: E402


def kernel_us(fn, calls=10):
    return sum(e.time_range.elapsed_us() for e in cuda_events(fn, calls)) / calls


def main():
    p = argparse.ArgumentParser()
    p.add_argument("artifacts", nargs="+")
    p.add_argument("--shapes", default="11008x4096,4096x11008,8192x8192")
    p.add_argument("--tokens", default="1,16,2048")
    p.add_argument("--mixes", default="all_24,70_24_30_dense,all_dense")
    p.add_argument("--dtype", default="f16")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    start = time.time()
    modules = [sparcast.load(d) for d in args.artifacts]
    # The profiler's first session starts CUPTI (seconds): not in a row.
    kernel_us(lambda: torch.zeros(1, device="cuda"), calls=1)
    print("loaded and profiler started in %.1f s" % (time.time() - start), flush=True)
    rows = []
    for shape in args.shapes.split(","):
        n, k = (int(v) for v in shape.split("x"))
        for mix in args.mixes.split(","):
            w, kinds = make_weight(n, k, dtype, MIXES[mix], gen)
            packed = pack(w, kinds)
            for m in (int(t) for t in args.tokens.split(",")):
                name = "linear_%dx%d_m%d_%s" % (n, k, m, args.dtype)
                x = torch.randn(1, m, k, device="cuda", generator=gen).to(dtype)
                ref = x.float() @ w.float().t()
                fns, errors = [], []
                for module in modules:
                    # (A build of some entries only, e.g. decode's.)
                    entry = getattr(module, name, None)
                    if entry is None:
                        errors.append(None)
                        fns.append(None)
                        continue
                    y = torch.full((1, m, n), float("nan"), device="cuda", dtype=dtype)
                    entry(packed.kinds, packed.slots, packed.dense, packed.sparse,
                          packed.meta, x, out=[y])
                    torch.cuda.synchronize()
                    err = rel_fro(y, ref)
                    errors.append(err if not torch.isnan(y).any() else float("nan"))
                    fns.append(lambda entry=entry, y=y: entry(
                        packed.kinds, packed.slots, packed.dense, packed.sparse,
                        packed.meta, x, out=[y]))
                fns.append(lambda: torch.nn.functional.linear(x, w))
                times = [[] for _ in fns]
                for r in range(args.rounds):
                    order = [i for i in range(len(fns)) if fns[i]]
                    if r % 2:
                        order.reverse()
                    for i in order:
                        times[i].append(kernel_us(fns[i]))
                us = [statistics.median(t) if t else None for t in times]
                row = {"n": n, "k": k, "m": m, "dtype": args.dtype, "mix": mix,
                       "kernel_us": dict(zip(args.artifacts + ["cublas"], us)),
                       "rel_fro": dict(zip(args.artifacts, errors)),
                       "ok": all(e is None or e < TOLERANCE for e in errors),
                       "vs_cublas": [us[-1] / u if u else None for u in us[:-1]]}
                rows.append(row)
                print("[%.0f s] %5d x %5d m %4d %-15s us %s cublas %.1f -> %s %s" % (
                    time.time() - start,
                    n, k, m, mix, " ".join("%.1f" % u if u else "-" for u in us[:-1]), us[-1],
                    " ".join("%.2fx" % v if v else "-" for v in row["vs_cublas"]),
                    "ok" if row["ok"] else "WRONG %s" % errors), flush=True)
                json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows},
                          open(args.out, "w"), indent=1)
            del w, packed


if __name__ == "__main__":
    main()
