"""The LCE over many shapes (issue 33's sweep, workload `lce-sweep`): for
each (M, N, K_user, K_cand) of SHAPES the plain model graph (examples/lce.mlir
with those sizes) compiled with --autotune, then at two (B, users) points
each: correct by FBGEMM's rule (max|out - ref32| <= max|cuBLAS fp16 - ref32|),
and timed in the same rounds as the hand-written Triton LCE
(bench/triton_peers.py, autotuned, held to the same rule) and eager
decomposed + K padded to 8. "tuned": the artifact with the tuning cache
filled at the point's bucket on its first call (that call's wall time
reported); "heuristic": the same artifact without a cache.

    # here: write and compile the shapes
    python3 bench/lce_sweep.py compile bench/artifacts/lce_sweep
    # on the GPU
    python3 bench/lce_sweep.py check bench/artifacts/lce_sweep --out lce-sweep.json
    # A/B: some shapes built with other flags, timed in the same rounds
    python3 bench/lce_sweep.py compile bench/artifacts/lce_sweep_rows --only n250 --aot-flag=--rows-by-threads
    python3 bench/lce_sweep.py check bench/artifacts/lce_sweep_rows --only n250 \
        --baseline bench/artifacts/lce_sweep --out lce-n250.json
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# (M, N, K_user, K_cand): every M of {128, 256, 433, 512} and N of {64, 128,
# 250, 256, 512}, K from 256 to 2048 with odd values.
SHAPES = [(433, 256, 1178, 866), (128, 64, 256, 256), (128, 128, 512, 384),
          (128, 250, 1000, 777), (256, 64, 2048, 256), (256, 128, 301, 1023),
          (256, 256, 1024, 1024), (256, 512, 768, 512), (433, 64, 1178, 866),
          (433, 128, 555, 1337), (433, 250, 1178, 866), (512, 64, 999, 1999),
          (512, 128, 2048, 2048), (512, 256, 640, 1152), (512, 512, 1024, 513)]
# (B, users) points, two a shape in turn: B from 256 to 4096, 2 to 1,000
# candidates a user.
POINTS = [(1024, 16), (256, 128), (4096, 4), (2048, 256), (512, 2), (3072, 12),
          (1536, 768), (4096, 64), (768, 24), (2000, 1000)]

GRAPH = """func.func @lce(%w: tensor<{M}x{K}xf16> {{sc.lineage = #sc.lineage<shared>}},
               %e_user: tensor<?x{KU}x{N}xf16> {{sc.lineage = #sc.lineage<request>}},
               %e_cand: tensor<?x{KC}x{N}xf16> {{sc.lineage = #sc.lineage<candidate>}},
               %idx: tensor<?xi32> {{sc.lineage = #sc.lineage<index>}})
    -> tensor<?x{M}x{N}xf16> {{
  %user_b = sc.gather_rows %e_user[%idx]
      : tensor<?x{KU}x{N}xf16>, tensor<?xi32> -> tensor<?x{KU}x{N}xf16>
  %e = tensor.concat dim(1) %user_b, %e_cand
      : (tensor<?x{KU}x{N}xf16>, tensor<?x{KC}x{N}xf16>) -> tensor<?x{K}x{N}xf16>
  %out = sc.batch_matmul %w, %e
      : tensor<{M}x{K}xf16>, tensor<?x{K}x{N}xf16> -> tensor<?x{M}x{N}xf16>
  return %out : tensor<?x{M}x{N}xf16>
}}
"""


def name(shape):
    return "m%d_n%d_ku%d_kc%d" % shape


def points():
    """(shape, B, users) for every point of the sweep."""
    return [(shape, *POINTS[(2 * i + j) % len(POINTS)])
            for i, shape in enumerate(SHAPES) for j in range(2)]


def compile_all(out, only="", flags=()):
    aot = os.environ.get("SPARCAST_AOT", os.path.join(HERE, "..", "build", "bin", "sparcast-aot"))
    os.makedirs(out, exist_ok=True)
    for shape in SHAPES:
        if only not in name(shape):
            continue
        m, n, ku, kc = shape
        src = os.path.join(out, name(shape) + ".mlir")
        with open(src, "w") as f:
            f.write(GRAPH.format(M=m, N=n, KU=ku, KC=kc, K=ku + kc))
        start = time.time()
        subprocess.run([aot, src, "--autotune", *flags, "-o", os.path.join(out, name(shape))], check=True,
                       stdout=subprocess.DEVNULL)
        print("%s compiled in %.1f s" % (name(shape), time.time() - start), flush=True)


def in_chunks(fn, B, chunk=256):
    """fn(lo, hi) -> [hi - lo, M, N] float over B rows, chunked (the fp32
    reference of a 4096-candidate point would not fit whole)."""
    import torch
    return torch.cat([fn(lo, min(B, lo + chunk)) for lo in range(0, B, chunk)])


def check(artifacts, out_path, commit, only="", baseline=None):
    import torch
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    sys.path.insert(0, HERE)
    import sparcast
    from gemm_check import compare_ms, uniform
    from lce_check import make_index
    try:
        import triton_peers
    except ImportError:
        triton_peers = None
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(time.time()))
    f16 = torch.float16
    cache = os.path.join(tempfile.mkdtemp(), "tune-cache.json")
    base_cache = os.path.join(tempfile.mkdtemp(), "tune-cache.json")
    rows, ok_all = [], True
    for shape, B, users in points():
        if only not in name(shape):
            continue
        m, n, ku, kc = shape
        path = os.path.join(artifacts, name(shape))
        plain = sparcast.load(path).lce
        tuned = sparcast.load(path, tune=True, tune_cache=cache).lce
        # Another build, tuned, timed in the same rounds (A/B).
        base = (sparcast.load(os.path.join(baseline, name(shape)), tune=True,
                              tune_cache=base_cache).lce if baseline else None)
        w = uniform((m, ku + kc), f16, gen)
        e_user = uniform((users, ku, n), f16, gen)
        e_cand = uniform((B, kc, n), f16, gen)
        idx = make_index(users, B, gen, shuffle=True)
        il = idx.long()
        w_u, w_c = w[:, :ku].contiguous(), w[:, ku:].contiguous()

        def plain_graph(ww, eu, ec, lo, hi):
            return torch.matmul(ww, torch.cat([eu[il[lo:hi]], ec[lo:hi]], dim=1)).float()

        ref32 = in_chunks(lambda lo, hi: plain_graph(w.float(), e_user.float(), e_cand.float(), lo, hi), B)
        bound = (in_chunks(lambda lo, hi: plain_graph(w, e_user, e_cand, lo, hi), B) - ref32).abs().max().item()
        row = {"M": m, "N": n, "K_user": ku, "K_cand": kc, "B": B, "users": users,
               "cublas_fp16_max_err": bound}
        out = torch.full((B, m, n), float("nan"), dtype=f16, device="cuda")
        start = time.perf_counter()
        tuned(w, e_user, e_cand, idx, out=[out])
        torch.cuda.synchronize()
        row["first_call_ms"] = 1000 * (time.perf_counter() - start)
        errors = {"tuned": (out.float() - ref32).abs().max().item()}
        out.fill_(float("nan"))
        plain(w, e_user, e_cand, idx, out=[out])
        errors["heuristic"] = (out.float() - ref32).abs().max().item()
        fns = {"tuned": lambda: tuned(w, e_user, e_cand, idx, out=[out]),
               "heuristic": lambda: plain(w, e_user, e_cand, idx, out=[out])}
        if base:
            out.fill_(float("nan"))
            base(w, e_user, e_cand, idx, out=[out])
            errors["baseline"] = (out.float() - ref32).abs().max().item()
            fns["baseline"] = lambda: base(w, e_user, e_cand, idx, out=[out])
        pad8 = lambda t, dim: torch.nn.functional.pad(
            t, (0, 0, 0, -t.shape[1] % 8) if dim == 1 else (0, -t.shape[1] % 8)).contiguous()
        w_up, w_cp, e_up, e_cp = pad8(w_u, 0), pad8(w_c, 0), pad8(e_user, 1), pad8(e_cand, 1)
        fns["eager_decomposed_padded"] = lambda: torch.matmul(w_cp, e_cp) + torch.matmul(w_up, e_up)[il]
        if triton_peers:
            w_ut, w_ct = triton_peers.pad_k(w_u), triton_peers.pad_k(w_c)
            r_t = torch.empty((users, m, n), dtype=torch.float32, device="cuda")
            out_t = torch.full_like(out, float("nan"))
            fns["triton"] = lambda: triton_peers.lce(w_ut, w_ct, e_user, e_cand, idx, out=out_t, r=r_t)
            fns["triton"]()
            errors["triton"] = (out_t.float() - ref32).abs().max().item()
        del ref32
        for k, err in errors.items():
            row[k + "_max_err"] = err
            row[k + "_ok"] = bool(err <= bound)
        ok_all &= row["tuned_ok"] and row["heuristic_ok"]
        for k, ms in compare_ms(fns, rounds=5).items():
            row[k + "_ms"] = ms
        for peer in ("triton", "eager_decomposed_padded", "baseline"):
            if peer + "_ms" in row:
                row["tuned_vs_" + peer] = row[peer + "_ms"] / row["tuned_ms"]
                row["heuristic_vs_" + peer] = row[peer + "_ms"] / row["heuristic_ms"]
        print(json.dumps(row), flush=True)
        rows.append(row)
        del out, fns
        torch.cuda.empty_cache()
    with open(cache) as f:
        choices = json.load(f).get("choices", [])
    met = [r for r in rows if r.get("tuned_vs_triton", 0) >= 1.3 and r.get("tuned_vs_eager_decomposed_padded", 0) >= 1.3]
    result = {"date": time.strftime("%Y-%m-%d"), "gpu": torch.cuda.get_device_name(), "commit": commit,
              "torch": torch.__version__, "workload": "lce-sweep", "all_correct": ok_all,
              "points": len(rows), "points_at_goal": len(met), "rows": rows, "cache": choices}
    print("%d of %d points >= 1.3x both peers; all correct: %s" % (len(met), len(rows), ok_all))
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)
    return 0 if ok_all else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["compile", "check"])
    p.add_argument("artifacts")
    p.add_argument("--out")
    p.add_argument("--commit", default="unknown")
    p.add_argument("--only", default="", help="the shapes whose name holds this (e.g. n250)")
    p.add_argument("--aot-flag", action="append", default=[],
                   help="compile: a sparcast-aot flag more (repeatable)")
    p.add_argument("--baseline", help="check: the same shapes of another build, tuned, "
                                      "timed in the same rounds")
    args = p.parse_args()
    if args.command == "compile":
        return compile_all(args.artifacts, args.only, args.aot_flag)
    return check(args.artifacts, args.out, args.commit, args.only, args.baseline)


if __name__ == "__main__":
    sys.exit(main())
