"""How fast the best library attention runs the target-attention work in its
friendliest form, next to ours, on this GPU at its power cap.

The reference batch (attention_check.target_inputs: 2048 candidates of 64
seed rows, 32 users of 64 candidates, H = 2, d = 128, histories of S keys)
is, per user and head, one attention of 64 x 64 = 4096 query rows over
the user's S keys: softmax is per row, so the candidates of one user can
be stacked. A model that grouped its candidates by user by hand could call
SDPA on Q [32, 2, 4096, 128] and the un-broadcast K/V [32, 2, S, 128]:
no gather, no broadcast, long query tiles. This times that form through
each SDPA backend that runs here (flash, cuDNN, memory-efficient) next to
our compiled kernel on the ungrouped inputs, interleaved (compare_ms) and
each alone for seconds (sustained_ms, the GPU state sampled under load).
The stacking is outside those timings; a last peer adds it (cuDNN with
Q stacked before and O unstacked after, two copies), what a model pays
whose candidates do not come grouped. Each peer is first checked against
fp32 SDPA on the first four users (relative error <= 2e-3).

    python3 bench/attention_ceiling.py --artifacts bench/artifacts --out ceiling.json
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import TOLERANCE, compare_ms, gpu_state, record_sustained, rel_fro  # noqa: E402
from attention_check import target_inputs  # noqa: E402

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def grouped(q, users):
    """Q [B, H, L, d] of candidates sorted by user, `users` users of equal
    counts -> [users, H, (B / users) * L, d]."""
    B, H, L, d = q.shape
    per = B // users
    return q.view(users, per, H, L, d).permute(0, 2, 1, 3, 4).reshape(users, H, per * L, d).contiguous()


def ungrouped(o, B, L):
    """grouped's inverse: [users, H, (B / users) * L, d] -> [B, H, L, d]."""
    users, H, _, d = o.shape
    return o.view(users, H, B // users, L, d).permute(0, 2, 1, 3, 4).reshape(B, H, L, d)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", default="bench/artifacts")
    p.add_argument("--sizes", default="1024,4096")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--out", default=None)
    p.add_argument("--commit", default="unknown", help="the commit the artifacts were built from")
    args = p.parse_args()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    example = sparcast.load(os.path.join(args.artifacts, "target_attention"))
    suite = sparcast.load(os.path.join(args.artifacts, "attention_suite"))
    rows = []
    for S in (int(s) for s in args.sizes.split(",")):
        # attention_check's speed rows: the example at S = 1024, the suite's
        # ta_speed_s<S> (the same op at other lengths) elsewhere.
        ours = example.target_attention if S == 1024 else getattr(suite, "ta_speed_s%d" % S)
        idx, q, k, v = target_inputs(S, gen)
        B, H, L, d = q.shape
        users = k.shape[0]
        assert torch.equal(idx.long(), torch.arange(B, device="cuda") // (B // users)), "sorted, equal users"
        flops = 4 * B * H * L * d * S
        out = torch.full_like(q, float("nan"))
        ours(q, k, v, idx, out=[out])
        qg = grouped(q, users)
        il = idx.long()
        ref = F.scaled_dot_product_attention(q[:256].float(), k[il[:256]].float(), v[il[:256]].float())
        row = {"S": S, "flops": flops, "ours_rel_fro": rel_fro(out[:256], ref)}
        fns = {"ours": lambda: ours(q, k, v, idx, out=[out])}
        for name, backend in BACKENDS.items():
            def call(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(qg, k, v)
            try:
                og = call()
                torch.cuda.synchronize()
            except RuntimeError as err:
                row[name + "_error"] = str(err).splitlines()[0]
                print("  S=%d %s: does not run (%s)" % (S, name, row[name + "_error"]), flush=True)
                continue
            # Back to [B, H, L, d]; users 0-3 are candidates 0-255.
            ob = ungrouped(og, B, L)
            row[name + "_rel_fro"] = rel_fro(ob[:256], ref)
            row[name + "_ok"] = bool(row[name + "_rel_fro"] <= TOLERANCE)
            if row[name + "_ok"]:
                fns["sdpa_grouped_" + name] = call
        if "sdpa_grouped_cudnn" in fns:
            def regrouped():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    og = F.scaled_dot_product_attention(grouped(q, users), k, v)
                out.copy_(ungrouped(og, B, L))
            out.fill_(float("nan"))
            regrouped()
            row["cudnn_plus_regroup_rel_fro"] = rel_fro(out[:256], ref)
            if row["cudnn_plus_regroup_rel_fro"] <= TOLERANCE:
                fns["sdpa_cudnn_plus_regroup"] = regrouped
        del ref
        ms = compare_ms(fns, rounds=10)
        for name, t in ms.items():
            row[name + "_ms"] = t
            row[name + "_tflops"] = flops / t / 1e9
        row["gpu_state_after"] = gpu_state()
        for name, fn in fns.items():
            record_sustained(row, name, fn, flops)
        rows.append(row)
        print("  S=%d ours rel_fro %.1e: %s" % (S, row["ours_rel_fro"], ", ".join(
            "%s %.0f TFLOP/s interleaved, %.0f alone at %s MHz" % (
                name, row[name + "_tflops"], row[name + "_sustained_tflops"],
                row[name + "_sustained_gpu_state"].get("sm_clock_mhz")) for name in fns)), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "commit": args.commit,
                       "workload": "target-attention ceiling", "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
