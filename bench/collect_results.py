#!/usr/bin/env python3
"""Writes bench/results/<workload>.json, one current file per workload, from
the JSON files one device run wrote (scripts/device-check.sh: gemm.json, gemm-sm80.json,
attention-sm80.json, lce.json, lce-sweep.json, lce-rows.json, rows.json,
attention.json, experimental.json, ceiling.json, similarity.json).

Every file keeps the run's date, GPU, commit and torch version, and the
rows of its workload (ours and each peer timed in the same rounds, ratios,
errors). A run replaces the files it has; git keeps the history, so no
dated copies are written.

    python3 bench/collect_results.py RUN_DIR [--results bench/results]
"""
import argparse
import json
import os
import sys

HEADER = ("date", "gpu", "commit", "torch")


def is_target_attention(row):
    case = row.get("case", "")
    return (case.startswith(("ta_", "self_", "target attention"))
            or "target_attention" in case)


def split_attention(run):
    """attention_check.py times target attention (IKBO type II) and the
    log-linear block-sparse attention in one process: one file each."""
    target, sparse = {}, {}
    for key in ("correctness", "speed"):
        rows = run.get(key, [])
        target[key] = [r for r in rows if is_target_attention(r)]
        sparse[key] = [r for r in rows if not is_target_attention(r)]
    return {"target-attention": target, "block-sparse-attention": sparse}


def workloads(name, run):
    """(workload, rows) pairs of one check's JSON."""
    if name == "attention":
        return split_attention(run).items()
    rows = {k: v for k, v in run.items() if k not in HEADER + ("workload",)}
    renamed = {"experimental": "opt-in-kernels", "ceiling": "attention-ceiling",
               "similarity": "sparse-similarity", "lce-rows": "lce-rows-by-threads",
               "rows": "gemm-rows-by-threads"}
    return [(renamed.get(name, name), rows)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--results", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args()
    runs = {}
    for name in ("gemm", "gemm-sm80", "attention-sm80", "lce", "lce-sweep", "lce-rows",
                 "rows", "attention", "experimental", "ceiling", "similarity"):
        path = os.path.join(args.run_dir, name + ".json")
        if os.path.exists(path):
            with open(path) as f:
                runs[name] = json.load(f)
    # One run: a header field one check leaves out comes from the others.
    common = {k: next((r[k] for r in runs.values() if r.get(k)), None)
              for k in HEADER}
    written = []
    for name, run in runs.items():
        for workload, rows in workloads(name, run):
            out = {k: run.get(k) or common[k] for k in HEADER}
            out["workload"] = workload
            if "correctness" in rows:
                out["all_correct"] = all(r.get("ok", True)
                                         for r in rows["correctness"])
            out.update(rows)
            target = os.path.join(args.results, workload + ".json")
            with open(target, "w") as f:
                json.dump(out, f, indent=1, allow_nan=True)
                f.write("\n")
            written.append(target)
    if not written:
        sys.exit(f"no check results (gemm.json, lce.json, ...) in {args.run_dir}")
    for path in written:
        print("wrote", path)


if __name__ == "__main__":
    main()
