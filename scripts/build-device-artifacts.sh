#!/usr/bin/env bash
# Compiles the kernels the GPU checks use into bench/artifacts/ (carried to
# the GPU machine by the device tool; ignored by git).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${SPARCAST_BUILD_DIR:-$ROOT/build}/bin"
"$ROOT/scripts/build.sh"
rm -rf "$ROOT/bench/artifacts"
# The runtime's JSON library (header-only, Debian's nlohmann-json3-dev) for
# the runtime's build on the GPU machine, which has no such package.
mkdir -p "$ROOT/bench/artifacts/include"
cp -r /usr/include/nlohmann "$ROOT/bench/artifacts/include/"
"$BIN/sparcast-aot" "$ROOT/examples/gemm.mlir" -o "$ROOT/bench/artifacts/gemm" --report
"$BIN/sparcast-aot" "$ROOT/bench/gemm_suite.mlir" -o "$ROOT/bench/artifacts/gemm_suite" --report
"$BIN/sparcast-aot" "$ROOT/bench/gemm_portable.mlir" -o "$ROOT/bench/artifacts/gemm_portable" --report
# The same suite and example compiled for sm_80 (the multistage mma.sync
# kernel; bench/multistage_check.py): the runtime JIT-compiles their PTX on
# the H100 / H200.
"$BIN/sparcast-aot" "$ROOT/bench/gemm_suite.mlir" -o "$ROOT/bench/artifacts/gemm_suite_sm80" --sm=sm_80
"$BIN/sparcast-aot" "$ROOT/examples/gemm.mlir" -o "$ROOT/bench/artifacts/gemm_sm80" --sm=sm_80
# The same with 128 x 128 tiles of 4 warps everywhere (the default takes
# 128 x 256 past 128 columns), checked and timed beside them.
"$BIN/sparcast-aot" "$ROOT/bench/gemm_suite.mlir" -o "$ROOT/bench/artifacts/gemm_suite_sm80_narrow" --sm=sm_80 --ampere-gemm-tile-cols=128
"$BIN/sparcast-aot" "$ROOT/examples/gemm.mlir" -o "$ROOT/bench/artifacts/gemm_sm80_narrow" --sm=sm_80 --ampere-gemm-tile-cols=128
# sm_80's attention (experimental; bench/attention_sm80_check.py).
"$BIN/sparcast-aot" "$ROOT/examples/target_attention.mlir" -o "$ROOT/bench/artifacts/target_attention_sm80" --sm=sm_80 --ampere-attention >/dev/null
"$BIN/sparcast-aot" "$ROOT/examples/self_target_attention.mlir" -o "$ROOT/bench/artifacts/self_target_attention_sm80" --sm=sm_80 --ampere-attention >/dev/null
"$BIN/sparcast-aot" "$ROOT/bench/attention_sm80_suite.mlir" -o "$ROOT/bench/artifacts/attention_sm80_suite" --sm=sm_80 --ampere-attention >/dev/null
# ... and with a K/V ring of three slots (one CTA an SM; timed beside it).
"$BIN/sparcast-aot" "$ROOT/examples/target_attention.mlir" -o "$ROOT/bench/artifacts/target_attention_sm80_s3" --sm=sm_80 --ampere-attention --ampere-attention-stages=3 >/dev/null
# IKBO LCE: the plain model graphs, decomposed and fused by sparcast-aot.
"$BIN/sparcast-aot" "$ROOT/examples/lce.mlir" -o "$ROOT/bench/artifacts/lce" --report
"$BIN/sparcast-aot" "$ROOT/bench/lce_odd.mlir" -o "$ROOT/bench/artifacts/lce_odd"
# Attention: target attention (IKBO type II) and log-linear block-sparse.
"$BIN/sparcast-aot" "$ROOT/examples/target_attention.mlir" -o "$ROOT/bench/artifacts/target_attention" --report
"$BIN/sparcast-aot" "$ROOT/bench/attention_suite.mlir" -o "$ROOT/bench/artifacts/attention_suite" >/dev/null
# Opt-in: the chained target attention walking its candidates in request
# order (a grouping kernel first; experimental_check.py checks and times it).
"$BIN/sparcast-aot" "$ROOT/examples/target_attention.mlir" -o "$ROOT/bench/artifacts/target_attention_grouped" --attention-group-candidates >/dev/null
"$BIN/sparcast-aot" "$ROOT/bench/attention_suite.mlir" -o "$ROOT/bench/artifacts/attention_suite_grouped" --attention-group-candidates >/dev/null
"$BIN/sparcast-aot" "$ROOT/examples/loglinear_attention.mlir" -o "$ROOT/bench/artifacts/loglinear_attention" --report
# Experimental: the attention kernels lowered op by op from their
# scheduled kernel-level IR (device-check.sh checks them and times them
# against the writer's above; the grouped ones with experimental_check.py).
mkdir -p "$ROOT/bench/artifacts/ir"
"$BIN/sparcast-aot" "$ROOT/bench/attention_suite.mlir" -o "$ROOT/bench/artifacts/ir/attention_suite" --attention-from-kernel-ir >/dev/null
"$BIN/sparcast-aot" "$ROOT/examples/target_attention.mlir" -o "$ROOT/bench/artifacts/ir/target_attention" --attention-from-kernel-ir >/dev/null
"$BIN/sparcast-aot" "$ROOT/examples/loglinear_attention.mlir" -o "$ROOT/bench/artifacts/ir/loglinear_attention" --attention-from-kernel-ir >/dev/null
"$BIN/sparcast-aot" "$ROOT/examples/target_attention.mlir" -o "$ROOT/bench/artifacts/ir/target_attention_grouped" --attention-from-kernel-ir --attention-group-candidates >/dev/null
"$BIN/sparcast-aot" "$ROOT/bench/attention_suite.mlir" -o "$ROOT/bench/artifacts/ir/attention_suite_grouped" --attention-from-kernel-ir --attention-group-candidates >/dev/null
# Hybrid dense / 2:4 / zero tiles (bench/hybrid_check.py).
"$BIN/sparcast-aot" "$ROOT/bench/hybrid_suite.mlir" -o "$ROOT/bench/artifacts/hybrid_suite" >/dev/null
# Split-K of decode (the default picks the parts): three parts everywhere
# (the small correctness cases split too), and none (the A/B's baseline).
"$BIN/sparcast-aot" "$ROOT/bench/hybrid_suite.mlir" -o "$ROOT/bench/artifacts/hybrid_suite_split3" --hybrid-split-k=3 >/dev/null
"$BIN/sparcast-aot" "$ROOT/bench/hybrid_suite.mlir" -o "$ROOT/bench/artifacts/hybrid_suite_nosplit" --hybrid-split-k=1 >/dev/null
# A constant weight packed at compile time (--hybrid-weights).
python3 "$ROOT/bench/make_hybrid_suite.py" --constant > "$ROOT/bench/artifacts/hybrid_const.mlir"
"$BIN/sparcast-aot" "$ROOT/bench/artifacts/hybrid_const.mlir" -o "$ROOT/bench/artifacts/hybrid_const" \
  --hybrid-weights=128x128 >/dev/null
