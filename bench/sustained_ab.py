"""A/B of builds at the H200's power cap: each build's kernel run alone for
a few seconds (gemm_check.sustained_ms, the GPU's clock and power sampled
under that load), in both orders, then the same builds in interleaved
rounds (compare_ms). The two can disagree: a change that draws less power
(e.g. fewer bytes from L2) raises the clock the kernel holds alone more
than it shows next to other kernels.

  python3 bench/sustained_ab.py --case target --builds NEW_DIR,bench/artifacts
  python3 bench/sustained_ab.py --case lce --builds bench/artifacts/lce,bench/artifacts/lce_mc
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import compare_ms, sustained_ms  # noqa: E402
from lce_check import make_index  # noqa: E402
from attention_check import target_inputs  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", choices=("target", "lce"), required=True)
    p.add_argument("--builds", required=True,
                   help="comma-separated: artifact folders holding target_attention (--case target), "
                        "or LCE artifact folders (--case lce)")
    p.add_argument("--seconds", type=float, default=6.0)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    u = lambda shape: (torch.rand(shape, generator=gen, device="cuda") - 0.5).half()
    builds = args.builds.split(",")
    if args.case == "target":
        idx, q, k, v = target_inputs(1024, gen)
        B, H, L, d = q.shape
        S = k.shape[2]
        o = torch.empty_like(q)
        flops = 4 * B * H * L * d * S
        entries = [sparcast.load(os.path.join(b, "target_attention")).target_attention for b in builds]
        fns = {b: (lambda f=f: f(q, k, v, idx, out=[o])) for b, f in zip(builds, entries)}
    else:
        M, N, ku, kc, B, users = 433, 256, 1178, 866, 1024, 15
        w, eu, ec = u((M, ku + kc)), u((users, ku, N)), u((B, kc, N))
        idx = make_index(users, B, gen, uneven=False)
        o = torch.empty((B, M, N), dtype=torch.float16, device="cuda")
        flops = 2 * M * N * (ku * users + kc * B)
        entries = [sparcast.load(b).lce for b in builds]
        fns = {b: (lambda f=f: f(w, eu, ec, idx, out=[o])) for b, f in zip(builds, entries)}
    rows = []
    for r in range(2):
        for b in (builds if r == 0 else builds[::-1]):
            state = {}
            ms = sustained_ms(fns[b], seconds=args.seconds, state=state)
            rows.append({"build": b, "sustained_ms": ms, "tflops": flops / ms / 1e9, "gpu_state": state})
            print("%-40s alone %.4f ms (%.0f TFLOP/s) at %s MHz, %s W" % (
                b, ms, flops / ms / 1e9, state.get("sm_clock_mhz"), state.get("power_w")), flush=True)
    inter = compare_ms(fns, rounds=20)
    for b, ms in inter.items():
        print("%-40s interleaved %.4f ms (%.0f TFLOP/s)" % (b, ms, flops / ms / 1e9))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"case": args.case, "sustained": rows, "interleaved_ms": inter}, f, indent=1)


if __name__ == "__main__":
    main()
