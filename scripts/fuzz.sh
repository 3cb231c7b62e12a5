#!/usr/bin/env bash
# Runs the libFuzzer targets for longer than the test suite does (which
# replays the corpus and fuzzes for 10 s):  ./scripts/fuzz.sh [SECONDS]
# (default 600 a target). New inputs go to build/fuzz/<target>/; a crash
# leaves its reproducer there and fails the script.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SPARCAST_BUILD_DIR:-$ROOT/build}"
SECONDS_EACH="${1:-600}"
"$ROOT/scripts/build.sh"
FUZZER="$BUILD/bin/sparcast-manifest-fuzzer"
[ -x "$FUZZER" ] || { echo "fuzz.sh: $FUZZER not built (needs clang with libfuzzer-22-dev, libclang-rt-22-dev)"; exit 1; }
OUT="$BUILD/fuzz/manifest"
mkdir -p "$OUT"
cd "$OUT"
"$FUZZER" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 \
  -print_final_stats=1 "$OUT" "$ROOT/runtime/fuzz/manifest-corpus"