rm "$ROOT/bench/artifacts/hybrid_const.mlir"
# Exact cosine similarity of sparse rows (bench/similarity_check.py).
"$BIN/sparcast-aot" "$ROOT/examples/similarity.mlir" -o "$ROOT/bench/artifacts/similarity" >/dev/null
# Generated linalg.generic kernels: an imported MLP (bench/generic_check.py).
"$BIN/sparcast-aot" "$ROOT/test/Target/ONNX/Inputs/mlp.onnxtxt" -o "$ROOT/bench/artifacts/mlp" >/dev/null
"$BIN/sparcast-aot" "$ROOT/test/Target/AOT/aot-gather.mlir" -o "$ROOT/bench/artifacts/gather" >/dev/null
"$BIN/sparcast-aot" "$ROOT/test/Target/ONNX/Inputs/pool.onnxtxt" -o "$ROOT/bench/artifacts/pool" >/dev/null
# A whole ranking model exported from PyTorch (examples/ranking_model.py;
# its weights are the artifact's arguments, made on the GPU machine).
SPARCAST_AOT="$BIN/sparcast-aot" /usr/bin/python3 "$ROOT/examples/ranking_model.py" \
  compile "$ROOT/bench/artifacts/ranker" >/dev/null
SPARCAST_AOT="$BIN/sparcast-aot" /usr/bin/python3 "$ROOT/examples/ranking_model.py" \
  compile "$ROOT/bench/artifacts/ranker_reference" --model reference >/dev/null
# Experimental: the same with the pooled LCE's weight rows summed before its
# GEMMs (--sum-rows-first); device-check.sh times it against the default.
SPARCAST_AOT="$BIN/sparcast-aot" /usr/bin/python3 "$ROOT/examples/ranking_model.py" \
  compile "$ROOT/bench/artifacts/ranker_reference_first" --model reference --aot-arg=--sum-rows-first >/dev/null
