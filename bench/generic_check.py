"""Correctness of the generated linalg.generic kernels on the GPU machine.

Runs the imported MLP of test/Target/ONNX/Inputs/mlp.onnxtxt (Gemm + bias +
ReLU, Sub, MatMul, Sigmoid, Softmax, Tanh + Cast: eleven generated
kernels) against the same graph in torch (fp32) on fresh random inputs,
outputs poisoned with NaN first, for several batch sizes.

With --gather-artifacts (test/Target/AOT/aot-gather.mlir compiled), also
the generated gather kernels: rows gathered through an index, and a table
read by ids of which some lie past it (those read 0).

    python3 bench/generic_check.py --artifacts bench/artifacts/mlp --out generic.json
"""

import argparse
import json
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import sparcast  # noqa: E402

MODEL = os.path.join(HERE, "..", "test", "Target", "ONNX", "Inputs", "mlp.onnxtxt")


def initializers():
    """The model's weights, read from its text."""
    text = open(MODEL).read()
    out = {}
    for m in re.finditer(r"float\[([0-9, ]+)\] (\w+) = \{([^}]*)\}", text):
        shape = [int(s) for s in m.group(1).split(",")]
        values = [float(v) for v in m.group(3).split(",")]
        out[m.group(2)] = torch.tensor(values).reshape(shape)
    return out


def reference(x, r, w):
    h = x @ w["w1"].t() + w["b1"]
    a = torch.relu(h)
    y = torch.sigmoid((a - r) @ w["w2"])
    p = torch.softmax(a, dim=-1)
    return y, p, torch.tanh(a).half()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--gather-artifacts", default=None)
    parser.add_argument("--pool-artifacts", default=None,
                        help="test/Target/ONNX/Inputs/pool.onnxtxt compiled: ReduceMean / ReduceMax")
    args = parser.parse_args()
    w = {k: v.cuda() for k, v in initializers().items()}
    module = sparcast.load(args.artifacts)
    results, ok = [], True
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    for batch in (1, 7, 256, 1000, 4099):
        x = torch.randn(batch, 16, device="cuda", generator=gen)
        r = torch.randn(batch, 8, device="cuda", generator=gen)
        outs = [torch.full((batch, 1), float("nan"), device="cuda"),
                torch.full((batch, 8), float("nan"), device="cuda"),
                torch.full((batch, 8), float("nan"), device="cuda").half()]
        module.mlp(x, r, out=outs)
        torch.cuda.synchronize()
        for name, got, want in zip(("y", "p", "h16"), outs, reference(x, r, w)):
            err = ((got.float() - want.float()).abs().max()).item()
            good = err < 2e-3 and not torch.isnan(got.float()).any().item()
            ok &= good
            results.append({"batch": batch, "output": name, "max_abs": err, "ok": good})
            print("B %5d %-3s max_abs %.2e %s" % (batch, name, err, "ok" if good else "WRONG"),
                  flush=True)
    if args.gather_artifacts:
        ok &= check_gathers(sparcast.load(args.gather_artifacts), gen, results)
    if args.pool_artifacts:
        ok &= check_pools(sparcast.load(args.pool_artifacts), gen, results)
    json.dump({"all_ok": ok, "results": results}, open(args.out, "w"), indent=1)
    return 0 if ok else 1


def check_pools(module, gen, results):
    """The reduction kernels of ReduceMean (f16, the mean's division applied
    in the sum's kernel) and ReduceMax (f32) against torch, outputs
    poisoned."""
    ok = True
    for batch in (1, 33, 4099):
        h = torch.randn(batch, 4, 8, device="cuda", generator=gen).half()
        x = torch.randn(batch, 4, 8, device="cuda", generator=gen)
        outs = [torch.full((batch, 8), float("nan"), device="cuda").half(),
                torch.full((batch, 4), float("nan"), device="cuda")]
        module.pool(h, x, out=outs)
        torch.cuda.synchronize()
        mean_err = (outs[0].float() - h.float().mean(1)).abs().max().item()
        good = mean_err <= 2e-3 and torch.equal(outs[1], x.amax(2))
        ok &= good
        results.append({"case": "pool B=%d" % batch, "mean_max_abs": mean_err, "ok": good})
        print("pool B %5d: mean max_abs %.1e, max exact: %s" % (
            batch, mean_err, "ok" if good else "WRONG"), flush=True)
    return ok


def check_gathers(module, gen, results):
    """The gather kernels against torch's indexing, outputs poisoned."""
    ok = True
    for users, batch in ((1, 1), (5, 33), (300, 4099)):
        table = torch.randn(users, 4, 8, device="cuda", generator=gen).half()
        idx = torch.randint(0, users, (batch,), device="cuda", generator=gen,
                            dtype=torch.int32)
        out = torch.full((batch, 4, 8), float("nan"), device="cuda").half()
        module.gather(table, idx, out=[out])
        torch.cuda.synchronize()
        good = torch.equal(out, table[idx.long()])
        ok &= good
        results.append({"case": "gather U=%d B=%d" % (users, batch), "ok": good})
        print("gather U %3d B %5d %s" % (users, batch, "ok" if good else "WRONG"), flush=True)
    table = torch.randn(16, device="cuda", generator=gen)
    ids = torch.tensor([0, 15, 16, 100, -1, 7, 2 ** 31 - 1], device="cuda", dtype=torch.int32)
    out = torch.full((ids.numel(),), float("nan"), device="cuda")
    module.lookup(table, ids, out=[out])
    torch.cuda.synchronize()
    inside = (ids >= 0) & (ids < 16)
    want = torch.where(inside, table[ids.clamp(0, 15).long()], torch.zeros_like(table[:1]))
    good = torch.equal(out, want)
    ok &= good
    results.append({"case": "lookup with ids past the table", "ok": good})
    print("lookup, ids past the table read 0: %s" % ("ok" if good else "WRONG"), flush=True)
    return ok


if __name__ == "__main__":
    sys.exit(main())
