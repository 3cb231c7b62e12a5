"""Correctness and speed of Sparcast's GEMM kernels on the GPU machine.

Runs every entry of the compiled artifacts against an fp32 torch reference on
fresh random inputs (outputs poisoned with NaN first), checks the runtime's
argument validation, then times our kernels and their peers (torch.matmul /
torch.bmm, i.e. cuBLAS) in the same process with CUDA events (median).
Writes one JSON with everything.

    python3 bench/gemm_check.py --artifacts bench/artifacts --out results.json
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import sparcast  # noqa: E402

TOLERANCE = 2e-3


def rel_fro(out, ref):
    out = out.float()
    ref = ref.float()
    return (torch.linalg.norm(out - ref) / torch.linalg.norm(ref)).item()


def batch_ms(fn, batch):
    """GPU time per call of `batch` calls of `fn` back to back (CUDA events)."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(batch):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / batch


def compare_ms(fns, rounds=7, iters=10):
    """Median GPU time per call of each of `fns` (name -> callable),
    measured in rounds that run every function in turn: clock drift
    during the run (the power cap, gpu_state) then falls on all of them
    alike instead of on whichever runs last. A sample is a batch of iters / 2 calls back to
    back between two events, two batches a round: the host's time per call
    (bench/host_overhead.py) overlaps the kernels instead of adding to
    them, for ours and the peers alike. Odd rounds run the functions in
    reverse order: in a fixed order the one measured first after another
    read the shared inputs comes out up to 5 % slower or faster than the
    same kernel elsewhere."""
    for fn in fns.values():
        fn()
    torch.cuda.synchronize()
    batch = max(1, iters // 2)
    times = {name: [] for name in fns}
    for r in range(rounds):
        order = list(fns.items())
        if r % 2:
            order.reverse()
        for name, fn in order:
            for _ in range(2):
                times[name].append(batch_ms(fn, batch))
    return {name: statistics.median(t) for name, t in times.items()}


def sustained_ms(fn, seconds=3.0, batch=10, state=None):
    """GPU time per call of `fn` run alone and back to back for `seconds`:
    the median of the batches in the second half, when the GPU has settled
    at its power cap with nothing else running. The rounds of compare_ms
    alternate with the peers, whose power draw sets the clock each one
    starts at; this is the number that holds in steady use. With `state`
    (a dict), gpu_state() is sampled into it while ~0.3 s more of calls
    run: nvidia-smi's query takes tens of ms, longer than a batch."""
    fn()
    torch.cuda.synchronize()
    times, t0 = [], time.time()
    while time.time() - t0 < seconds:
        times.append(batch_ms(fn, batch))
    ms = statistics.median(times[len(times) // 2:])
    if state is not None:
        for _ in range(int(300.0 / ms) + 1):
            fn()
        state.update(gpu_state())
        torch.cuda.synchronize()
    # Idle a second so that the next timing starts from a rested GPU, as
    # the rows before it did, not from the capped clock this one left.
    time.sleep(1.0)
    return ms


def record_sustained(row, name, fn, flops=None, batch=10):
    """`fn`'s sustained_ms into `row` as <name>_sustained_ms (and _tflops
    when `flops` is given), with the GPU's state sampled under that load."""
    state = {}
    row[name + "_sustained_ms"] = sustained_ms(fn, batch=batch, state=state)
    if flops:
        row[name + "_sustained_tflops"] = flops / row[name + "_sustained_ms"] / 1e9
    row[name + "_sustained_gpu_state"] = state


GPU_STATE_FIELDS = {
    "clocks.sm": "sm_clock_mhz", "clocks.max.sm": "max_sm_clock_mhz", "temperature.gpu": "temperature_c",
    "power.draw": "power_w", "enforced.power.limit": "power_limit_w",
    "clocks_event_reasons.sw_power_cap": "power_capped",
    "clocks_event_reasons.sw_thermal_slowdown": "sw_thermal_slowdown",
    "clocks_event_reasons.hw_thermal_slowdown": "hw_thermal_slowdown",
}


def nvidia_smi_id():
    """The GPU torch runs on, as nvidia-smi names it: by UUID, which holds
    under CUDA_VISIBLE_DEVICES remapping (CUDA's index would not)."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    uuid = getattr(props, "uuid", None)
    return "GPU-%s" % uuid if uuid is not None else str(torch.cuda.current_device())


def gpu_state():
    """The GPU's SM clock, temperature, power and what holds its clock down
    right now (nvidia-smi), recorded next to each timing. Under our kernels
    and the peers alike the H200 runs at its 700 W power cap from the
    first sample after load starts, at 1300-1550 MHz of 1980, never near a
    thermal limit (bench/clock_probe.py): a kernel's clock depends on how
    much power it and the kernels just before it draw, so absolute times
    move by 15-25 % with what ran before while ratios measured in the same
    rounds move far less."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(GPU_STATE_FIELDS),
                              "--format=csv,noheader,nounits", "-i", nvidia_smi_id()],
                             capture_output=True, text=True, timeout=10)
        values = [v.strip() for v in out.stdout.strip().split(",")]
        if out.returncode != 0 or len(values) != len(GPU_STATE_FIELDS):
            return {"error": (out.stderr or out.stdout).strip()[:200]}
        state = {}
        for key, value in zip(GPU_STATE_FIELDS.values(), values):
            state[key] = value == "Active" if value in ("Active", "Not Active") else float(value)
        return state
    except (OSError, ValueError, subprocess.SubprocessError) as err:
        return {"error": str(err)[:200]}


def uniform(shape, dtype, gen):
    return (torch.rand(shape, generator=gen, device="cuda") * 2 - 1).to(dtype)


def poisoned(shape, dtype):
    t = torch.empty(shape, dtype=dtype, device="cuda")
    t.fill_(float("nan"))
    return t


def check(name, entry, args, ref, out_dtype, out_shape):
    out = poisoned(out_shape, out_dtype)
    entry(*args, out=[out])
    torch.cuda.synchronize()
    err = rel_fro(out, ref)
    finite = bool(torch.isfinite(out).all().item())
    ok = finite and err <= TOLERANCE
    print("  %-40s rel_fro %.2e %s%s" % (name, err, "ok" if ok else "FAIL",
                                          "" if finite else " (non-finite)"))
    return {"case": name, "rel_fro": err, "finite": finite, "ok": ok}


def write_results(results, path):
    """Marks the run correct when every correctness row is, writes the JSON
    and prints the verdict (the check's last line)."""
    results["all_correct"] = all(c["ok"] for c in results["correctness"])
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
    print("correct: %s" % results["all_correct"], flush=True)


def setup():
    """The command line every check script takes, a generator seeded afresh
    (new inputs each run), and the header of its results."""
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--commit", default="unknown")
    p.add_argument("--baseline", default=None,
                   help="artifacts of another build, timed next to these in the same run (A/B)")
    args = p.parse_args()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(time.time()))
    header = {"date": time.strftime("%Y-%m-%d"), "gpu": torch.cuda.get_device_name(),
              "commit": args.commit,
              "torch": torch.__version__}
    return args, gen, header


