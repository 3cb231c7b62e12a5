#!/usr/bin/env bash
# Runs on the GPU machine (artifacts carried, as for device-check.sh): small
# cases of every kernel under compute-sanitizer's memcheck and racecheck.
# Each tool's report goes to $OUT (or bench/runs/latest).
# SPARCAST_SANITIZE_ONLY=gemm,attention,loglinear limits the cases (see
# bench/sanitize_case.py --only); SPARCAST_SANITIZE_KERNELS=kns=NAME
# instruments only kernels whose name contains NAME (compute-sanitizer's
# --kernel-name; e.g. ours, not torch's); SPARCAST_ARTIFACTS=DIR checks another
# build (e.g. one of build-baseline-artifacts.sh). (synccheck is
# left out: under it the warp-specialized kernels fail to launch with no
# report, 2026-11-29; its instrumentation and setmaxnreg do not mix.)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/device-env.sh"
SANITIZER="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
status=0
for tool in memcheck racecheck; do
  echo "== $tool"
  if PYTHONUNBUFFERED=1 timeout "${SPARCAST_CHECK_TIMEOUT:-200}" "$SANITIZER" --tool "$tool" --error-exitcode 3 \
      ${SPARCAST_SANITIZE_KERNELS:+--kernel-name "$SPARCAST_SANITIZE_KERNELS"} \
      python3 "$ROOT/bench/sanitize_case.py" --artifacts "${SPARCAST_ARTIFACTS:-$ROOT/bench/artifacts}" --only "${SPARCAST_SANITIZE_ONLY:-}" \
      > "$OUT_DIR/sanitize-$tool.log" 2>&1; then
    echo "$tool: clean"
  else
    echo "$tool: FAILED (exit $?)"; status=1
  fi
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|Error|hazard" "$OUT_DIR/sanitize-$tool.log" | head -20 || true
done
exit $status
