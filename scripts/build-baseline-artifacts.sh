#!/usr/bin/env bash
# Compiles the attention and LCE artifacts of another revision (default:
# main) into bench/artifacts/NAME (default: baseline), for A/B runs on the
# GPU machine (several revisions: one NAME each):
#   bench/attention_check.py ... --baseline bench/artifacts/baseline
#   bench/lce_check.py ...       --baseline bench/artifacts/baseline
# Run after scripts/build-device-artifacts.sh (which clears bench/artifacts).
# Needs a clean work tree: it checks REV out, builds, compiles, and checks
# the current branch out again (and rebuilds it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REV="${1:-main}"
NAME="${2:-baseline}"
BIN="${SPARCAST_BUILD_DIR:-$ROOT/build}/bin"
cd "$ROOT"
if ! git diff --quiet || ! git diff --cached --quiet; then
  echo "build-baseline-artifacts: commit or stash your changes first" >&2
  exit 1
fi
here="$(git rev-parse --abbrev-ref HEAD)"
[ "$here" = HEAD ] && here="$(git rev-parse HEAD)"
out="$(mktemp -d)"
trap 'git checkout -q "$here"; "$ROOT/scripts/build.sh" >/dev/null; rm -rf "$out"' EXIT
git checkout -q "$REV"
"$ROOT/scripts/build.sh" >/dev/null
for model in examples/target_attention.mlir bench/attention_suite.mlir \
             examples/loglinear_attention.mlir examples/lce.mlir bench/lce_odd.mlir; do
  "$BIN/sparcast-aot" "$ROOT/$model" -o "$out/$(basename "$model" .mlir)" >/dev/null
done
rm -rf "$ROOT/bench/artifacts/$NAME"
mkdir -p "$ROOT/bench/artifacts"
cp -r "$out" "$ROOT/bench/artifacts/$NAME"
echo "artifacts of $REV ($(git rev-parse --short "$REV")) in bench/artifacts/$NAME"
