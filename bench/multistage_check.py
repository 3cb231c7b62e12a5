"""The sm_80 / sm_86 / sm_89 GEMM (the multistage schedule: cp.async ring,
ldmatrix, mma.sync) checked and timed on the machine at hand: its PTX,
compiled for sm_80, is JIT-compiled by the driver (on an H100 / H200 too).

Correctness: every GEMM of bench/gemm_suite.mlir and the gather-add example
against fp32 references, outputs NaN-poisoned (gemm_check's cases). Speed,
in interleaved rounds of one run: against cuBLAS (torch.matmul) and, with
--baseline, the same suite from a build whose sm_80 GEMMs were the portable
scalar kernel. On a Hopper GPU cuBLAS uses wgmma, which mma.sync cannot
reach there: the ratio to cuBLAS means something on the chips the kernel is
for (A100, A10, L4, L40S), not here; the ratio to the portable kernel does.
With the suite also built with --ampere-gemm-tile-cols=128 (artifacts
gemm_suite_sm80_narrow and gemm_sm80_narrow, as build-device-artifacts.sh
makes them: 128 x 128 tiles where the default takes 128 x 256), that build
is checked too and timed in the same rounds.

    python3 bench/multistage_check.py --artifacts bench/artifacts \
        --baseline DIR_WITH_PORTABLE_gemm_suite_sm80 --out multistage.json
"""
import os

import torch

import gemm_check as g
import sparcast


def main():
    args, gen, header = g.setup()
    suite = sparcast.load(os.path.join(args.artifacts, "gemm_suite_sm80"))
    example = sparcast.load(os.path.join(args.artifacts, "gemm_sm80"))
    results = dict(header, correctness=[], speed=[])
    print("== correctness (sm_80 PTX, fp32 reference, NaN-poisoned outputs)")
    g.check_tma_kernels("[multistage] ", suite, example, gen, results["correctness"])
    narrow = None
    if os.path.isdir(os.path.join(args.artifacts, "gemm_suite_sm80_narrow")):
        narrow = sparcast.load(os.path.join(args.artifacts, "gemm_suite_sm80_narrow"))
        narrow_example = sparcast.load(os.path.join(args.artifacts, "gemm_sm80_narrow"))
        g.check_tma_kernels("[multistage 128x128] ", narrow, narrow_example, gen,
                            results["correctness"])

    base = None
    if args.baseline:
        base = sparcast.load(os.path.join(args.baseline, "gemm_suite_sm80"))
    f16, bf16 = torch.float16, torch.bfloat16
    print("== speed (median ms of interleaved rounds)")
    cases = []
    B = 64
    w = g.uniform((433, 872), f16, gen)
    e = g.uniform((B, 872, 256), f16, gen)
    x = g.uniform((B, 433, 872), f16, gen)
    wt = g.uniform((256, 872), f16, gen)
    cases.append(("shared_w_f16 B=64 (433x256x872)", "shared_w_f16", [w, e],
                  lambda: torch.matmul(w, e), (B, 433, 256), f16, 2 * B * 433 * 256 * 872))
    cases.append(("bmm_f16 B=64", "bmm_f16", [x, e], lambda: torch.bmm(x, e),
                  (B, 433, 256), f16, 2 * B * 433 * 256 * 872))
    cases.append(("linear_f16 B=64 (x @ w^T)", "linear_f16", [x, wt],
                  lambda: torch.matmul(x, wt.t()), (B, 433, 256), f16, 2 * B * 433 * 256 * 872))
    a = g.uniform((8192, 8192), bf16, gen)
    b = g.uniform((1, 8192, 8192), bf16, gen)
    cases.append(("square_bf16 8192^3", "square_bf16", [a, b], lambda: torch.matmul(a, b[0]),
                  (1, 8192, 8192), bf16, 2 * 8192 ** 3))
    for name, entry, inputs, cublas, shape, dtype, flops in cases:
        out = torch.empty(shape, dtype=dtype, device="cuda")
        fns = {"ours": lambda: getattr(suite, entry)(*inputs, out=[out]), "cublas": cublas}
        if narrow is not None:
            fns["narrow"] = lambda: getattr(narrow, entry)(*inputs, out=[out])
        if base is not None and name != "square_bf16 8192^3":
            # (The scalar kernel takes seconds at 8192^3.)
            fns["portable"] = lambda: getattr(base, entry)(*inputs, out=[out])
        ms = g.compare_ms(fns, rounds=5, iters=6)
        row = {"case": name, "ours_ms": ms["ours"], "cublas_ms": ms["cublas"],
               "ours_tflops": flops / ms["ours"] / 1e9,
               "ratio_vs_cublas": ms["cublas"] / ms["ours"]}
        text = "  %-34s ours %.3f ms (%.0f TFLOP/s), cuBLAS %.3f ms (ours %.2fx)" % (
            name, ms["ours"], row["ours_tflops"], ms["cublas"], row["ratio_vs_cublas"])
        if "narrow" in ms:
            row["narrow_ms"] = ms["narrow"]
            row["narrow_ratio_vs_cublas"] = ms["cublas"] / ms["narrow"]
            text += ", 128x128 tiles %.3f ms (%.2fx cuBLAS)" % (ms["narrow"], row["narrow_ratio_vs_cublas"])
        if "portable" in ms:
            row["portable_ms"] = ms["portable"]
            row["speedup_vs_portable"] = ms["portable"] / ms["ours"]
            text += ", portable %.3f ms (%.1fx)" % (ms["portable"], row["speedup_vs_portable"])
        print(text, flush=True)
        results["speed"].append(row)
    g.write_results(results, args.out)


if __name__ == "__main__":
    main()
