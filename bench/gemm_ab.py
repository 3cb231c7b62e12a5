"""A/B of GEMM builds at the LCE's shapes: the IKBO LCE (reference shapes,
B=1024, 15 users), the plain shared-W GEMM (1024 x 433x256x872) and the
same shapes as x @ w^T (--linear) and x @ w^T + r (--linear-residual), from
any number of artifact folders, each checked against the fp32 reference
(the LCE by FBGEMM's rule, the GEMM by relative Frobenius error), then
timed in interleaved rounds (CUDA events, median). For kernel variants;
the full checks are gemm_check.py and lce_check.py.

  python3 bench/gemm_ab.py --lce bench/artifacts/lce_pingpong bench/artifacts/exp/lce [--lce-shapes 1024:15,512:256] \
      --shared-w bench/artifacts/gemm_suite_pingpong bench/artifacts/exp/gemm_suite --out ab.json
"""
import argparse, json, os, statistics, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import batch_ms  # noqa: E402
from lce_check import make_index  # noqa: E402


def timed_rounds(fns, rounds):
    """Median ms of each fn over interleaved rounds of 5 calls."""
    times = [[] for _ in fns]
    for f in fns:
        f()
    torch.cuda.synchronize()
    for r in range(rounds):
        order = list(range(len(fns)))
        if r % 2:
            order.reverse()
        for i in order:
            times[i].append(batch_ms(fns[i], 5))
    return [statistics.median(t) for t in times]


def plain_gemm(rows, name, case, folders, entry, inputs, ref, peer, rounds):
    """A GEMM without an epilogue from each folder's `entry`: checked against
    the fp32 `ref` (relative Frobenius error) into a NaN-poisoned result,
    then timed with torch's `peer` in interleaved rounds; rows appended."""
    fns = []
    for d in folders:
        f = getattr(sparcast.load(d), entry)
        out = torch.full(ref.shape, float("nan"), dtype=torch.float16, device="cuda")
        f(*inputs, out=[out]); torch.cuda.synchronize()
        rel = ((out.float() - ref).norm() / ref.norm()).item()
        rows.append({"case": name + " correctness", "artifacts": d, "rel_fro": rel, "ok": rel < 1e-3})
        print(json.dumps(rows[-1]), flush=True)
        fns.append(lambda f=f, out=out: f(*inputs, out=[out]))
    fns.append(peer)
    for d, ms in zip(list(folders) + ["torch.matmul"], timed_rounds(fns, rounds)):
        rows.append({"case": case, "artifacts": d, "ms": ms})
        print(json.dumps(rows[-1]), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lce", nargs="*", default=[])
    p.add_argument("--lce-shapes", default="1024:15",
                   help="comma-separated B:users points for --lce (default the reference)")
    p.add_argument("--shared-w", nargs="*", default=[])
    p.add_argument("--linear", nargs="*", default=[],
                   help="folders with linear_f16 (x @ w^T, B=1024 x 433 x 872 by 256 x 872)")
    p.add_argument("--linear-residual", nargs="*", default=[],
                   help="folders with linear_residual_f16 (x @ w^T + r, the same shapes)")
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    gen = torch.Generator(device="cuda"); gen.manual_seed(0)
    u = lambda shape, t=torch.float16: (torch.rand(shape, generator=gen, device="cuda") - 0.5).to(t)
    rows = []
    B = 1024
    for point in (args.lce_shapes.split(",") if args.lce else []):
        LB, users = (int(x) for x in point.split(":"))
        w, eu, ec = u((433, 2044)), u((users, 1178, 256)), u((LB, 866, 256))
        ix = make_index(users, LB, gen, True)
        e = torch.cat([eu[ix.long()], ec], dim=1)
        ref = torch.matmul(w.float(), e.float())
        bound = (torch.matmul(w, e).float() - ref).abs().max().item()
        fns = []
        for d in args.lce:
            f = sparcast.load(d).lce
            out = torch.full((LB, 433, 256), float("nan"), dtype=torch.float16, device="cuda")
            f(w, eu, ec, ix, out=[out]); torch.cuda.synchronize()
            err = (out.float() - ref).abs().max().item()
            rows.append({"case": "lce correctness B=%d users=%d" % (LB, users), "artifacts": d,
                         "max_err": err, "cublas_fp16_max_err": bound, "ok": err <= bound})
            print(json.dumps(rows[-1]), flush=True)
            fns.append(lambda f=f, out=out: f(w, eu, ec, ix, out=[out]))
        for d, ms in zip(args.lce, timed_rounds(fns, args.rounds)):
            rows.append({"case": "lce B=%d users=%d" % (LB, users), "artifacts": d, "ms": ms})
            print(json.dumps(rows[-1]), flush=True)
    if args.shared_w:
        w, e = u((433, 872)), u((B, 872, 256))
        plain_gemm(rows, "shared_w", "shared_w B=1024 433x256x872", args.shared_w,
                   "shared_w_f16", (w, e), torch.matmul(w.float(), e.float()),
                   lambda: torch.matmul(w, e), args.rounds)
    if args.linear:
        x, w = u((B, 433, 872)), u((256, 872))
        plain_gemm(rows, "linear", "linear B=1024 433x256x872 (x @ w^T)", args.linear,
                   "linear_f16", (x, w), torch.matmul(x.float(), w.float().t()),
                   lambda: torch.matmul(x, w.t()), args.rounds)
    if args.linear_residual:
        x, w, r = u((B, 433, 872)), u((256, 872)), u((B, 433, 256))
        plain_gemm(rows, "linear_residual", "linear + residual B=1024 433x256x872 (x @ w^T + r)",
                   args.linear_residual, "linear_residual_f16", (x, w, r),
                   torch.matmul(x.float(), w.float().t()) + r.float(),
                   lambda: torch.matmul(x, w.t()) + r, args.rounds)
    if args.out:
        json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
