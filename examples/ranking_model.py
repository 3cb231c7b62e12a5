"""A whole ranking model as users write it, compiled by Sparcast into one
artifact: user and candidate features with the candidate->user index, an
LCE (candidate features concatenated with their user's, times a shared
weight), target attention of each candidate's queries over its user's
history (keys and values broadcast by the index), and an MLP tower (bias,
ReLU, sigmoid output) over the flattened features. Plain PyTorch: the
broadcasts are gathers, nothing is hand-optimized.

    # here (sparcast-aot, ONNX): export and compile (the weights are
    # arguments of the artifact, not part of it)
    python3 examples/ranking_model.py compile OUT
    # on the GPU (the artifact carried): check against the
    # eager model on fresh inputs, then time it against eager and
    # torch.compile in interleaved rounds
    python3 examples/ranking_model.py check OUT --json results.json
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import sparcast  # noqa: E402

# Two models. "small": LCE 64 x (1178 + 866) over 32-wide embeddings,
# attention of 64 queries a candidate over 1024 history items, 2 heads of
# 64, tower 10240 -> 1024 -> 256 -> 1 over the flattened features.
# "reference": the shape the ranking-model goal is stated for (LCE 433 x
# (1178 + 866) over 256-wide embeddings, 2 heads of 128 over 1024 history
# items, tower 512 -> 1024 -> 256 -> 1), the LCE's rows and the attention's
# queries averaged into the tower's 512 inputs.
MODELS = {
    "small": dict(M=64, K_USER=1178, K_CAND=866, D=32, HEADS=2, QUERIES=64,
                  HISTORY=1024, HEAD_DIM=64, POOL=False),
    "reference": dict(M=433, K_USER=1178, K_CAND=866, D=256, HEADS=2, QUERIES=64,
                      HISTORY=1024, HEAD_DIM=128, POOL=True),
}
LINEAGE = {"user": "request", "cand": "candidate", "idx": "index",
           "q": "candidate", "hist_k": "request", "hist_v": "request"}


class Ranker(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.s = s = sizes
        self.lce_w = torch.nn.Parameter(torch.randn(s["M"], s["K_USER"] + s["K_CAND"]) * 0.02)
        features = (s["D"] + s["HEADS"] * s["HEAD_DIM"] if s["POOL"]
                    else s["M"] * s["D"] + s["HEADS"] * s["QUERIES"] * s["HEAD_DIM"])
        self.l1 = torch.nn.Linear(features, 1024)
        self.l2 = torch.nn.Linear(1024, 256)
        self.l3 = torch.nn.Linear(256, 1)
        self.scale = s["HEAD_DIM"] ** -0.5

    def forward(self, user, cand, idx, q, hist_k, hist_v):
        e = torch.cat([user[idx], cand], dim=1)                    # [B, K, D]
        lce = torch.matmul(self.lce_w, e)                           # [B, M, D]
        k, v = hist_k[idx], hist_v[idx]                             # [B, H, S, d]
        p = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * self.scale, dim=-1)
        att = torch.matmul(p, v)                                    # [B, H, Q, d]
        if self.s["POOL"]:
            lce, att = lce.mean(1), att.mean(2)                     # [B, D], [B, H, d]
        x = torch.cat([lce.flatten(1), att.flatten(1)], dim=1)
        h = torch.relu(self.l1(x))
        h = torch.relu(self.l2(h))
        return torch.sigmoid(self.l3(h))


def inputs(sizes, users, candidates, dtype, device, gen, shuffle=True):
    """Fresh inputs: `candidates` candidates of `users` users, every user
    with at least one, in uneven runs (shuffled unless asked not to)."""
    s = sizes
    idx = torch.cat([torch.arange(users),
                     torch.randint(0, users, (candidates - users,), generator=gen)])
    idx = idx[torch.randperm(candidates, generator=gen)] if shuffle else idx.sort().values
    r = lambda *shape: torch.randn(*shape, generator=gen).to(device, dtype)
    return (r(users, s["K_USER"], s["D"]), r(candidates, s["K_CAND"], s["D"]), idx.to(device),
            r(candidates, s["HEADS"], s["QUERIES"], s["HEAD_DIM"]),
            r(users, s["HEADS"], s["HISTORY"], s["HEAD_DIM"]),
            r(users, s["HEADS"], s["HISTORY"], s["HEAD_DIM"]))


def compile_model(out, sizes, aot_args=()):
    torch.manual_seed(0)
    model = Ranker(sizes).to(torch.bfloat16)
    gen = torch.Generator().manual_seed(1)
    # torch's CPU matmul has no f16: the model is exported in bf16.
    fast = sparcast.compile(model, inputs(sizes, 2, 5, torch.bfloat16, "cpu", gen), LINEAGE,
                            output_dir=out, name="ranker", aot_args=["--report", *aot_args])
    with open(os.path.join(out, "compiled.json")) as f:
        seconds = json.load(f)["compile_seconds"]
    print("compiled into", out, "entry", fast.entry.name, "in %.1f s (ONNX export %.1f s, sparcast-aot %.1f s)" % (
        sum(seconds.values()), seconds["onnx_export"], seconds["sparcast_aot"]))


# Timed points (users, candidates): the goal's (16 users, 1,024
# candidates) and 4,096; with --sweep also 256 to 4,096 candidates and 2
# to 1,024 candidates a user, where the goal asks never to be slower.
TIMED = [(16, 1024), (64, 4096)]
SWEEP = [(128, 256), (2, 256), (32, 1024), (128, 2048), (8, 2048), (4, 4096)]


def check(out, sizes, json_path, baseline=None, sweep=False):
    from gemm_check import compare_ms, rel_fro  # bench/
    # The artifact takes the weights at each call (exported without them):
    # any weights do, so none are carried from the compile.
    torch.manual_seed(0)
    model = Ranker(sizes).to(torch.bfloat16).cuda()
    fast = sparcast.load_compiled(out, model)
    # Another build of the model, timed in the same rounds (an A/B).
    base = sparcast.load_compiled(baseline, model) if baseline else None
    reference = Ranker(sizes).cuda()
    reference.load_state_dict({k: v.float() for k, v in model.state_dict().items()})
    gen = torch.Generator().manual_seed(2)
    report = {"gpu": torch.cuda.get_device_name(), "checks": [], "timings": []}
    with open(os.path.join(out, "compiled.json")) as f:
        # Measured where the model was compiled (not on the GPU machine).
        report["compile_seconds"] = json.load(f).get("compile_seconds")
    ok = True
    for users, candidates in [(1, 256), (16, 1024), (128, 256), (4, 4096), (2048, 4096)]:
        args = inputs(sizes, users, candidates, torch.bfloat16, "cuda", gen)
        got = fast(*args).float()
        want = reference(*(a.float() if a.is_floating_point() else a for a in args))
        err = rel_fro(got, want)
        good = bool(err < 2e-2 and torch.isfinite(got).all())
        ok &= good
        report["checks"].append({"users": users, "candidates": candidates,
                                 "rel_fro_vs_fp32": err, "ok": good})
        print("U %4d B %4d: rel_fro vs the fp32 model %.2e %s" % (
            users, candidates, err, "ok" if good else "WRONG"), flush=True)
    compiled = torch.compile(model)
    for users, candidates in TIMED + (SWEEP if sweep else []):
        args = inputs(sizes, users, candidates, torch.bfloat16, "cuda", gen)
        fns = {"sparcast": lambda: fast(*args), "eager": lambda: model(*args)}
        if base:
            fns["baseline"] = lambda: base(*args)
        try:
            compiled(*args)
            fns["torch.compile"] = lambda: compiled(*args)
        except Exception as e:  # noqa: BLE001 (reported, the rest still timed)
            print("torch.compile failed: %s" % str(e).splitlines()[0])
        ms = compare_ms(fns, rounds=5, iters=20)
        # The GPU's own time per call (CUDA profiler): what the kernels
        # take, apart from the host's time per call.
        from kernel_times import cuda_events, kernel_us
        kernels = {name: kernel_us(cuda_events(fn, 10), 10) for name, fn in fns.items()}
        row = {"users": users, "candidates": candidates, "ms": ms,
               "kernel_us": {name: round(sum(k.values()), 1) for name, k in kernels.items()},
               "sparcast_kernels_us": {n: round(t, 1) for n, t in kernels["sparcast"].items()},
               "vs_eager": ms["eager"] / ms["sparcast"]}
        if "torch.compile" in ms:
            row["vs_torch_compile"] = ms["torch.compile"] / ms["sparcast"]
        if base:
            row["vs_baseline"] = ms["baseline"] / ms["sparcast"]
        report["timings"].append(row)
        print("U %d B %d: %s" % (users, candidates, json.dumps(row)), flush=True)
    report["all_ok"] = ok
    if json_path:
        with open(json_path, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["compile", "check"])
    parser.add_argument("out")
    parser.add_argument("--json")
    parser.add_argument("--model", choices=sorted(MODELS), default="small",
                        help="the model's sizes (see MODELS)")
    parser.add_argument("--aot-arg", action="append", default=[],
                        help="compile: a further sparcast-aot flag")
    parser.add_argument("--baseline",
                        help="check: another build, timed in the same rounds")
    parser.add_argument("--sweep", action="store_true",
                        help="check: time the SWEEP points too")
    args = parser.parse_args()
    if args.command == "compile":
        return compile_model(args.out, MODELS[args.model], args.aot_arg)
    sys.path.insert(0, os.path.join(HERE, "..", "bench"))
    return check(args.out, MODELS[args.model], args.json, args.baseline, args.sweep)


if __name__ == "__main__":
    sys.exit(main())
