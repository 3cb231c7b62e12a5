#!/usr/bin/env bash
# Sets up (if needed), builds, and runs every test: the lit suite (FileCheck,
# -verify-diagnostics, CPU equivalence proofs, PTX/ptxas) and the GoogleTest
# suite through ctest. Prints both summaries; exits non-zero on any failure.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SPARCAST_BUILD_DIR:-$ROOT/build}"

"$ROOT/scripts/build.sh" || { echo "test.sh: build failed"; exit 1; }

if [ ! -x /usr/local/cuda/bin/ptxas ] && ! command -v ptxas >/dev/null; then
  echo "test.sh: ptxas not found: tests that need it are skipped"
fi

echo "== lit"
LIT_LOG="$BUILD/lit.log"
/usr/lib/llvm-22/bin/lit -sv "$BUILD/test" 2>&1 | tee "$LIT_LOG"
lit_rc=${PIPESTATUS[0]}

echo "== ctest (GoogleTest)"
(cd "$BUILD" && ctest --output-on-failure -j"$(nproc)")
ctest_rc=$?

lit_passed=$(grep -Eo "Passed *: *[0-9]+" "$LIT_LOG" | grep -Eo "[0-9]+" || echo 0)
lit_failed=$(grep -Eo "Failed *: *[0-9]+" "$LIT_LOG" | grep -Eo "[0-9]+" || echo 0)
echo "lit: ${lit_passed:-0} passed, ${lit_failed:-0} failed"
if [ "$lit_rc" -ne 0 ] || [ "$ctest_rc" -ne 0 ]; then
  echo "test.sh: FAILED (lit exit $lit_rc, ctest exit $ctest_rc)"
  exit 1
fi
echo "test.sh: all tests passed"
