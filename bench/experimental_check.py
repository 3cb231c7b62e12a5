"""Experimental kernels on the GPU, in a process of their own (a hang or a
fault here does not cost the main checks): TMA multicast GEMMs
(sparcast-aot --gemm-multicast) and target attention walking its
candidates in request order (--attention-group-candidates). Each is checked against an fp32 reference on fresh
inputs, then timed against the default kernels in the same process.

    python3 bench/experimental_check.py --artifacts bench/artifacts --out experimental.json
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from lce_check import make_index  # noqa: E402
from gemm_check import TOLERANCE, check_tma_kernels, compare_ms, gpu_state, record_sustained, rel_fro, setup, uniform, write_results  # noqa: E402
from attention_check import target_inputs  # noqa: E402


def record(results, case, out, ref, peer_err=None, whole=None):
    """One correctness row: `out` within TOLERANCE of the fp32 `ref` and
    finite, as is `whole` when given (the output `out` is a part of); with
    torch's own error `peer_err`, when given, printed beside."""
    err = rel_fro(out, ref)
    ok = bool(torch.isfinite(out if whole is None else whole).all().item()) and err <= TOLERANCE
    peer = "" if peer_err is None else " (torch SDPA in float16: %.2e)" % peer_err
    print("  %-58s rel_fro %.2e%s %s" % (case, err, peer, "ok" if ok else "FAIL"), flush=True)
    row = {"case": case, "rel_fro": err, "ok": ok}
    if peer_err is not None:
        row["torch_same_dtype_rel_fro"] = peer_err
    results["correctness"].append(row)



def main():
    args, gen, header = setup()
    results = dict(header, workload="experimental: gemm multicast, grouped target attention",
                   correctness=[], speed=[])
    f16 = torch.float16
    art = lambda name: sparcast.load(os.path.join(args.artifacts, name))
    # A folder of attention artifacts only (bench/artifacts/ir: the kernels
    # lowered from their kernel-level IR) runs the grouped checks alone.
    if os.path.isdir(os.path.join(args.artifacts, "gemm_suite_mc")):
        multicast_check(art, args, gen, results)
    grouped_check(art, gen, results)
    write_results(results, args.out)


def multicast_check(art, args, gen, results):
    """GEMMs and the LCE with B shared by TMA multicast in CTA pairs:
    checked, then timed against the default kernels."""
    f16 = torch.float16
    print("== GEMM with B shared by TMA multicast in CTA pairs (fp32 reference)", flush=True)
    check_tma_kernels("[multicast] ", art("gemm_suite_mc"), art("gemm_mc"), gen, results["correctness"])
    lce = art("lce").lce
    # Multicast with each warp-specialized schedule (cooperative: 128-row
    # tiles, the fewest L2 bytes per flop).
    variants = {name: art(name).lce for name in ("lce_mc", "lce_mc_cooperative")
                if os.path.isdir(os.path.join(args.artifacts, name))}
    B, users, ku, kc = 1024, 15, 1178, 866
    w = uniform((433, ku + kc), f16, gen)
    e_user = uniform((users, ku, 256), f16, gen)
    e_cand = uniform((B, kc, 256), f16, gen)
    idx = make_index(users, B, gen, True)
    ref = torch.matmul(w.float(), torch.cat([e_user.float()[idx.long()], e_cand.float()], 1))
    out = torch.full((B, 433, 256), float("nan"), dtype=f16, device="cuda")
    for name, entry in variants.items():
        out.fill_(float("nan"))
        entry(w, e_user, e_cand, idx, out=[out])
        torch.cuda.synchronize()
        err = rel_fro(out, ref)
        ok = bool(torch.isfinite(out).all().item()) and err <= TOLERANCE
        print("  [%s] lce B=1024 users=15 shuffled rel_fro %.2e %s" % (name, err, "ok" if ok else "FAIL"),
              flush=True)
        results["correctness"].append({"case": "[%s] lce" % name, "rel_fro": err, "ok": ok})
    runs = {"default": lambda: lce(w, e_user, e_cand, idx, out=[out])}
    for name, entry in variants.items():
        runs[name] = (lambda e: lambda: e(w, e_user, e_cand, idx, out=[out]))(entry)
    ms = compare_ms(runs)
    row = {"case": "LCE reference shapes", "default_ms": ms["default"]}
    for name in variants:
        row[name + "_ms"] = ms[name]
        row["speedup_" + name] = ms["default"] / ms[name]
    row["gpu_state_after"] = gpu_state()
    results["speed"].append(row)
    print("  " + json.dumps(row), flush=True)
    suite, suite_mc = art("gemm_suite"), art("gemm_suite_mc")
    a = uniform((8192, 8192), torch.bfloat16, gen)
    b = uniform((1, 8192, 8192), torch.bfloat16, gen)
    o = torch.empty((1, 8192, 8192), dtype=torch.bfloat16, device="cuda")
    ms = compare_ms({"default": lambda: suite.square_bf16(a, b, out=[o]),
                     "multicast": lambda: suite_mc.square_bf16(a, b, out=[o]),
                     "cublas": lambda: torch.matmul(a, b[0])})
    row = dict({"case": "bf16 8192^3"}, **{k + "_ms": v for k, v in ms.items()})
    row["gpu_state_after"] = gpu_state()
    results["speed"].append(row)
    print("  " + json.dumps(row), flush=True)


