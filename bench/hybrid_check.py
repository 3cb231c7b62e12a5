"""Correctness and speed of the hybrid-tiled GEMM (workload hybrid-24).

y = x W^T with W in 128 x 128 tiles that are dense, 2:4 or zero, packed by
sparcast.hybrid_pack, run by the kernels of bench/hybrid_suite.mlir:

- correct against the fp32 product with the weight as built (which the
  packing must give back), for tile mixes all 2:4, 70 % 2:4 / 30 % dense,
  50 / 50 with zero tiles, all dense; odd M; a bias + ReLU epilogue;
  outputs poisoned with NaN first;
- timed in one run against cuBLAS on the dense weight
  (torch.nn.functional.linear), interleaved rounds (gemm_check.compare_ms),
  and by the CUDA profiler (the kernels' own time: at decode sizes a call's
  host time, not the kernel, sets the time of calls back to back);
- with --cusparselt, all-2:4 weights also against cuSPARSELt
  (torch.sparse.to_sparse_semi_structured), each shape in a process of its
  own: on the H100's torch 2.11 some shapes fail inside cuSPARSELt with an
  illegal instruction, which ends the process that ran them.

    python3 bench/hybrid_check.py --artifacts bench/artifacts/hybrid_suite \
        --out hybrid.json
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import sparcast  # noqa: E402
from gemm_check import compare_ms, rel_fro  # noqa: E402
from kernel_times import cuda_events  # noqa: E402

TILE = (128, 128)  # bench/make_hybrid_suite.py's
TOLERANCE = 2e-3
# (zero, 2:4, dense) fractions of the tiles.
MIXES = {"all_24": (0.0, 1.0, 0.0), "70_24_30_dense": (0.0, 0.7, 0.3),
         "50_50_zero": (0.1, 0.45, 0.45), "all_dense": (0.0, 0.0, 1.0)}
TOKENS = [1, 16, 2048, 8192]


def make_weight(n, k, dtype, mix, gen):
    """A weight whose tiles are zero, 2:4 (two random positions of every
    four kept) or dense in the fractions of `mix`, and its kinds."""
    gr, gc = n // TILE[0], k // TILE[1]
    w = torch.randn(n, k, device="cuda", generator=gen) * 0.05
    scores = torch.rand(n, k // 4, 4, device="cuda", generator=gen)
    keep = torch.zeros_like(scores, dtype=torch.bool)
    keep.scatter_(2, scores.topk(2, dim=2).indices, True)
    w24 = w * keep.reshape(n, k)
    pick = torch.rand(gr, gc, device="cuda", generator=gen)
    kinds = torch.where(pick < mix[0], 0, torch.where(pick < mix[0] + mix[1], 2, 1))
    per = kinds.repeat_interleave(TILE[0], 0).repeat_interleave(TILE[1], 1)
    w = torch.where(per == 0, torch.zeros_like(w), torch.where(per == 2, w24, w))
    return w.to(dtype), kinds.to(torch.uint8)


def pack(w, kinds):
    packed = sparcast.hybrid_pack(w, tile=TILE)
    if not torch.equal(packed.kinds, kinds):
        raise AssertionError("the packing's kinds are not the weight's")
    return packed


def run(entry, packed, x, *extra):
    return entry(packed.kinds, packed.slots, packed.dense, packed.sparse,
                 packed.meta, x, *extra)


def check(module, name, n, k, m, dtype, gen, bias=False):
    """Every mix through entry `name`: relative Frobenius error."""
    out = {}
    for mix_name, mix in MIXES.items():
        w, kinds = make_weight(n, k, dtype, mix, gen)
        packed = pack(w, kinds)
        x = torch.randn(1, m, k, device="cuda", generator=gen).to(dtype)
        ref = x.float() @ w.float().t()
        extra = ()
        if bias:
            b = torch.randn(n, device="cuda", generator=gen)
            extra = (b,)
            ref = torch.relu(ref + b)
        entry = getattr(module, name)
        y = torch.full((1, m, n), float("nan"), device="cuda", dtype=dtype)
        run_out = entry(packed.kinds, packed.slots, packed.dense, packed.sparse,
                        packed.meta, x, *extra, out=[y])
        y = run_out[0] if isinstance(run_out, (list, tuple)) else y
        torch.cuda.synchronize()
        err = rel_fro(y, ref)
        out[mix_name] = {"rel_fro": err, "ok": bool(err < TOLERANCE and
                                                     not torch.isnan(y).any())}
        print("  %s %s: rel_fro %.2e %s" % (name, mix_name, err,
                                           "ok" if out[mix_name]["ok"] else "WRONG"),
              flush=True)
    return out


def check_constant(artifacts, gen):
    """The GEMM of bench/make_hybrid_suite.py --constant, its weight packed
    at compile time (sparcast-aot --hybrid-weights): against the same
    weight rebuilt here."""
    from make_hybrid_suite import constant_weight
    module = sparcast.load(artifacts)
    w = torch.tensor(constant_weight(512, 1024), dtype=torch.float32, device="cuda")
    x = torch.randn(3, 37, 1024, device="cuda", generator=gen).half()
    y = torch.full((3, 37, 512), float("nan"), device="cuda", dtype=torch.float16)
    module.const_f16(x, out=[y])
    torch.cuda.synchronize()
    err = rel_fro(y, x.float() @ w.t())
    ok = bool(err < TOLERANCE and not torch.isnan(y).any())
    print("  const_f16 (packed at compile time): rel_fro %.2e %s" % (err, "ok" if ok else "WRONG"),
          flush=True)
    return {"packed_at_compile_time": {"rel_fro": err, "ok": ok}}


def cusparselt(w, x):
    """A callable running cuSPARSELt on the 2:4 weight, or None where it
    does not run. Tokens are padded to 32 rows (its least dense operand)."""
    try:
        from torch.sparse import to_sparse_semi_structured
        ws = to_sparse_semi_structured(w)
        m = x.shape[1]
        xp = x[0] if m >= 32 else torch.nn.functional.pad(x[0], (0, 0, 0, 32 - m))
        fn = lambda: torch.nn.functional.linear(xp, ws)
        fn()
        torch.cuda.synchronize()
        return fn
    except Exception as err:  # unsupported shape or build
        print("  cuSPARSELt: %s" % str(err).splitlines()[0], flush=True)
        return None


def kernel_us(fns, calls=20):
    """The GPU time per call of each function's kernels (CUDA profiler)."""
    out = {}
    for name, fn in fns.items():
        events = cuda_events(fn, calls)
        out[name] = sum(e.time_range.elapsed_us() for e in events) / calls
    return out