# GEMM schedules compiled by scripts/build-device-artifacts.sh: artifact
# directory suffix -> the --gemm-schedule it was compiled with.
SCHEDULES = {"": "auto", "_cooperative": "cooperative",
             "_pingpong": "pingpong", "_transposed": "transposed"}


def load_schedules(artifacts):
    """(schedule, GEMM suite, gemm example) for each schedule compiled."""
    found = []
    for suffix, schedule in SCHEDULES.items():
        suite_dir = os.path.join(artifacts, "gemm_suite" + suffix)
        if os.path.isdir(suite_dir):
            found.append((schedule, sparcast.load(suite_dir),
                          sparcast.load(os.path.join(artifacts, "gemm" + suffix))))
    return found


def check_tma_kernels(label, suite, example, gen, corr):
    """Every TMA/wgmma kernel of one schedule against fp32 references."""
    f16, bf16 = torch.float16, torch.bfloat16
    check_ = lambda name, *rest: corr.append(dict(check(label + name, *rest), schedule=label.strip()))
    for B in (1, 3, 64, 200):
        w = uniform((433, 872), f16, gen)
        e = uniform((B, 872, 256), f16, gen)
        ref = torch.matmul(w.float(), e.float())
        check_("shared_w_f16 B=%d" % B, suite.shared_w_f16, [w, e], ref, f16, (B, 433, 256))
        a = uniform((B, 433, 872), f16, gen)
        ref = torch.bmm(a.float(), e.float())
        check_("bmm_f16 B=%d" % B, suite.bmm_f16, [a, e], ref, f16, (B, 433, 256))
    for B in (1, 5):
        a = uniform((B, 200, 72), f16, gen)
        b = uniform((B, 72, 136), f16, gen)
        bias = uniform((136,), torch.float32, gen)
        ref = torch.relu(torch.bmm(a.float(), b.float()) + bias)
        check_("odd_bias_relu_f16 B=%d (200x136x72)" % B, suite.odd_bias_relu_f16,
               [a, b, bias], ref, torch.float32, (B, 200, 136))
        a2 = uniform((333, 40), bf16, gen)
        b2 = uniform((B, 40, 264), bf16, gen)
        ref = torch.matmul(a2.float(), b2.float()) * 0.5
        check_("odd_scale_bf16 B=%d (333x264x40)" % B, suite.odd_scale_bf16,
               [a2, b2], ref, bf16, (B, 333, 264))
    for B in (1, 6):
        a = uniform((B, 96, 64), f16, gen)
        b = uniform((B, 64, 136), f16, gen)
        x = torch.bmm(a.float(), b.float())
        ref = torch.nn.functional.gelu(x, approximate="tanh") + torch.nn.functional.silu(x)
        check_("gelu_silu_f16 B=%d (96x136x64)" % B, suite.gelu_silu_f16, [a, b], ref,
               f16, (B, 96, 136))
    for users, B in ((15, 1024), (7, 13), (1, 3)):
        w = uniform((433, 872), f16, gen)
        e = uniform((B, 872, 256), f16, gen)
        user = uniform((users, 433, 256), torch.float32, gen)
        idx = torch.randint(0, users, (B,), generator=gen, device="cuda", dtype=torch.int32)
        ref = torch.matmul(w.float(), e.float()) + user[idx.long()]
        check_("gemm_gather_add U=%d B=%d" % (users, B), example.gemm_gather_add,
               [w, e, user, idx], ref, f16, (B, 433, 256))
        user16 = user.to(f16)
        ref16 = torch.matmul(w.float(), e.float()) + user16.float()[idx.long()]
        check_("gather_add_f16_user U=%d B=%d" % (users, B), suite.gather_add_f16_user,
               [w, e, user16, idx], ref16, f16, (B, 433, 256))
    for B in (1, 5):
        a = uniform((B, 200, 136), bf16, gen)
        b = uniform((B, 264, 136), bf16, gen)
        ref = torch.bmm(a.float(), b.float().transpose(1, 2))
        check_("transposed_bf16 B=%d (200x264x136)" % B, suite.transposed_bf16, [a, b], ref,
                          torch.float32, (B, 200, 264))
        e = uniform((B, 70, 40), f16, gen)
        w = uniform((48, 40), f16, gen)
        ref = torch.matmul(e.float(), w.float().t())
        check_("transposed_shared_f16 B=%d (70x48x40)" % B, suite.transposed_shared_f16, [e, w], ref,
                          f16, (B, 70, 48))
    for B in (1, 7):
        x = uniform((B, 433, 872), f16, gen)
        w = uniform((256, 872), f16, gen)
        ref = torch.matmul(x.float(), w.float().t())
        check_("linear_f16 B=%d (x @ w^T)" % B, suite.linear_f16, [x, w], ref, f16, (B, 433, 256))
        r = uniform((B, 433, 256), f16, gen)
        check_("linear_residual_f16 B=%d (x @ w^T + r)" % B, suite.linear_residual_f16, [x, w, r],
               ref + r.float(), f16, (B, 433, 256))
    # Split-K where the tiles leave SMs idle: 4 tiles in 8 parts, 32 in 4,
    # 128 in none; the ReLU would be wrong on any partial sum.
    for B in ((1, 100, 1000, 4000) if hasattr(suite, "tower_bf16") else ()):
        x = uniform((B, 1, 4096), bf16, gen)
        w = uniform((1024, 4096), bf16, gen)
        bias = uniform((1024,), torch.float32, gen)
        ref = torch.relu(torch.matmul(x.float(), w.float().t()) + bias)
        check_("tower_bf16 B=%d (x @ w^T + bias, ReLU; split-K)" % B, suite.tower_bf16,
               [x, w, bias], ref, bf16, (B, 1, 1024))
    for B in ((1, 9) if hasattr(suite, "odd_k_f16") else ()):
        w = uniform((100, 77), f16, gen)
        e = uniform((B, 77, 256), f16, gen)
        check_("odd_k_f16 B=%d (100x256x77, E read unpadded)" % B, suite.odd_k_f16, [w, e],
               torch.matmul(w.float(), e.float()), f16, (B, 100, 256))
    # Rows that are no TMA stride (N = 250, 252): padded copies by default;
    # with --rows-by-threads copied and stored by the kernels' threads.
    for B in ((1, 3, 300) if hasattr(suite, "unaligned_n_f16") else ()):
        w = uniform((128, 200), f16, gen)
        e = uniform((B, 200, 250), f16, gen)
        check_("unaligned_n_f16 B=%d (128x250x200)" % B, suite.unaligned_n_f16, [w, e],
               torch.matmul(w.float(), e.float()), f16, (B, 128, 250))
        w = uniform((100, 77), bf16, gen)
        e = uniform((B, 77, 252), bf16, gen)
        bias = uniform((252,), torch.float32, gen)
        check_("unaligned_odd_k_bias_bf16 B=%d (100x252x77)" % B, suite.unaligned_odd_k_bias_bf16,
               [w, e, bias], torch.matmul(w.float(), e.float()) + bias, bf16, (B, 100, 252))
        x = uniform((B, 300, 64), bf16, gen)
        w = uniform((250, 64), bf16, gen)
        check_("linear_unaligned_bf16 B=%d (x @ w^T, 250 out)" % B, suite.linear_unaligned_bf16,
               [x, w], torch.matmul(x.float(), w.float().t()), bf16, (B, 300, 250))
        x = uniform((B, 70, 64), f16, gen)
        w = uniform((64, 250), f16, gen)
        check_("shared_rhs_unaligned_f16 B=%d (x @ w, 250 out)" % B, suite.shared_rhs_unaligned_f16,
               [x, w], torch.matmul(x.float(), w.float()), f16, (B, 70, 250))
    a = uniform((8192, 8192), bf16, gen)
    b = uniform((1, 8192, 8192), bf16, gen)
    ref = torch.matmul(a.float(), b[0].float()).unsqueeze(0)
    check_("square_bf16 8192^3", suite.square_bf16, [a, b], ref, bf16, (1, 8192, 8192))


