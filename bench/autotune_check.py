"""Tuning of dispatches on the GPU (issue 33's `autotune` workload): the
IKBO LCE, whose candidate GEMM is dispatched between the transposed tile
and ping-pong, at shapes across the dispatch's threshold.

For each shape: the kernel time with the compiler's conditions choosing,
then the first call with tuning on (its wall time: the measurement of
every alternative, then the call), the alternative chosen and each one's
measured time, the kernel time with the tuned choice, and the host time
of a call through the cache against one without it (the cache's lookup on
the call's path). Results are checked against an fp32 reference. The
artifact is examples/lce.mlir compiled with --autotune (its request GEMM
versioned over its schedules too).

    python3 bench/autotune_check.py --artifacts bench/artifacts/ws --out autotune.json
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import sparcast  # noqa: E402
from lce_check import make_index  # noqa: E402

SHAPES = [(1024, 16), (2048, 16), (4096, 16), (4096, 256), (1024, 256), (8192, 32)]


def inputs(B, users, gen):
    f16 = torch.float16
    w = torch.randn(433, 2044, device="cuda", generator=gen).to(f16) / 40
    eu = torch.randn(users, 1178, 256, device="cuda", generator=gen).to(f16)
    ec = torch.randn(B, 866, 256, device="cuda", generator=gen).to(f16)
    return w, eu, ec, make_index(users, B, gen, shuffle=True)


def reference(w, eu, ec, idx):
    e = torch.cat([eu[idx.long()].float(), ec.float()], dim=1)
    return torch.matmul(w.float(), e)


def interleaved_ms(fns, rounds=20, calls=5):
    """Median ms a call of each fn, over rounds in which every fn runs
    `calls` times in turn (the order reversed every other round): at the
    board's power cap, times taken one fn after the other drift."""
    for fn in fns:
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = [[] for _ in fns]
    for r in range(rounds):
        order = list(range(len(fns)))
        if r % 2:
            order.reverse()
        for i in order:
            start.record()
            for _ in range(calls):
                fns[i]()
            stop.record()
            stop.synchronize()
            times[i].append(start.elapsed_time(stop) / calls)
    return [statistics.median(t) for t in times]


def host_us(fn, reps=200):
    """Host time a call takes to enqueue (the GPU runs behind)."""
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        torch.cuda.synchronize()
    return 1e6 * statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--commit", default="unknown")
    p.add_argument("--name", default="lce_autotune",
                   help="the LCE artifact under --artifacts (sparcast-aot --autotune)")
    args = p.parse_args()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    path = os.path.join(args.artifacts, args.name)
    cache = os.path.join(tempfile.mkdtemp(), "tune-cache.json")
    plain = sparcast.load(path)
    tuned = sparcast.load(path, tune=True, tune_cache=cache)
    rows = []
    for B, users in SHAPES:
        w, eu, ec, idx = inputs(B, users, gen)
        ref = reference(w, eu, ec, idx)
        out = torch.full((B, 433, 256), float("nan"), device="cuda", dtype=torch.float16)
        t = time.perf_counter()
        tuned.lce(w, eu, ec, idx, out=[out])
        torch.cuda.synchronize()
        first_ms = 1000 * (time.perf_counter() - t)
        err = ((out.float() - ref).norm() / ref.norm()).item()
        row = {"B": B, "users": users, "first_call_ms": first_ms, "rel_fro": err,
               "ok": bool(err < 1e-2 and not torch.isnan(out).any())}
        row["heuristic_ms"], row["tuned_ms"] = interleaved_ms(
            [lambda: plain.lce(w, eu, ec, idx, out=[out]),
             lambda: tuned.lce(w, eu, ec, idx, out=[out])])
        row["tuned_vs_heuristic"] = row["heuristic_ms"] / row["tuned_ms"]
        row["host_us_no_cache"] = host_us(lambda: plain.lce(w, eu, ec, idx, out=[out]))
        row["host_us_cached"] = host_us(lambda: tuned.lce(w, eu, ec, idx, out=[out]))
        print(row, flush=True)
        rows.append(row)
    with open(cache) as f:
        choices = json.load(f)["choices"]
    print("cache:", json.dumps(choices, indent=1), flush=True)
    result = {"workload": "autotune", "commit": args.commit,
              "gpu": torch.cuda.get_device_name(), "rows": rows, "cache": choices,
              "all_correct": all(r["ok"] for r in rows)}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