def grouped_check(art, gen, results):
    """--attention-group-candidates: a grouping kernel sorts the candidates
    by request; the chained kernel walks them in that order (S <= 1024),
    the pairs kernel takes the grouping's pairs (longer keys). Suite cases
    of both and past 8192 requests on sorted, shuffled and uneven indices; then both timed against the default on sorted and
    shuffled candidates (S = 1024 also alone)."""
    f16 = torch.float16
    suite = art("attention_suite_grouped")
    print("== target attention walking candidates in request order (fp32 SDPA reference)")
    # S <= 1024: the chained walk; longer: the pairs kernel, its pairs made
    # by the grouping kernel (by position).
    for name, H, L, S in (("ta_s500", 2, 64, 500), ("ta_s512", 2, 64, 512), ("ta_s1000", 2, 64, 1000),
                          ("ta_s1024", 2, 64, 1024), ("ta_h4_seed32", 4, 32, 512), ("ta_s2000", 2, 64, 2000),
                          ("ta_s2048", 2, 64, 2048), ("ta_s4096", 2, 64, 4096)):
        for users, B, shuffle in ((7, 33, False), (5, 64, True), (32, 2048 if S <= 2048 else 512, True)):
            q = uniform((B, H, L, 128), f16, gen)
            k = uniform((users, H, S, 128), f16, gen)
            v = uniform((users, H, S, 128), f16, gen)
            idx = make_index(users, B, gen, shuffle)
            il = idx.long()
            ref = F.scaled_dot_product_attention(q.float(), k.float()[il], v.float()[il])
            out = torch.full((B, H, L, 128), float("nan"), dtype=f16, device="cuda")
            getattr(suite, name)(q, k, v, idx, out=[out])
            torch.cuda.synchronize()
            record(results, "grouped %s users=%d B=%d%s" % (name, users, B, " shuffled" if shuffle else ""),
                   out, ref)
    # More than 8192 requests: the grouping keeps the index's order (its
    # counts live in shared memory); the first 128 candidates checked.
    users = B = 8200
    q = uniform((B, 2, 64, 128), f16, gen)
    k = uniform((users, 2, 512, 128), f16, gen)
    v = uniform((users, 2, 512, 128), f16, gen)
    idx = make_index(users, B, gen, True)
    il = idx[:128].long()
    ref = F.scaled_dot_product_attention(q[:128].float(), k[il].float(), v[il].float())
    out = torch.full((B, 2, 64, 128), float("nan"), dtype=f16, device="cuda")
    suite.ta_s512(q, k, v, idx, out=[out])
    torch.cuda.synchronize()
    record(results, "grouped ta_s512 users=8200 B=8200 shuffled (index order kept)", out[:128], ref,
           whole=out)
    del q, k, v, out
    print("== speed: target attention S=2048 / 8192 (pairs), grouped vs default, interleaved")
    for S in (2048, 8192):
        for shuffled in (False, True):
            idx, q, k, v = target_inputs(S, gen, shuffled)
            out = torch.empty_like(q)
            g, dflt = getattr(suite, "ta_speed_s%d" % S), getattr(art("attention_suite"), "ta_speed_s%d" % S)
            ms = compare_ms({"grouped": lambda: g(q, k, v, idx, out=[out]),
                             "default": lambda: dflt(q, k, v, idx, out=[out])}, rounds=10)
            row = {"case": "target attention S=%d%s, grouped pairs" % (S, " shuffled" if shuffled else ""),
                   "grouped_ms": ms["grouped"], "default_ms": ms["default"],
                   "speedup_vs_default": ms["default"] / ms["grouped"]}
            results["speed"].append(row)
            print("  %s: grouped %.4f ms, default %.4f ms (%.3fx)" % (
                row["case"], ms["grouped"], ms["default"], row["speedup_vs_default"]), flush=True)
            del q, k, v, out
    print("== speed: target attention S=1024, candidates walked in request order vs as the index lists them")
    plain = art("target_attention").target_attention
    grouped = art("target_attention_grouped").target_attention
    flops = 4 * 2048 * 2 * 64 * 128 * 1024
    for shuffled in (False, True):
        idx, q, k, v = target_inputs(1024, gen, shuffled)
        out = torch.empty_like(q)
        fns = {"grouped": lambda: grouped(q, k, v, idx, out=[out]), "default": lambda: plain(q, k, v, idx, out=[out])}
        ms = compare_ms(fns, rounds=10)
        row = {"case": "target attention S=1024%s, grouped walk" % (" shuffled" if shuffled else ""),
               "grouped_ms": ms["grouped"], "default_ms": ms["default"],
               "speedup_vs_default": ms["default"] / ms["grouped"]}
        for name, fn in fns.items():
            record_sustained(row, name, fn, flops)
        row["speedup_vs_default_sustained"] = row["default_sustained_ms"] / row["grouped_sustained_ms"]
        results["speed"].append(row)
        print("  %s: grouped %.4f ms, default %.4f ms (%.3fx); alone %.4f / %.4f ms (%.3fx)" % (
            row["case"], ms["grouped"], ms["default"], row["speedup_vs_default"], row["grouped_sustained_ms"],
            row["default_sustained_ms"], row["speedup_vs_default_sustained"]), flush=True)


if __name__ == "__main__":
    main()
