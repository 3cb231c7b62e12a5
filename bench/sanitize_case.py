"""Small cases of every compiled kernel, for compute-sanitizer (memcheck,
racecheck, synccheck): run by scripts/sanitize.sh on the GPU machine. Checks
results too, so a clean report is also a correct one.

    compute-sanitizer --tool memcheck python3 bench/sanitize_case.py --artifacts bench/artifacts
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import SCHEDULES, rel_fro, uniform  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", required=True)
    p.add_argument("--only", default="", help="comma-separated: gemm, fused, attention (default: all)")
    args = p.parse_args()
    only = set(filter(None, args.only.split(",")))
    want = lambda group: not only or group in only
    gen = torch.Generator(device="cuda")
    gen.manual_seed(11)
    f16 = torch.float16
    bad = 0
    for suffix, schedule in (SCHEDULES.items() if want("gemm") else []):
        suite = sparcast.load(os.path.join(args.artifacts, "gemm_suite" + suffix))
        example = sparcast.load(os.path.join(args.artifacts, "gemm" + suffix))
        lce = sparcast.load(os.path.join(args.artifacts, "lce" + suffix))
        B = 3
        w = uniform((433, 872), f16, gen)
        e = uniform((B, 872, 256), f16, gen)
        x = uniform((B, 433, 872), f16, gen)
        wt = uniform((256, 872), f16, gen)
        user = uniform((2, 433, 256), torch.float32, gen)
        idx = torch.tensor([1, 0, 1], dtype=torch.int32, device="cuda")
        cases = [
            ("shared_w", lambda o: suite.shared_w_f16(w, e, out=[o]), torch.matmul(w.float(), e.float())),
            ("bmm", lambda o: suite.bmm_f16(x, e, out=[o]), torch.bmm(x.float(), e.float())),
            ("linear", lambda o: suite.linear_f16(x, wt, out=[o]), torch.matmul(x.float(), wt.float().t())),
            ("gather_add", lambda o: example.gemm_gather_add(w, e, user, idx, out=[o]),
             torch.matmul(w.float(), e.float()) + user[idx.long()]),
        ]
        ku, kc, users, Bl = 1178, 866, 3, 9
        wl = uniform((433, ku + kc), f16, gen)
        eu = uniform((users, ku, 256), f16, gen)
        ec = uniform((Bl, kc, 256), f16, gen)
        il = torch.tensor([2, 0, 1, 1, 0, 2, 2, 1, 0], dtype=torch.int32, device="cuda")
        ref = torch.matmul(wl.float(), torch.cat([eu.float()[il.long()], ec.float()], 1))
        cases.append(("lce", lambda o: lce.lce(wl, eu, ec, il, out=[o]), ref))
        for name, run, ref in cases:
            out = torch.full(ref.shape, float("nan"), dtype=f16, device="cuda")
            run(out)
            torch.cuda.synchronize()
            err = rel_fro(out, ref)
            ok = err <= 2e-3
            bad += not ok
            print("[%s] %-10s rel_fro %.2e %s" % (schedule, name, err, "ok" if ok else "FAIL"), flush=True)
    # The multi-stage IKBO GEMM (user GEMM as stage 1, flags between the
    # stages), both schedules, on uneven shuffled users.
    ku, kc, users, Bl = 1178, 866, 3, 9
    for name in (("lce_fused", "lce_fused_cooperative") if want("fused") else ()):
        lce = sparcast.load(os.path.join(args.artifacts, name))
        wl = uniform((433, ku + kc), f16, gen)
        eu = uniform((users, ku, 256), f16, gen)
        ec = uniform((Bl, kc, 256), f16, gen)
        il = torch.tensor([2, 0, 1, 1, 0, 2, 2, 1, 0], dtype=torch.int32, device="cuda")
        ref = torch.matmul(wl.float(), torch.cat([eu.float()[il.long()], ec.float()], 1))
        out = torch.full(ref.shape, float("nan"), dtype=f16, device="cuda")
        lce.lce(wl, eu, ec, il, out=[out])
        torch.cuda.synchronize()
        err = rel_fro(out, ref)
        bad += err > 2e-3
        print("[%s] rel_fro %.2e %s" % (name, err, "ok" if err <= 2e-3 else "FAIL"), flush=True)
    # Target attention: pairs of candidates of one user and of two users,
    # an odd count, S not a multiple of the key block.
    if want("attention"):
        import torch.nn.functional as F
        suite = sparcast.load(os.path.join(args.artifacts, "attention_suite"))
        users, B = 2, 5
        q = uniform((B, 2, 64, 128), f16, gen)
        k = uniform((users, 2, 1000, 128), f16, gen)
        v = uniform((users, 2, 1000, 128), f16, gen)
        idx = torch.tensor([0, 0, 1, 0, 1], dtype=torch.int32, device="cuda")
        ref = F.scaled_dot_product_attention(q.float(), k.float()[idx.long()], v.float()[idx.long()])
        out = torch.full(ref.shape, float("nan"), dtype=f16, device="cuda")
        suite.ta_s1000(q, k, v, idx, out=[out])
        torch.cuda.synchronize()
        err = rel_fro(out, ref)
        bad += err > 2e-3
        print("[target attention] rel_fro %.2e %s" % (err, "ok" if err <= 2e-3 else "FAIL"), flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
