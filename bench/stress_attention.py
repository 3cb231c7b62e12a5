"""Runs the target attention many times on small batches (1-9 candidates
of 1-4 requests, fresh random index orders), so that every kind of CTA the
build makes comes up (two candidates of one request, of two requests, a
candidate alone next to an idle consumer), natively (no sanitizer): a
liveness check, bounded by the caller's timeout. Every 50th round's output
is checked against fp32.

    python3 bench/stress_attention.py --artifacts bench/artifacts [--rounds N]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import rel_fro, uniform  # noqa: E402
from sanitize_case import attention_ref  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", required=True)
    p.add_argument("--rounds", type=int, default=2000)
    args = p.parse_args()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    suite = sparcast.load(os.path.join(args.artifacts, "attention_suite"))
    worst = 0.0
    for r in range(args.rounds):
        users = 1 + r % 4
        B = 1 + (r * 7) % 9
        idx = torch.randint(0, users, (B,), generator=gen, device="cuda", dtype=torch.int32)
        q = uniform((B, 2, 64, 128), torch.float16, gen)
        k = uniform((users, 2, 1000, 128), torch.float16, gen)
        v = uniform((users, 2, 1000, 128), torch.float16, gen)
        out = torch.full_like(q, float("nan"))
        suite.ta_s1000(q, k, v, idx, out=[out])
        torch.cuda.synchronize()
        if r % 50 == 0 or r == args.rounds - 1:
            ref = attention_ref(q.float(), k.float()[idx.long()], v.float()[idx.long()])
            err = rel_fro(out.float(), ref)
            worst = max(worst, err)
            if not err < 2e-3:
                print("round %d users=%d index=%s: rel_fro %.2e FAIL" % (r, users, idx.tolist(), err))
                sys.exit(1)
    print("%d rounds finished, worst checked rel_fro %.2e" % (args.rounds, worst))


if __name__ == "__main__":
    main()
