#!/usr/bin/env bash
# Runs on the GPU machine: checks and times candidate builds against the
# build in bench/artifacts, in the same process each (A/B on one GPU state).
#
#   here:  ./scripts/build-device-artifacts.sh             (the reference)
#          ./scripts/build-baseline-artifacts.sh REV NAME   (per candidate)
#   there: ./scripts/device-ab.sh COMMIT NAME...            (carry bench/artifacts)
#
# For each NAME: bench/attention_check.py and bench/lce_check.py on
# bench/artifacts/NAME with --baseline bench/artifacts; results in $OUT (or
# bench/runs/latest) as NAME-attention.json / NAME-lce.json with logs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/device-env.sh"
commit="${1:?usage: device-ab.sh COMMIT NAME...}"
shift
for name in "$@"; do
  dir="$ROOT/bench/artifacts/$name"
  [ -d "$dir" ] || { echo "no $dir" >&2; exit 1; }
  for check in attention lce; do
    echo "== $name: $check"
    PYTHONUNBUFFERED=1 timeout "${SPARCAST_CHECK_TIMEOUT:-300}" python3 "$ROOT/bench/${check}_check.py" \
      --artifacts "$dir" --baseline "$ROOT/bench/artifacts" --out "$OUT_DIR/$name-$check.json" \
      --commit "$commit ($name)" > "$OUT_DIR/$name-$check.log" 2>&1 || echo "$name $check failed or timed out"
    grep -E "FAIL|correct|speedup_vs_baseline|baseline [0-9]" "$OUT_DIR/$name-$check.log" | cut -c1-240 | head -20 || true
  done
done
