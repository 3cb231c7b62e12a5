#!/usr/bin/env bash
# Runs on the GPU machine (device tool, bench/artifacts carried): only the
# experimental paths not yet run on a GPU, checked and timed against the
# default builds in one call of under ten minutes (device-check.sh runs
# everything and takes longer). Results go to $OUT (or bench/runs/latest).
#
#   here:  ./scripts/build-device-artifacts.sh
#   there: ./scripts/device-experiments.sh COMMIT
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/device-env.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# --rows-by-threads: every GEMM of the suite (sm_90a, sm_80), then N = 250.
PYTHONUNBUFFERED=1 timeout 150 python3 "$ROOT/bench/rows_check.py" --artifacts "$ROOT/bench/artifacts" \
  --out "$OUT_DIR/rows.json" --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/rows.log"
# The LCE sweep's N = 250 shapes with it, the default build in the same rounds.
PYTHONUNBUFFERED=1 timeout 180 python3 "$ROOT/bench/lce_sweep.py" check "$ROOT/bench/artifacts/lce_sweep_rows" \
  --only n250 --baseline "$ROOT/bench/artifacts/lce_sweep" --out "$OUT_DIR/lce-rows.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/lce-rows.log"
# --sum-rows-first: the reference ranking model against the default build.
PYTHONUNBUFFERED=1 timeout 180 python3 "$ROOT/examples/ranking_model.py" check --model reference \
  "$ROOT/bench/artifacts/ranker_reference_first" --baseline "$ROOT/bench/artifacts/ranker_reference" \
  --json "$OUT_DIR/ranking-sum-rows-first.json" 2>&1 | tee "$OUT_DIR/ranking-sum-rows-first.log"
