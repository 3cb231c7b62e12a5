"""A/B of two builds on a few headline cases (target attention S=512, 1024,
2048, 4096 and 8192, S=1024 with the candidates shuffled, log-linear N=16384 with blocks of 128 and 64 and
N=65536, and the LCE when both builds have it), nothing
else in between (no peers: their load changes clocks), many interleaved
rounds: for effects of a few percent. Correctness is the checks' job.

  python3 bench/ab_quick.py --artifacts bench/artifacts/NEW --baseline bench/artifacts
"""
import argparse, json, os, statistics, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import batch_ms  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", required=True)
    p.add_argument("--baseline", required=True)
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    gen = torch.Generator(device="cuda"); gen.manual_seed(0)
    u = lambda shape, t: (torch.rand(shape, generator=gen, device="cuda") - 0.5).to(t)
    load = lambda d, name: sparcast.load(os.path.join(d, name))
    B, H, L, d, users = 2048, 2, 64, 128, 32
    idx = torch.clamp(torch.arange(B, device="cuda") * users // B, max=users - 1).to(torch.int32)
    cases = []
    for S, module, entry in ((512, "attention_suite", "ta_speed_s512"),
                             (1024, "target_attention", "target_attention"),
                             (2048, "attention_suite", "ta_speed_s2048"),
                             (4096, "attention_suite", "ta_speed_s4096"),
                             (8192, "attention_suite", "ta_speed_s8192")):
        q, k, v = u((B, H, L, d), torch.float16), u((users, H, S, d), torch.float16), u((users, H, S, d), torch.float16)
        o = torch.empty_like(q)
        fns = [getattr(load(x, module), entry) for x in (args.artifacts, args.baseline)]
        cases.append(("target attention S=%d" % S,
                      [lambda f=f, q=q, k=k, v=v, o=o: f(q, k, v, idx, out=[o]) for f in fns]))
    # S=1024 with the candidates in random order (attention_check's shuffled row).
    perm = torch.randperm(B, device="cuda", generator=gen)
    idx_shuffled = idx[perm].contiguous()
    fns = [load(x, "target_attention").target_attention for x in (args.artifacts, args.baseline)]
    q, k, v = u((B, H, L, d), torch.float16), u((users, H, 1024, d), torch.float16), u((users, H, 1024, d), torch.float16)
    o = torch.empty_like(q)
    cases.append(("target attention S=1024 shuffled",
                  [lambda f=f, q=q, k=k, v=v, o=o: f(q, k, v, idx_shuffled, out=[o]) for f in fns]))
    q, k, v = (u((4, 16, 16384, 128), torch.bfloat16) for _ in range(3))
    o2 = torch.empty_like(q)
    fns = [load(x, "loglinear_attention").loglinear_attention for x in (args.artifacts, args.baseline)]
    cases.append(("log-linear N=16384", [lambda f=f, q=q, k=k, v=v: f(q, k, v, out=[o2]) for f in fns]))
    # Blocks of 64: the one-consumer kernel (the example's 128 run two).
    fns = [load(x, "attention_suite").ll_speed_n16384_b64 for x in (args.artifacts, args.baseline)]
    cases.append(("log-linear N=16384 blocks of 64",
                  [lambda f=f, q=q, k=k, v=v: f(q, k, v, out=[o2]) for f in fns]))
    del q, k, v
    q, k, v = (u((4, 16, 65536, 128), torch.bfloat16) for _ in range(3))
    o3 = torch.empty_like(q)
    fns = [load(x, "attention_suite").ll_speed_n65536 for x in (args.artifacts, args.baseline)]
    cases.append(("log-linear N=65536", [lambda f=f, q=q, k=k, v=v: f(q, k, v, out=[o3]) for f in fns]))
    # The IKBO LCE at the reference shapes, when both builds have it.
    if all(os.path.isdir(os.path.join(x, "lce")) for x in (args.artifacts, args.baseline)):
        from lce_check import make_index  # noqa: E402
        w, eu = u((433, 2044), torch.float16), u((15, 1178, 256), torch.float16)
        ec, ix = u((1024, 866, 256), torch.float16), make_index(15, 1024, gen, True)
        out = torch.empty((1024, 433, 256), dtype=torch.float16, device="cuda")
        fns = [load(x, "lce").lce for x in (args.artifacts, args.baseline)]
        cases.append(("LCE reference shapes", [lambda f=f: f(w, eu, ec, ix, out=[out]) for f in fns]))
    rows = []
    for name, (new, old) in cases:
        new(); old(); torch.cuda.synchronize()
        ratios, t_new, t_old = [], [], []
        for r in range(args.rounds):
            pair = [(new, t_new), (old, t_old)] if r % 2 == 0 else [(old, t_old), (new, t_new)]
            for fn, ts in pair:
                ts.append(batch_ms(fn, 5))
            ratios.append(t_old[-1] / t_new[-1])
        row = {"case": name, "new_ms": statistics.median(t_new), "baseline_ms": statistics.median(t_old),
               "speedup_median_of_rounds": statistics.median(ratios),
               "speedup_quartiles": statistics.quantiles(ratios, n=4)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
