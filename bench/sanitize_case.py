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


def lce_case(entry, gen):
    """The IKBO LCE on 3 uneven, shuffled users and 9 candidates: a run into
    an output, and its fp32 reference."""
    f16 = torch.float16
    ku, kc, users, B = 1178, 866, 3, 9
    w = uniform((433, ku + kc), f16, gen)
    eu = uniform((users, ku, 256), f16, gen)
    ec = uniform((B, kc, 256), f16, gen)
    idx = torch.tensor([2, 0, 1, 1, 0, 2, 2, 1, 0], dtype=torch.int32, device="cuda")
    ref = torch.matmul(w.float(), torch.cat([eu.float()[idx.long()], ec.float()], 1))
    return (lambda o: entry(w, eu, ec, idx, out=[o])), ref


def attention_ref(q, k, v, mask=None):
    """fp32 attention by plain matmuls: torch's fused SDPA kernels have
    racecheck hazards of their own (fmha_cutlassF, 2026-11-29), which would
    drown ours."""
    s = torch.matmul(q, k.transpose(-1, -2)) / q.shape[-1] ** 0.5
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def check(label, run, ref, dtype=torch.float16, tol=2e-3):
    """Runs into a NaN-poisoned output, compares with the reference,
    prints the verdict; True when within `tol`."""
    out = torch.full(ref.shape, float("nan"), dtype=dtype, device="cuda")
    run(out)
    torch.cuda.synchronize()
    err = rel_fro(out, ref)
    ok = err <= tol
    print("%-22s rel_fro %.2e %s" % (label, err, "ok" if ok else "FAIL"), flush=True)
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", required=True)
    p.add_argument("--only", default="",
                   help="comma-separated: gemm, indices, attention, loglinear, hybrid (default: all)")
    args = p.parse_args()
    only = set(filter(None, args.only.split(",")))
    want = lambda group: not only or group in only
    load = lambda name: sparcast.load(os.path.join(args.artifacts, name))
    gen = torch.Generator(device="cuda")
    gen.manual_seed(11)
    f16 = torch.float16
    bad = 0
    for suffix, schedule in (SCHEDULES.items() if want("gemm") else []):
        # (Schedules not compiled into this artifact folder are skipped.)
        if not os.path.isdir(os.path.join(args.artifacts, "gemm_suite" + suffix)):
            continue
        suite = load("gemm_suite" + suffix)
        example = load("gemm" + suffix)
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
            ("linear_residual", lambda o: suite.linear_residual_f16(x, wt, x[:, :, :256].contiguous(), out=[o]),
             torch.matmul(x.float(), wt.float().t()) + x[:, :, :256].float()),
            ("gather_add", lambda o: example.gemm_gather_add(w, e, user, idx, out=[o]),
             torch.matmul(w.float(), e.float()) + user[idx.long()]),
            # The request result in f16: its tiles come by TMA (prefetch).
            ("gather_add_f16_user", lambda o: suite.gather_add_f16_user(w, e, user.half(), idx, out=[o]),
             torch.matmul(w.float(), e.float()) + user.half().float()[idx.long()]),
            ("lce",) + lce_case(load("lce" + suffix).lce, gen),
        ]
        # Split-K: 12 tiles in 8 parts, 32 in 4, 128 in none (the parts'
        # stores, counts and sums, and the kernel's path without them).
        tw = uniform((1024, 4096), torch.bfloat16, gen)
        tb = uniform((1024,), torch.float32, gen)
        for rows in ((300, 1000, 4000) if hasattr(suite, "tower_bf16") else ()):
            tx = uniform((rows, 1, 4096), torch.bfloat16, gen)
            cases.append(("tower_split_k B=%d" % rows,
                          lambda o, tx=tx: suite.tower_bf16(tx, tw, tb, out=[o]),
                          torch.relu(torch.matmul(tx.float(), tw.float().t()) + tb),
                          torch.bfloat16, 1e-2))
        for name, run, ref, *dtype_tol in cases:
            bad += not check("[%s] %s" % (schedule, name), run, ref, *dtype_tol)
    # SC_RUN_CHECK_INDICES: an index past its bound is refused before any
    # kernel runs (under memcheck: nothing read or written out of bounds).
    if want("indices"):
        example = load("gemm")
        w = uniform((433, 872), f16, gen)
        e = uniform((3, 872, 256), f16, gen)
        user = uniform((2, 433, 256), torch.float32, gen)
        out = torch.full((3, 433, 256), float("nan"), dtype=f16, device="cuda")
        for index in ([1, 2, 0], [0, -1, 1], [0, 1, 2 ** 31 - 1]):
            idx = torch.tensor(index, dtype=torch.int32, device="cuda")
            try:
                example.gemm_gather_add(w, e, user, idx, out=[out], check_indices=True)
                refused, message = False, "ran"
            except sparcast.SparcastError as err:
                refused, message = True, str(err)
            torch.cuda.synchronize()
            untouched = bool(torch.isnan(out).all())
            ok = refused and "index" in message and untouched
            print("%s index %s refused: %s" % ("ok  " if ok else "FAIL", index, message))
            bad += not ok
    # Target attention: candidates of one user and of two users, an odd
    # count, S not a multiple of the key block; at S = 1000 one consumer a
    # candidate, at S = 2000 pairs of candidates (the pairing kernel first).
    if want("attention"):
        # SPARCAST_SANITIZE_INDEX="0,0,1,1" picks the candidates' users.
        index = [int(u) for u in os.environ.get("SPARCAST_SANITIZE_INDEX", "0,0,1,0,1").split(",")]
        users, B = max(index) + 1, len(index)
        idx = torch.tensor(index, dtype=torch.int32, device="cuda")
        suite = load("attention_suite")
        builds = [("", suite)]
        runs = [("", 1000, suite.ta_s1000), ("", 2000, suite.ta_s2000)]
        if os.path.isdir(os.path.join(args.artifacts, "attention_suite_grouped")):
            # The walk in request order (--attention-group-candidates): the
            # grouping kernel too, on unsorted and out-of-range indices.
            grouped = load("attention_suite_grouped")
            builds.append((" grouped", grouped))
            runs += [(" grouped", S, getattr(grouped, "ta_s%d" % S)) for S in (512, 1000, 2000)]
        for label, S, entry in runs:
            q = uniform((B, 2, 64, 128), f16, gen)
            k = uniform((users, 2, S, 128), f16, gen)
            v = uniform((users, 2, S, 128), f16, gen)
            ref = attention_ref(q.float(), k.float()[idx.long()], v.float()[idx.long()])
            bad += not check("[target attention S=%d%s]" % (S, label),
                             lambda o, f=entry, q=q, k=k, v=v: f(q, k, v, idx, out=[o]), ref)
        # Out-of-range entries (index checks are off by default): the
        # grouping puts those candidates last; nothing may be read or
        # written outside the tensors, and the others stay right.
        wild = torch.tensor([0, 2, 1, -1, 0], dtype=torch.int32, device="cuda")
        fine = ((wild >= 0) & (wild < 2)).nonzero().flatten()
        q = uniform((5, 2, 64, 128), f16, gen)
        k = uniform((2, 2, 1000, 128), f16, gen)
        v = uniform((2, 2, 1000, 128), f16, gen)
        ref = attention_ref(q[fine].float(), k.float()[wild[fine].long()], v.float()[wild[fine].long()])
        for label, build in builds:
            out = torch.full((5, 2, 64, 128), float("nan"), dtype=f16, device="cuda")
            build.ta_s1000(q, k, v, wild, out=[out])
            bad += not check("[target attention, indices out of range%s]" % label,
                             lambda o, out=out: o.copy_(out[fine]), ref)
    if want("loglinear"):
        suite = load("attention_suite")
        # Log-linear, 128-key blocks (K and V on separate barriers).
        from attention_check import dense_mask
        q, k, v = (uniform((2, 2, 1024, 128), torch.bfloat16, gen) for _ in range(3))
        m = dense_mask(1024, 128, False)
        ref = attention_ref(q.float(), k.float(), v.float(), m)
        # (bf16: its own rounding is ~2e-3 relative.)
        bad += not check("[log-linear attention]", lambda o: suite.ll_n1024_b128(q, k, v, out=[o]), ref,
                         torch.bfloat16, 1e-2)
        # Log-linear, causal, 64-key blocks (one consumer per CTA, two CTAs
        # per SM).
        q, k, v = (uniform((2, 2, 1024, 128), torch.bfloat16, gen) for _ in range(3))
        m = dense_mask(1024, 64, True)
        ref = attention_ref(q.float(), k.float(), v.float(), m)
        bad += not check("[log-linear attention, 64-key blocks]",
                         lambda o: suite.ll_n1024_b64_causal(q, k, v, out=[o]), ref, torch.bfloat16, 1e-2)
    for build in ("hybrid_suite",):
        if not want("hybrid") or not os.path.isdir(os.path.join(args.artifacts, build)):
            continue
        # Hybrid dense / 2:4 / zero tiles: one consumer (19 tokens) and two
        # (300 tokens: prefill's 128 weight rows a CTA).
        from hybrid_check import MIXES, make_weight, pack
        suite = load(build)
        for entry, n, k, m in (("check_f16", 256, 512, 19), ("check_f16_m300", 256, 256, 300)):
            w, kinds = make_weight(n, k, f16, MIXES["50_50_zero"], gen)
            packed = pack(w, kinds)
            x = uniform((1, m, k), f16, gen)
            bad += not check("[%s %s]" % (build, entry), lambda o, suite=suite, entry=entry, packed=packed, x=x: getattr(suite, entry)(
                packed.kinds, packed.slots, packed.dense, packed.sparse, packed.meta, x, out=[o]),
                x.float() @ w.float().t())
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
