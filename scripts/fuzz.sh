#!/usr/bin/env bash
# Runs the libFuzzer targets for longer than the test suite does (which
# replays each corpus and runs a fixed number of mutations):
#   ./scripts/fuzz.sh [SECONDS]     (default 600 a target)
# New inputs go to build/fuzz/<target>/; a crash leaves its reproducer
# (crash-*) in the current folder and fails the script. The manifest
# fuzzer is instrumented throughout; the sc fuzzer only in its own file
# (the MLIR libraries it drives are the test build's), so it searches
# mostly by mutation, with ASan watching every allocation.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SPARCAST_BUILD_DIR:-$ROOT/build}"
SECONDS_EACH="${1:-600}"
"$ROOT/scripts/build.sh"
run() { # NAME CORPUS EXTRA...
  local fuzzer="$BUILD/bin/sparcast-$1-fuzzer" corpus="$2"; shift 2
  [ -x "$fuzzer" ] || { echo "fuzz.sh: $fuzzer not built (needs clang with libfuzzer-22-dev, libclang-rt-22-dev)"; exit 1; }
  mkdir -p "$BUILD/fuzz/$(basename "$fuzzer")"
  echo "== $(basename "$fuzzer"), $SECONDS_EACH s"
  "$fuzzer" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 "$@" "$BUILD/fuzz/$(basename "$fuzzer")" "$corpus" 2>&1 |
    grep -E "^stat::|ERROR|SUMMARY|Done"
}
run manifest "$ROOT/runtime/fuzz/manifest-corpus"
run sc "$ROOT/test/fuzz/sc-corpus" -max_len=4096
