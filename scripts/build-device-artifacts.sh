#!/usr/bin/env bash
# Compiles the kernels the GPU checks use into bench/artifacts/ (carried to
# the GPU machine by the device tool; ignored by git).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${SPARCAST_BUILD_DIR:-$ROOT/build}/bin"
"$ROOT/scripts/build.sh"
rm -rf "$ROOT/bench/artifacts"
"$BIN/sparcast-aot" "$ROOT/examples/gemm.mlir" -o "$ROOT/bench/artifacts/gemm" --report
"$BIN/sparcast-aot" "$ROOT/bench/gemm_suite.mlir" -o "$ROOT/bench/artifacts/gemm_suite" --report
"$BIN/sparcast-aot" "$ROOT/bench/gemm_portable.mlir" -o "$ROOT/bench/artifacts/gemm_portable" --report
# The same suite through the portable kernel, compiled for sm_80: the
# runtime JIT-compiles its PTX on the H200.
"$BIN/sparcast-aot" "$ROOT/bench/gemm_suite.mlir" -o "$ROOT/bench/artifacts/gemm_suite_sm80" --sm=sm_80
# IKBO LCE: the plain model graphs, decomposed and fused by sparcast-aot.
"$BIN/sparcast-aot" "$ROOT/examples/lce.mlir" -o "$ROOT/bench/artifacts/lce" --report
"$BIN/sparcast-aot" "$ROOT/bench/lce_odd.mlir" -o "$ROOT/bench/artifacts/lce_odd"
