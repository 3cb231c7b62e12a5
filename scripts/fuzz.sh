#!/usr/bin/env bash
# Runs the libFuzzer targets for longer than the test suite does (which
# replays each corpus and runs a fixed number of mutations):
#   ./scripts/fuzz.sh [SECONDS]     (default 600 a target)
# The targets are built in build-fuzz/, where every Sparcast library carries
# libFuzzer's coverage instrumentation and ASan (SPARCAST_FUZZ_COVERAGE),
# so that the sc fuzzer follows the passes' branches. New inputs go to
# build-fuzz/fuzz/<target>/; a crash leaves its reproducer (crash-*) in the
# current folder and fails the script.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-600}"
export SPARCAST_BUILD_DIR="${SPARCAST_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
"$ROOT/scripts/setup.sh"
if [ ! -f "$SPARCAST_BUILD_DIR/build.ninja" ]; then
  cmake -S "$ROOT" -B "$SPARCAST_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DSPARCAST_FUZZ_COVERAGE=ON >/dev/null
fi
ninja -C "$SPARCAST_BUILD_DIR" sparcast-manifest-fuzzer sparcast-sc-fuzzer sparcast-onnx-fuzzer | { grep -v "^\[" || true; }
run() { # NAME CORPUS EXTRA...
  local fuzzer="$SPARCAST_BUILD_DIR/bin/sparcast-$1-fuzzer" corpus="$2"; shift 2
  [ -x "$fuzzer" ] || { echo "fuzz.sh: $fuzzer not built (needs clang with libfuzzer-22-dev, libclang-rt-22-dev)"; exit 1; }
  local out="$SPARCAST_BUILD_DIR/fuzz/$(basename "$fuzzer")"
  mkdir -p "$out"
  echo "== $(basename "$fuzzer"), $SECONDS_EACH s"
  "$fuzzer" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 "$@" "$out" "$corpus" 2>&1 |
    grep -E "^stat::|ERROR|SUMMARY|Done"
}
run manifest "$ROOT/runtime/fuzz/manifest-corpus"
run sc "$ROOT/test/fuzz/sc-corpus" -max_len=4096
run onnx "$ROOT/test/fuzz/onnx-corpus" -max_len=4096
