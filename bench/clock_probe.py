"""What sets the H200's SM clock under our kernels and their peers.

Runs each workload alone and back to back (target attention at S = 1024,
SDPA on pre-broadcast K/V, cuBLAS bf16 8192^3) for --seconds, with --rest seconds
of idle GPU before it, while a thread samples nvidia-smi (SM clock, power,
the enforced power limit, temperature and the clock-event reasons: power
cap, thermal slowdowns). Each workload's throughput is timed per batch with
CUDA events, so clock and speed can be read side by side over time. Writes
one JSON.

    python3 bench/clock_probe.py --artifacts bench/artifacts --out probe.json
"""

import argparse
import json
import os
import statistics
import sys
import threading
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import sparcast  # noqa: E402
from gemm_check import batch_ms, gpu_state, uniform  # noqa: E402
from attention_check import target_inputs  # noqa: E402


class Sampler(threading.Thread):
    def __init__(self, period):
        super().__init__(daemon=True)
        self.period, self.samples, self.stop = period, [], threading.Event()
        self.t0 = time.time()

    def run(self):
        while not self.stop.is_set():
            s = gpu_state()
            s["t"] = round(time.time() - self.t0, 2)
            self.samples.append(s)
            self.stop.wait(self.period)


def run_for(fn, seconds, batch):
    """Batches of `batch` calls until `seconds` pass; each batch's time per
    call (CUDA events) with its start time."""
    rows, t0 = [], time.time()
    while time.time() - t0 < seconds:
        t = round(time.time() - t0, 2)
        rows.append((t, batch_ms(fn, batch)))
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--commit", default="unknown")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--rest", type=float, default=15)
    args = p.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    f16, bf16 = torch.float16, torch.bfloat16

    suite = sparcast.load(os.path.join(args.artifacts, "attention_suite"))
    idx, q, k, v = target_inputs(1024, gen)
    B, H, L, d = q.shape
    S = k.shape[2]
    kb, vb = k[idx.long()].contiguous(), v[idx.long()].contiguous()
    out = torch.empty((B, H, L, d), dtype=f16, device="cuda")
    a = uniform((8192, 8192), bf16, gen)
    b = uniform((8192, 8192), bf16, gen)
    ta_flops = 4 * B * H * L * d * S
    workloads = {
        "target_attention_s1024": (lambda: suite.ta_s1024(q, k, v, idx, out=[out]), ta_flops, 20),
        "sdpa_prebroadcast_s1024": (lambda: F.scaled_dot_product_attention(q, kb, vb), ta_flops, 10),
        "cublas_bf16_8192": (lambda: torch.matmul(a, b), 2 * 8192 ** 3, 3),
    }
    for fn, _, _ in workloads.values():
        fn()
    torch.cuda.synchronize()

    sampler = Sampler(0.25)
    sampler.start()
    results = dict(date=time.strftime("%Y-%m-%d"), gpu=torch.cuda.get_device_name(), commit=args.commit,
                   torch=torch.__version__, workload="clock probe", seconds=args.seconds, rest=args.rest, runs=[])
    for name, (fn, flops, batch) in workloads.items():
        time.sleep(args.rest)
        begin = time.time() - sampler.t0
        rows = run_for(fn, args.seconds, batch)
        end = time.time() - sampler.t0
        tflops = [flops / ms / 1e9 for _, ms in rows]
        first, last = tflops[:max(1, len(tflops) // 10)], tflops[-max(1, len(tflops) // 10):]
        results["runs"].append({"name": name, "begin_s": round(begin, 2), "end_s": round(end, 2),
                                "batches": [{"t": t, "ms": ms} for t, ms in rows],
                                "tflops_first_tenth": statistics.median(first),
                                "tflops_last_tenth": statistics.median(last)})
        print("%-26s TFLOP/s first tenth %.0f, last tenth %.0f" % (
            name, statistics.median(first), statistics.median(last)), flush=True)
    time.sleep(2)
    sampler.stop.set()
    sampler.join()
    results["samples"] = sampler.samples
    for run in results["runs"]:
        inside = [s for s in sampler.samples if run["begin_s"] <= s["t"] <= run["end_s"] and "error" not in s]
        if not inside:
            continue
        def share(field):
            return sum(s[field] for s in inside) / len(inside)
        run["summary"] = {
            "sm_clock_mhz_median": statistics.median(s["sm_clock_mhz"] for s in inside),
            "power_w_median": statistics.median(s["power_w"] for s in inside),
            "power_limit_w": inside[0]["power_limit_w"],
            "temperature_c_max": max(s["temperature_c"] for s in inside),
            "share_power_capped": share("power_capped"),
            "share_sw_thermal_slowdown": share("sw_thermal_slowdown"),
            "share_hw_thermal_slowdown": share("hw_thermal_slowdown"),
        }
        print("  %-24s %s" % (run["name"], json.dumps(run["summary"])), flush=True)
    with open(args.out, "w") as f:
        json.dump(results, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
