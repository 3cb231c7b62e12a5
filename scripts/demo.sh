#!/usr/bin/env bash
# Sets up (if needed), builds, then shows the main job on the bundled
# examples: parse and verify the model graphs, lower one to the CPU golden
# model and run it against its hand-decomposed IKBO form, compile the LCE
# model graph, the GEMM example and the attention models into artifacts
# (PTX, cubin when ptxas is installed, manifest, C header) with a report of
# every decision, and compile the example kernel to PTX.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SPARCAST_BUILD_DIR:-$ROOT/build}"
BIN="$BUILD/bin"
OUT="${SPARCAST_DEMO_OUT:-$BUILD/demo}"

"$ROOT/scripts/build.sh"
mkdir -p "$OUT"

echo "== 1. verify the model graphs in examples/"
for model in "$ROOT"/examples/*.mlir; do
  "$BIN/sparcast-opt" "$model" >/dev/null
  ops=$("$BIN/sparcast-opt" "$model" | grep -Eo "= sc\.[a-z_]+" | sed "s/= //" | sort | uniq -c | tr -s ' ' | tr '\n' ',')
  echo "  $(basename "$model"): verified; sc ops:${ops%,}"
done

echo "== 2. the reference lowering of examples/lce.mlir (golden model)"
"$BIN/sparcast-opt" "$ROOT/examples/lce.mlir" --sc-lower-to-linalg -o "$OUT/lce.linalg.mlir"
echo "  $(grep -c linalg.generic "$OUT/lce.linalg.mlir") linalg.generic ops -> $OUT/lce.linalg.mlir"

echo "== 3. run the plain LCE graph and its IKBO decomposition on the CPU"
"$BIN/sparcast-equiv" "$ROOT/test/Integration/CPU/lce-decomposition.mlir" \
  --ref=plain --test=decomposed --users=4 --candidates=70 --trials=2 --rtol=2e-3 | sed 's/^/  /'

echo "== 4. compile the LCE model graph ahead of time: lineage, IKBO decomposition, K padding, fusion"
rm -rf "$OUT/lce"
"$BIN/sparcast-aot" "$ROOT/examples/lce.mlir" -o "$OUT/lce" --report 2>&1 \
  | grep -vE "ptxas info    : (0 bytes gmem|Compile time|Compiling|Function prop)" | sed 's/^/  /'
echo "  artifact: $(ls "$OUT/lce" | tr '\n' ' ')"
echo "  the kernels' tiling, roles and registers are decided on the kernel-level IR (sc-lower-to-sck,"
echo "  sc-persistent, sc-warp-specialize; here with FlashAttention-3's 24/240 register split):"
rm -rf "$OUT/lce_ws"
"$BIN/sparcast-aot" "$ROOT/examples/lce.mlir" -o "$OUT/lce_ws" --report \
  --ws-producer-regs=24 --ws-consumer-regs=240 2>&1 \
  | grep -E "tile loop|warp-specialized:" | sed 's/^/  /'
echo "  and the kernel-level IR run on the CPU in place of the GEMMs (sc-test-execute-kernel-ir):"
"$BIN/sparcast-equiv" "$ROOT/test/Integration/CPU/Inputs/lce-odd.mlir" --ref=lce \
  --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config),sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-test-execute-kernel-ir)' \
  --users=4 --candidates=17 --trials=2 --shuffle-index --rtol=2e-3 | sed 's/^/  /'

echo "== 5. compile examples/gemm.mlir ahead of time (sm_90a)"
rm -rf "$OUT/gemm"
"$BIN/sparcast-aot" "$ROOT/examples/gemm.mlir" -o "$OUT/gemm" --report 2>&1 \
  | grep -E "^kernel|spill|Used|ptxas not found|wrote" | sed 's/^/  /'
echo "  artifact: $(ls "$OUT/gemm" | tr '\n' ' ')"
echo "  run it on a GPU machine: ./scripts/device-check.sh (see README)"

echo "== 6. compile the attention models: target attention (IKBO type II) and log-linear block-sparse"
for model in target_attention loglinear_attention; do
  rm -rf "$OUT/$model"
  "$BIN/sparcast-aot" "$ROOT/examples/$model.mlir" -o "$OUT/$model" --report 2>&1 \
    | grep -E "^kernel|keys and values|spill|ptxas not found" | sed 's/^/  /'
done

echo "== 7. compile examples/kernels/scale_rows.mlir"
"$BIN/sparcast-translate" --mlir-to-ptx --sm=sm_90a "$ROOT/examples/kernels/scale_rows.mlir" -o "$OUT/scale_rows.sm_90a.ptx"
"$BIN/sparcast-translate" --mlir-to-ptx --sm=sm_80 "$ROOT/examples/kernels/scale_rows.mlir" -o "$OUT/scale_rows.sm_80.ptx"
echo "  PTX: $OUT/scale_rows.sm_90a.ptx ($(grep -m1 '^.target' "$OUT/scale_rows.sm_90a.ptx")), $OUT/scale_rows.sm_80.ptx"
if "$BIN/sparcast-translate" --mlir-to-cubin --sm=sm_90a "$ROOT/examples/kernels/scale_rows.mlir" -o "$OUT/scale_rows.sm_90a.cubin" 2>/dev/null; then
  echo "  cubin: $OUT/scale_rows.sm_90a.cubin ($(stat -c %s "$OUT/scale_rows.sm_90a.cubin") bytes)"
else
  echo "  cubin: skipped (ptxas not found)"
fi
echo "demo: done"