# The LCE over 15 shapes with --autotune (bench/lce_sweep.py).
SPARCAST_AOT="$BIN/sparcast-aot" python3 "$ROOT/bench/lce_sweep.py" compile "$ROOT/bench/artifacts/lce_sweep" >/dev/null
# Experimental: rows that are no TMA stride (N = 250) copied and stored by
# the kernels' threads instead of padded copies (--rows-by-threads);
# bench/rows_check.py and the LCE sweep's A/B check them and time them
# beside the default (device-check.sh, device-experiments.sh).
"$BIN/sparcast-aot" "$ROOT/bench/gemm_suite.mlir" -o "$ROOT/bench/artifacts/gemm_suite_rows" --rows-by-threads >/dev/null
"$BIN/sparcast-aot" "$ROOT/bench/gemm_suite.mlir" -o "$ROOT/bench/artifacts/gemm_suite_sm80_rows" --sm=sm_80 --rows-by-threads >/dev/null
SPARCAST_AOT="$BIN/sparcast-aot" python3 "$ROOT/bench/lce_sweep.py" compile "$ROOT/bench/artifacts/lce_sweep_rows" \
  --only n250 --aot-flag=--rows-by-threads >/dev/null
# The same kernels with each GEMM schedule forced (the ones above use the
# default, auto): the checks run them all and time them side by side.
# Opt-in: the default schedules with B shared by TMA multicast in CTA pairs
# (correct on the H200, not faster; experimental_check.py times them).
for model in examples/gemm.mlir bench/gemm_suite.mlir examples/lce.mlir bench/lce_odd.mlir; do
  name="$(basename "$model" .mlir)"
  "$BIN/sparcast-aot" "$ROOT/$model" -o "$ROOT/bench/artifacts/${name}_mc" --gemm-multicast 2>/dev/null >/dev/null
done
# IKBO LCE with multicast on the cooperative schedule (128-row tiles).
for model in examples/lce.mlir bench/lce_odd.mlir; do
  name="$(basename "$model" .mlir)"
  "$BIN/sparcast-aot" "$ROOT/$model" -o "$ROOT/bench/artifacts/${name}_mc_cooperative" \
    --gemm-multicast --gemm-schedule=cooperative >/dev/null
done
# IKBO LCE with the request GEMM's result in f16 (opt-in precision trade:
# its tiles are then prefetched by TMA in the candidate GEMM's epilogue).
for model in examples/lce.mlir bench/lce_odd.mlir; do
  name="$(basename "$model" .mlir)"
  "$BIN/sparcast-aot" "$ROOT/$model" -o "$ROOT/bench/artifacts/${name}_request16" \
    --ikbo-request-in-result-type >/dev/null
  # The same with ping-pong's kernel only (the default dispatches on the
  # candidates per user: the transposed kernel with many).
  "$BIN/sparcast-aot" "$ROOT/$model" -o "$ROOT/bench/artifacts/${name}_request16_pingpong" \
    --ikbo-request-in-result-type --gemm-schedule=pingpong >/dev/null
done
# IKBO LCE with the register split decided on the kernel-level IR: 24 for
# the producer, 240 for each consumer (FlashAttention-3's split).
for model in examples/lce.mlir bench/lce_odd.mlir; do
  name="$(basename "$model" .mlir)"
  "$BIN/sparcast-aot" "$ROOT/$model" -o "$ROOT/bench/artifacts/${name}_ws24" \
    --ws-producer-regs=24 --ws-consumer-regs=240 >/dev/null
done
# IKBO LCE without sc-persistent: one CTA per (pair of) tile(s), the grid
# sized from B at launch (the schedule decided on the kernel-level IR).
for model in examples/lce.mlir bench/lce_odd.mlir; do
  name="$(basename "$model" .mlir)"
  "$BIN/sparcast-aot" "$ROOT/$model" -o "$ROOT/bench/artifacts/${name}_wsgrid" \
    --ws-group=0 >/dev/null
done
for schedule in cooperative pingpong transposed; do
  for model in examples/gemm.mlir bench/gemm_suite.mlir examples/lce.mlir bench/lce_odd.mlir; do
    name="$(basename "$model" .mlir)"
    "$BIN/sparcast-aot" "$ROOT/$model" -o "$ROOT/bench/artifacts/${name}_$schedule" \
      --gemm-schedule=$schedule 2>/dev/null >/dev/null
  done
done