def main():
    global TILE
    parser = argparse.ArgumentParser()
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--shapes", default="11008x4096,4096x11008,8192x8192")
    parser.add_argument("--dtypes", default="bf16,f16")
    parser.add_argument("--mixes", default="all_24,70_24_30_dense,all_dense")
    parser.add_argument("--tokens", default=",".join(map(str, TOKENS)))
    parser.add_argument("--tile", default="%dx%d" % TILE,
                        help="the tile the suite was written for")
    parser.add_argument("--constant-artifacts", default=None,
                        help="also check make_hybrid_suite.py --constant's artifact")
    parser.add_argument("--cusparselt", action="store_true",
                        help="all-2:4 weights only, against cuSPARSELt too")
    args = parser.parse_args()
    TILE = tuple(int(v) for v in args.tile.split("x"))
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    module = sparcast.load(args.artifacts)
    report = {"commit": args.commit, "gpu": torch.cuda.get_device_name(),
              "checks": {}, "timings": []}
    print("correctness", flush=True)
    report["checks"]["check_f16"] = check(module, "check_f16", 256, 512, 19,
                                          torch.float16, gen)
    report["checks"]["check_bf16_bias_relu"] = check(
        module, "check_bf16_bias_relu", 384, 384, 5, torch.bfloat16, gen, bias=True)
    report["checks"]["check_f16_m300"] = check(module, "check_f16_m300", 256, 256,
                                               300, torch.float16, gen)
    if args.constant_artifacts:
        report["checks"]["const_f16"] = check_constant(args.constant_artifacts, gen)
    all_ok = all(v["ok"] for c in report["checks"].values() for v in c.values())
    if args.check_only or not all_ok:
        report["all_ok"] = all_ok
        json.dump(report, open(args.out, "w"), indent=1)
        print("all ok" if all_ok else "FAILURES", flush=True)
        return 0 if all_ok else 1
    print("timings (ms, median of interleaved rounds)", flush=True)
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    dtypes = [(getattr(torch, {"bf16": "bfloat16", "f16": "float16"}[t]), t)
              for t in args.dtypes.split(",")]
    mixes = ["all_24"] if args.cusparselt else args.mixes.split(",")
    for n, k in shapes:
        for dtype, tname in dtypes:
            for mix_name in mixes:
                w, kinds = make_weight(n, k, dtype, MIXES[mix_name], gen)
                packed = pack(w, kinds)
                for m in [int(t) for t in args.tokens.split(",")]:
                    name = "linear_%dx%d_m%d_%s" % (n, k, m, tname)
                    entry = getattr(module, name)
                    x = torch.randn(1, m, k, device="cuda", generator=gen).to(dtype)
                    y = run(entry, packed, x)
                    y = y[0] if isinstance(y, (list, tuple)) else y
                    err = rel_fro(y, x.float() @ w.float().t())
                    fns = {"sparcast": lambda: run(entry, packed, x),
                           "cublas": lambda: torch.nn.functional.linear(x, w)}
                    if args.cusparselt:
                        sp = cusparselt(w, x)
                        if not sp:
                            continue
                        fns["cusparselt"] = sp
                    ms = compare_ms(fns, rounds=5, iters=20)
                    us = kernel_us(fns)
                    row = {"n": n, "k": k, "m": m, "dtype": tname, "mix": mix_name,
                           "rel_fro": err, "ms": ms, "kernel_us": us,
                           "vs_cublas": ms["cublas"] / ms["sparcast"],
                           "kernel_vs_cublas": us["cublas"] / us["sparcast"]}
                    if "cusparselt" in ms:
                        row["vs_cusparselt"] = ms["cusparselt"] / ms["sparcast"]
                        row["kernel_vs_cusparselt"] = us["cusparselt"] / us["sparcast"]
                    report["timings"].append(row)
                    json.dump(report, open(args.out, "w"), indent=1)
                    print("  %5d x %5d m %4d %s %-15s ms ours %.4f cublas %.4f%s -> %.2fx | "
                          "kernel us ours %.1f cublas %.1f%s -> %.2fx (err %.1e)" % (
                              n, k, m, tname, mix_name, ms["sparcast"], ms["cublas"],
                              " cusparselt %.4f" % ms["cusparselt"] if "cusparselt" in ms else "",
                              row["vs_cublas"], us["sparcast"], us["cublas"],
                              " cusparselt %.1f" % us["cusparselt"] if "cusparselt" in us else "",
                              row["kernel_vs_cublas"], err), flush=True)
                del w, packed
    report["all_ok"] = all_ok
    json.dump(report, open(args.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