def main():
    args, gen, header = setup()
    schedules = load_schedules(args.artifacts)
    _, suite, example = schedules[0]
    results = dict(header, correctness=[], validation=[], speed=[])
    f16, bf16 = torch.float16, torch.bfloat16

    print("== correctness (fp32 reference, NaN-poisoned outputs)")
    corr = results["correctness"]
    for schedule, s_suite, s_example in schedules:
        check_tma_kernels("[%s] " % schedule, s_suite, s_example, gen, corr)
    print("== portable path (sm_90a fallback, and sm_80 PTX JIT-compiled here)")
    portable = sparcast.load(os.path.join(args.artifacts, "gemm_portable"))
    sm80 = sparcast.load(os.path.join(args.artifacts, "gemm_suite_sm80"))
    for B in (1, 4):
        a = uniform((B, 70, 40), f16, gen)
        b = uniform((B, 50, 40), f16, gen)
        ref = torch.bmm(a.float(), b.float().transpose(1, 2))
        corr.append(check("portable transposed_f16 B=%d" % B, portable.transposed_f16, [a, b], ref,
                          torch.float32, (B, 70, 50)))
        a = uniform((33, 13), bf16, gen)
        b = uniform((B, 13, 24), bf16, gen)
        ref = torch.matmul(a.float(), b.float())
        corr.append(check("portable unaligned_k_bf16 B=%d" % B, portable.unaligned_k_bf16, [a, b], ref,
                          torch.float32, (B, 33, 24)))
        a = uniform((B, 17, 9), torch.float32, gen)
        b = uniform((9, 11), torch.float32, gen)
        ref = torch.matmul(a.double(), b.double())
        corr.append(check("portable f32_operands B=%d" % B, portable.f32_operands, [a, b], ref,
                          torch.float32, (B, 17, 11)))
        a = uniform((B, 200, 72), f16, gen)
        b = uniform((B, 72, 136), f16, gen)
        bias = uniform((136,), torch.float32, gen)
        ref = torch.relu(torch.bmm(a.float(), b.float()) + bias)
        corr.append(check("sm_80 odd_bias_relu_f16 B=%d" % B, sm80.odd_bias_relu_f16, [a, b, bias], ref,
                          torch.float32, (B, 200, 136)))
        w = uniform((433, 872), f16, gen)
        e = uniform((B, 872, 256), f16, gen)
        ref = torch.matmul(w.float(), e.float())
        corr.append(check("sm_80 shared_w_f16 B=%d" % B, sm80.shared_w_f16, [w, e], ref, f16, (B, 433, 256)))

    print("== runtime validation (each must raise SparcastError)")
    w = uniform((433, 872), f16, gen)
    e = uniform((4, 872, 256), f16, gen)
    user = uniform((2, 433, 256), torch.float32, gen)
    idx = torch.tensor([0, 1, 1, 2], dtype=torch.int32, device="cuda")  # 2 is out of range
    bad_cases = {
        "index out of range": lambda: example.gemm_gather_add(w, e, user, idx, check_indices=True),
        "wrong static dim": lambda: suite.shared_w_f16(uniform((433, 864), f16, gen), e),
        "wrong dtype": lambda: suite.shared_w_f16(w.float(), e),
        "misaligned pointer": lambda: suite.shared_w_f16(
            w, uniform((4 * 872 * 256 + 1,), f16, gen)[1:].view(4, 872, 256)),
        "inconsistent batch": lambda: suite.bmm_f16(uniform((3, 433, 872), f16, gen), e),
    }
    for name, fn in bad_cases.items():
        try:
            fn()
            torch.cuda.synchronize()
            results["validation"].append({"case": name, "ok": False, "message": "no error"})
            print("  %-22s FAIL: no error" % name)
        except sparcast.SparcastError as err:
            results["validation"].append({"case": name, "ok": True, "message": str(err)})
            print("  %-22s ok: %s" % (name, err))

    print("== speed (CUDA events, median of 70 per kernel, measured in interleaved rounds)")
    def speed(name, ours, peers, flops, sustained=()):
        row = {"case": name}
        fns = dict(ours, **peers)
        ms = compare_ms(fns)
        for schedule in ours:
            row[schedule + "_ms"] = ms[schedule]
            row[schedule + "_tflops"] = flops / row[schedule + "_ms"] / 1e9
        for peer_name in peers:
            row[peer_name + "_ms"] = ms[peer_name]
            for schedule in ours:
                row["ratio_%s_vs_%s" % (schedule, peer_name)] = row[peer_name + "_ms"] / row[schedule + "_ms"]
        row["gpu_state_after"] = gpu_state()
        # Each of `sustained` alone for seconds, at the power cap.
        for fn_name in sustained:
            record_sustained(row, fn_name, fns[fn_name], flops, batch=3)
        results["speed"].append(row)
        print("  " + json.dumps(row))

    a = uniform((8192, 8192), bf16, gen)
    b = uniform((1, 8192, 8192), bf16, gen)
    out = torch.empty((1, 8192, 8192), dtype=bf16, device="cuda")
    speed("bf16 8192^3", {s: (lambda m=m: m.square_bf16(a, b, out=[out])) for s, m, _ in schedules},
          {"cublas": lambda: torch.matmul(a, b[0])}, 2 * 8192 ** 3, sustained=("auto", "cublas"))
    B = 1024
    w = uniform((433, 872), f16, gen)
    ab = uniform((B, 433, 872), f16, gen)
    e = uniform((B, 872, 256), f16, gen)
    out = torch.empty((B, 433, 256), dtype=f16, device="cuda")
    speed("f16 bmm B=1024 433x256x872", {s: (lambda m=m: m.bmm_f16(ab, e, out=[out])) for s, m, _ in schedules},
          {"torch_bmm": lambda: torch.bmm(ab, e)}, 2 * B * 433 * 256 * 872)
    wt = uniform((256, 872), f16, gen)
    speed("f16 linear B=1024 433x256x872 (x @ w^T)",
          {s: (lambda m=m: m.linear_f16(ab, wt, out=[out])) for s, m, _ in schedules},
          {"torch_matmul": lambda: torch.matmul(ab, wt.t())}, 2 * B * 433 * 256 * 872)
    res = uniform((B, 433, 256), f16, gen)
    speed("f16 linear + residual B=1024 433x256x872 (x @ w^T + r)",
          {s: (lambda m=m: m.linear_residual_f16(ab, wt, res, out=[out])) for s, m, _ in schedules},
          {"torch_matmul_plus_add": lambda: torch.matmul(ab, wt.t()) + res}, 2 * B * 433 * 256 * 872)
    speed("f16 shared W B=1024 433x256x872",
          {s: (lambda m=m: m.shared_w_f16(w, e, out=[out])) for s, m, _ in schedules},
          {"torch_matmul": lambda: torch.matmul(w, e)}, 2 * B * 433 * 256 * 872)
    user = uniform((15, 433, 256), torch.float32, gen)
    idx = torch.sort(torch.randint(0, 15, (B,), generator=gen, device="cuda", dtype=torch.int32))[0]
    speed("f16 gather-add B=1024 U=15",
          {s: (lambda x=x: x.gemm_gather_add(w, e, user, idx, out=[out])) for s, _, x in schedules},
          {"torch_matmul_plus_gather": lambda: torch.matmul(w, e) + user[idx.long()]},
          2 * B * 433 * 256 * 872)
    user16 = user.to(f16)
    speed("f16 gather-add, f16 request result (TMA-prefetched) B=1024 U=15",
          {s: (lambda m=m: m.gather_add_f16_user(w, e, user16, idx, out=[out])) for s, m, _ in schedules},
          {"torch_matmul_plus_gather": lambda: torch.matmul(w, e) + user16[idx.long()]},
          2 * B * 433 * 256 * 872)

    # A tower layer over 1,024 candidate rows: 32 tiles of 128 x 256, each
    # K in 4 parts (split-K) against cuBLAS's linear + ReLU.
    tx = uniform((B, 1, 4096), bf16, gen)
    tw = uniform((1024, 4096), bf16, gen)
    tb = uniform((1024,), torch.float32, gen)
    tb16 = tb.to(bf16)
    tout = torch.empty((B, 1, 1024), dtype=bf16, device="cuda")
    speed("bf16 tower B=1024 1024x4096 (x @ w^T + bias, ReLU; split-K)",
          {s: (lambda m=m: m.tower_bf16(tx, tw, tb, out=[tout])) for s, m, _ in schedules
           if hasattr(m, "tower_bf16")},
          {"torch_linear_relu": lambda: torch.relu(torch.nn.functional.linear(tx, tw, tb16))},
          2 * B * 1024 * 4096)

    results["all_correct"] = all(c["ok"] for c in corr)
    results["all_validation_ok"] = all(v["ok"] for v in results["validation"])
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print("correct: %s, validation: %s" % (results["all_correct"], results["all_validation_ok"]))


if __name__ == "__main__":
    main()
