"""The experimental GEMM paths that read and write rows in place
(sparcast-aot --rows-by-threads: rows that are no 16-byte multiple copied
and stored by the kernels' threads) on the GPU, quickly: every GEMM of the
suite built with it for sm_90a and for sm_80 (PTX JIT) against fp32
references on fresh inputs, then the N = 250 GEMM timed against the
default build (padded copies) and cuBLAS in the same rounds.

    python3 bench/rows_check.py --artifacts bench/artifacts --out rows.json
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from gemm_check import check_tma_kernels, compare_ms, setup, uniform, write_results  # noqa: E402


def main():
    args, gen, header = setup()
    load = lambda name: sparcast.load(os.path.join(args.artifacts, name))
    example = load("gemm")
    results = dict(header, workload="gemm-rows-by-threads", correctness=[], speed=[])
    print("== correctness (fp32 reference, NaN-poisoned outputs)")
    check_tma_kernels("[sm_90a rows-by-threads] ", load("gemm_suite_rows"), example, gen,
                      results["correctness"])
    check_tma_kernels("[sm_80 rows-by-threads] ", load("gemm_suite_sm80_rows"), load("gemm_sm80"),
                      gen, results["correctness"])
    print("== speed (median ms of interleaved rounds)")
    f16 = torch.float16
    default, rows = load("gemm_suite"), load("gemm_suite_rows")
    for B in (1024, 4096):
        w = uniform((128, 200), f16, gen)
        e = uniform((B, 200, 250), f16, gen)
        out = torch.empty((B, 128, 250), dtype=f16, device="cuda")
        ms = compare_ms({"rows_by_threads": lambda: rows.unaligned_n_f16(w, e, out=[out]),
                         "padded": lambda: default.unaligned_n_f16(w, e, out=[out]),
                         "cublas": lambda: torch.matmul(w, e)})
        row = {"case": "f16 shared W B=%d 128x250x200" % B, "ms": ms,
               "rows_vs_padded": ms["padded"] / ms["rows_by_threads"],
               "rows_vs_cublas": ms["cublas"] / ms["rows_by_threads"]}
        print("  %s" % row, flush=True)
        results["speed"].append(row)
    write_results(results, args.out)


if __name__ == "__main__":
    main()
