"""GPU time of each kernel of the log-linear example (B=4, H=16, N=16384,
d=128, bf16), per build, from the CUDA profiler (torch.profiler / CUPTI):
which kernel of an entry the time goes to. With --attention-f16-p builds
the entry converts V to f16 first; torch's own conversion (v.half()) is
timed next to it as the peer. With --lce, the IKBO LCE at the reference
shapes instead (W's padding copies, the request GEMM, the candidate GEMM),
eager decomposed + padded as the peer, and the calls' timeline: per call
the span on the GPU, the kernels' own time and the idle gaps between them.

  python3 bench/kernel_times.py bench/artifacts bench/artifacts/f16p [--out F]
  python3 bench/kernel_times.py --lce bench/artifacts [--out F]
"""
import argparse, collections, json, os, sys
import torch
from torch.profiler import ProfilerActivity, profile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import sparcast  # noqa: E402


def cuda_events(fn, calls):
    """The GPU events (kernels, memsets) of `calls` back-to-back calls of
    `fn`, after a warm-up call, from one profiling run."""
    fn(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    return [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def kernel_us(events, calls):
    """Mean GPU microseconds per call of each kernel among `events`."""
    total = collections.defaultdict(float)
    for e in events:
        total[e.name] += e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
    return {name: us / calls for name, us in total.items()}


def timeline(events, calls):
    """The calls' kernels on the GPU's clock: per call, the span from the
    first kernel's start to the last one's end, the kernels' own time, and
    the mean idle gap before each kernel (the first kernel's gap is after
    the previous call's last kernel). Calls are issued back to back."""
    kernels = sorted((e.time_range.start, e.time_range.end, e.name) for e in events)
    span = kernels[-1][1] - kernels[0][0]
    busy = sum(end - start for start, end, _ in kernels)
    gaps = collections.defaultdict(list)
    for (_, prev_end, _), (start, _, name) in zip(kernels, kernels[1:]):
        gaps[name].append(start - prev_end)
    return {"span_per_call_us": span / calls, "kernels_per_call_us": busy / calls,
            "mean_gap_before_us": {n: sum(g) / len(g) for n, g in gaps.items()}}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("builds", nargs="+")
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--out", default=None)
    p.add_argument("--lce", action="store_true")
    args = p.parse_args()
    gen = torch.Generator(device="cuda"); gen.manual_seed(0)
    if args.lce:
        return lce(args, gen)
    q, k, v = ((torch.rand((4, 16, 16384, 128), generator=gen, device="cuda") - 0.5).to(torch.bfloat16)
               for _ in range(3))
    o = torch.empty_like(q)
    rows = []
    for build in args.builds:
        module = sparcast.load(os.path.join(build, "loglinear_attention"))
        # A build of the same graph in f16 takes f16 inputs.
        f16 = module.manifest["entries"][0]["args"][0]["dtype"] == "f16"
        qq, kk, vv, oo = (x.half() for x in (q, k, v, o)) if f16 else (q, k, v, o)
        entry = module.loglinear_attention
        times = kernel_us(cuda_events(lambda: entry(qq, kk, vv, out=[oo]), args.calls), args.calls)
        rows.append({"build": build, "kernel_us": times})
        print(build, json.dumps({n: round(t, 1) for n, t in times.items()}), flush=True)
    vh = torch.empty(v.shape, dtype=torch.float16, device="cuda")
    for name, fn in (("torch vh.copy_(v) (bf16 -> f16)", lambda: vh.copy_(v)),
                     ("torch vh.copy_(vh2) (same dtype: copy bandwidth)", lambda: vh.copy_(o.view(torch.float16)))):
        peer = kernel_us(cuda_events(fn, args.calls), args.calls)
        rows.append({"build": name, "kernel_us": peer})
        print(name, json.dumps({n[:60]: round(t, 1) for n, t in peer.items()}), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


def lce(args, gen):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from lce_check import make_index  # noqa: E402
    u = lambda shape: (torch.rand(shape, generator=gen, device="cuda") - 0.5).half()
    w, eu, ec = u((433, 2044)), u((15, 1178, 256)), u((1024, 866, 256))
    ix = make_index(15, 1024, gen, False, False)
    out = torch.empty((1024, 433, 256), dtype=torch.float16, device="cuda")
    rows = []
    for build in args.builds:
        entry = sparcast.load(os.path.join(build, "lce")).lce
        # One profiling run gives both the kernels' times and the timeline.
        events = cuda_events(lambda: entry(w, eu, ec, ix, out=[out]), args.calls)
        times, line = kernel_us(events, args.calls), timeline(events, args.calls)
        rows.append({"build": build, "kernel_us": times, "timeline": line})
        print(build, json.dumps({n: round(t, 1) for n, t in times.items()}), json.dumps(line), flush=True)
    # The peer: W split and padded to 8 columns, one bmm per side, the
    # request result gathered and added (eager decomposed + padded).
    wu = torch.nn.functional.pad(w[:, :1178], (0, 6)); wc = torch.nn.functional.pad(w[:, 1178:], (0, 6))
    eup = torch.nn.functional.pad(eu, (0, 0, 0, 6)); ecp = torch.nn.functional.pad(ec, (0, 0, 0, 6))
    peer = kernel_us(cuda_events(lambda: torch.matmul(wc, ecp) + torch.matmul(wu, eup)[ix.long()], args.calls),
                     args.calls)
    rows.append({"build": "eager decomposed + padded", "kernel_us": peer})
    print("eager", json.dumps({n[:60]: round(t, 1) for n, t in peer.items()}), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(), "workload": "lce", "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
