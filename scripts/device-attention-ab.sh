#!/usr/bin/env bash
# Runs on the GPU machine: attention candidates against the build in
# bench/artifacts, each in one go: the checks and A/B timings
# (bench/attention_check.py --baseline), memcheck + racecheck on small
# target-attention batches (one with a candidate alone, one of pairs only),
# and, where the tree has it, the native liveness stress
# (bench/stress_attention.py). Everything lands in $OUT/attention-ab.tgz
# (one file: the device tool brings back at most eight).
#
#   here:  ./scripts/build-device-artifacts.sh             (the reference)
#          ./scripts/build-baseline-artifacts.sh REV NAME   (per candidate)
#   there: ./scripts/device-attention-ab.sh COMMIT NAME...
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/device-env.sh"
commit="${1:?usage: device-attention-ab.sh COMMIT NAME...}"
shift
work="$(mktemp -d)"
pack() { tar czf "$OUT_DIR/attention-ab.tgz" -C "$work" .; }
for name in "$@"; do
  dir="$ROOT/bench/artifacts/$name"
  [ -d "$dir" ] || { echo "no $dir" >&2; continue; }
  echo "== $name: checks and A/B"
  PYTHONUNBUFFERED=1 timeout "${SPARCAST_CHECK_TIMEOUT:-300}" python3 "$ROOT/bench/attention_check.py" \
    --artifacts "$dir" --baseline "$ROOT/bench/artifacts" --out "$work/$name-attention.json" \
    --commit "$commit ($name)" > "$work/$name-attention.log" 2>&1 || echo "$name: attention_check failed or timed out"
  grep -E "FAIL|correct:|S=" "$work/$name-attention.log" | cut -c1-200
  pack
  for index in 0,0,0 0,1,1,0; do
    echo "== $name: sanitizers, index $index"
    OUT="$work/$name-sanitize-$index" SPARCAST_CHECK_TIMEOUT="${SPARCAST_SANITIZE_TIMEOUT:-60}" \
      SPARCAST_ARTIFACTS="$dir" SPARCAST_SANITIZE_ONLY=attention SPARCAST_SANITIZE_INDEX="$index" \
      "$ROOT/scripts/sanitize.sh" 2>&1 | grep -E "clean|FAILED|SUMMARY" | grep -v fmha
    pack
  done
  if [ -f "$ROOT/bench/stress_attention.py" ]; then
    echo "== $name: native stress"
    PYTHONUNBUFFERED=1 timeout 120 python3 "$ROOT/bench/stress_attention.py" --artifacts "$dir" \
      --rounds 3000 2>&1 | tee "$work/$name-stress.log" | tail -2
    pack
  fi
done
pack
