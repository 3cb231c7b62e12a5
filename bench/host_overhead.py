"""What a call costs on the host, and the GPU time with it hidden: target
attention (reference shapes, S = 1024) and the IKBO LCE (reference shapes)
through the Python package, next to their peers, timed three ways:
  per_call_ms      events around one call, synchronized after each (what
                   attention_check.py / lce_check.py report: host time
                   before the launch counts when the GPU is idle);
  back_to_back_ms  50 calls between two events (the host runs ahead);
  graph_ms         the call captured in a CUDA graph, one replay per call;
and host_us, the host time per call. Writes a JSON (--out)."""
import argparse, datetime, json, os, statistics, sys, time
import torch
import torch.nn.functional as F
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import batch_ms  # noqa: E402
from lce_check import make_index  # noqa: E402


def per_call(fn, n=50):
    return statistics.median(batch_ms(fn, 1) for _ in range(n))


def back_to_back(fn, n=50, reps=5):
    ts = []
    for _ in range(reps):
        fn(); torch.cuda.synchronize()
        ts.append(batch_ms(fn, n))
    return statistics.median(ts)


def graph(fn, result, n=20, reps=5):
    """Replay time of `fn` captured in a CUDA graph, and whether a replay
    into a poisoned `result` (the tensor `fn` writes) gives what a plain
    call gave."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()  # warm: tensor maps and workspaces exist before capture
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        captured = fn()
    target = result if result is not None else captured
    fn(); torch.cuda.synchronize()
    want = (result if result is not None else fn()).clone()
    target.fill_(float("nan"))
    g.replay(); torch.cuda.synchronize()
    same = bool(torch.equal(target, want))
    return back_to_back(g.replay, n, reps), same


def host_us(fn, n=50):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    h = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return h


def reference_inputs():
    """Target attention's (q, k, v, index, out) at the reference shapes
    (B = 2048, H = 2, 64 queries, d = 128, S = 1024, 32 users) and the
    LCE's (w, e_user, e_cand, index, out) (B = 1024, 15 uneven users),
    f16, seeded."""
    gen = torch.Generator(device="cuda"); gen.manual_seed(0)
    u = lambda shape: (torch.rand(shape, generator=gen, device="cuda") - 0.5).half()
    B, H, L, d, users, S = 2048, 2, 64, 128, 32, 1024
    idx = torch.clamp(torch.arange(B, device="cuda") * users // B, max=users - 1).to(torch.int32)
    q, k, v = u((B, H, L, d)), u((users, H, S, d)), u((users, H, S, d))
    Bl = 1024
    w, eu, ec, ix = u((433, 2044)), u((15, 1178, 256)), u((Bl, 866, 256)), make_index(15, Bl, gen, True)
    out = torch.empty((Bl, 433, 256), dtype=torch.float16, device="cuda")
    return (q, k, v, idx, torch.empty_like(q)), (w, eu, ec, ix, out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", default="bench/artifacts")
    p.add_argument("--out", required=True)
    p.add_argument("--commit", default="")
    args = p.parse_args()
    (q, k, v, idx, o), (w, eu, ec, ix, out) = reference_inputs()
    B, H, L, d = q.shape
    S = k.shape[2]
    il = idx.long()
    kb, vb = k[il].contiguous(), v[il].contiguous()
    ta = sparcast.load(os.path.join(args.artifacts, "target_attention"))
    lce = sparcast.load(os.path.join(args.artifacts, "lce"))
    w_up = F.pad(w[:, :1178], (0, 1184 - 1178)).contiguous()
    w_cp = F.pad(w[:, 1178:], (0, 872 - 866)).contiguous()
    e_up = F.pad(eu, (0, 0, 0, 1184 - 1178)).contiguous()
    e_cp = F.pad(ec, (0, 0, 0, 872 - 866)).contiguous()
    ixl = ix.long()
    cases = {
        "target attention S=1024: ours": (lambda: ta.target_attention(q, k, v, idx, out=[o]), 4 * B * H * L * d * S, o),
        "target attention S=1024: SDPA pre-broadcast": (lambda: F.scaled_dot_product_attention(q, kb, vb), 4 * B * H * L * d * S, None),
        "LCE: ours": (lambda: lce.lce(w, eu, ec, ix, out=[out]), None, out),
        "LCE: eager decomposed + padded": (lambda: torch.matmul(w_cp, e_cp) + torch.matmul(w_up, e_up)[ixl], None, None),
    }
    rows = []
    for name, (fn, flops, result) in cases.items():
        fn(); torch.cuda.synchronize()
        row = {"case": name, "per_call_ms": per_call(fn), "back_to_back_ms": back_to_back(fn),
               "host_us": host_us(fn)}
        try:
            row["graph_ms"], row["graph_replay_matches_call"] = graph(fn, result)
        except Exception as e:  # report, do not hide
            row["graph_error"] = str(e)[:300]
        if flops:
            for key in ("per_call_ms", "back_to_back_ms", "graph_ms"):
                if key in row:
                    row[key.replace("_ms", "_tflops")] = flops / row[key] / 1e9
        rows.append(row)
        print(json.dumps(row), flush=True)
    json.dump({"date": datetime.date.today().isoformat(), "gpu": torch.cuda.get_device_name(),
               "commit": args.commit, "torch": torch.__version__, "workload": "host-overhead",
               "rows": rows}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
