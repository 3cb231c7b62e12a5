#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool, with bench/artifacts
# carried): builds the runtime with the machine's cmake, then checks and
# times every kernel (GEMM suite, IKBO LCE, attention) against its peers.
# Results go to $OUT (or bench/runs/latest).
#
#   here:  ./scripts/build-device-artifacts.sh
#   there: ./scripts/device-check.sh COMMIT [PARTS]   (pass the hash from
#          here: the GPU machine's copy of the tree may not have the latest
#          .git; PARTS: all, or a comma list of gemm, attention-sm80, lce,
#          attention, hybrid, similarity, models, experimental: the whole
#          run takes longer than one device call)
#   here:  python3 bench/collect_results.py RUN_DIR   (the fetched $OUT:
#          overwrites bench/results/<workload>.json)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/device-env.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PARTS="${2:-all}"
want() { [ "$PARTS" = all ] || [[ ",$PARTS," == *",$1,"* ]]; }
if want gemm; then
# A hung kernel must not eat the device lease: bound the whole run.
PYTHONUNBUFFERED=1 timeout "${SPARCAST_CHECK_TIMEOUT:-300}" python3 "$ROOT/bench/gemm_check.py" \
  --artifacts "$ROOT/bench/artifacts" --out "$OUT_DIR/gemm.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/gemm.log"
# sm_80's multistage GEMM, its PTX JIT-compiled here.
PYTHONUNBUFFERED=1 timeout "${SPARCAST_CHECK_TIMEOUT:-300}" python3 "$ROOT/bench/multistage_check.py" \
  --artifacts "$ROOT/bench/artifacts" --out "$OUT_DIR/gemm-sm80.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/gemm-sm80.log"
# Experimental: rows copied and stored by threads (--rows-by-threads).
PYTHONUNBUFFERED=1 timeout 150 python3 "$ROOT/bench/rows_check.py" --artifacts "$ROOT/bench/artifacts" \
  --out "$OUT_DIR/rows.json" --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/rows.log" || echo "rows-by-threads failed (see rows.log)"
fi
if want attention-sm80; then
# sm_80's attention (experimental), its PTX JIT-compiled here.
PYTHONUNBUFFERED=1 timeout 120 python3 "$ROOT/bench/attention_sm80_check.py" \
  --artifacts "$ROOT/bench/artifacts" --out "$OUT_DIR/attention-sm80.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/attention-sm80.log" || echo "sm_80 attention failed (see attention-sm80.log)"
fi
if want lce; then
PYTHONUNBUFFERED=1 timeout "${SPARCAST_CHECK_TIMEOUT:-300}" python3 "$ROOT/bench/lce_check.py" \
  --artifacts "$ROOT/bench/artifacts" --out "$OUT_DIR/lce.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/lce.log"
# The LCE over 30 points of 15 shapes, tuned, against Triton and eager.
PYTHONUNBUFFERED=1 timeout 420 python3 "$ROOT/bench/lce_sweep.py" check "$ROOT/bench/artifacts/lce_sweep" \
  --out "$OUT_DIR/lce-sweep.json" --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/lce-sweep.log" || echo "LCE sweep failed (see lce-sweep.log)"
# Experimental: its N = 250 shapes with rows copied and stored by threads
# (--rows-by-threads), the default's padded copies timed in the same rounds.
PYTHONUNBUFFERED=1 timeout 240 python3 "$ROOT/bench/lce_sweep.py" check "$ROOT/bench/artifacts/lce_sweep_rows" \
  --only n250 --baseline "$ROOT/bench/artifacts/lce_sweep" --out "$OUT_DIR/lce-rows.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/lce-rows.log" || echo "LCE rows-by-threads failed (see lce-rows.log)"
fi
if want attention; then
PYTHONUNBUFFERED=1 timeout "${SPARCAST_CHECK_TIMEOUT:-300}" python3 "$ROOT/bench/attention_check.py" \
  --artifacts "$ROOT/bench/artifacts" --out "$OUT_DIR/attention.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/attention.log"
# Experimental: the attention kernels lowered from their scheduled IR,
# checked and timed against the writer's (the baseline) in one run.
PYTHONUNBUFFERED=1 timeout 240 python3 "$ROOT/bench/attention_check.py" \
  --artifacts "$ROOT/bench/artifacts/ir" --baseline "$ROOT/bench/artifacts" \
  --out "$OUT_DIR/attention-from-ir.json" --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/attention-from-ir.log" || echo "attention from IR failed (see attention-from-ir.log)"
PYTHONUNBUFFERED=1 timeout 120 python3 "$ROOT/bench/experimental_check.py" \
  --artifacts "$ROOT/bench/artifacts/ir" --out "$OUT_DIR/grouped-from-ir.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/grouped-from-ir.log" || echo "grouped attention from IR failed (see grouped-from-ir.log)"
fi
if want hybrid; then
# Hybrid dense / 2:4 / zero tiles against cuBLAS and cuSPARSELt.
PYTHONUNBUFFERED=1 timeout "${SPARCAST_CHECK_TIMEOUT:-300}" python3 "$ROOT/bench/hybrid_check.py" \
  --artifacts "$ROOT/bench/artifacts/hybrid_suite" --out "$OUT_DIR/hybrid.json" \
  --constant-artifacts "$ROOT/bench/artifacts/hybrid_const" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/hybrid.log" || echo "hybrid checks failed or timed out (see hybrid.log)"
# Split-K of decode: correct with three parts, then no split against the
# default (auto's parts) and cuBLAS in the same rounds.
PYTHONUNBUFFERED=1 timeout 120 python3 "$ROOT/bench/hybrid_check.py" --check-only \
  --artifacts "$ROOT/bench/artifacts/hybrid_suite_split3" --out "$OUT_DIR/hybrid-split3.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/hybrid-splitk.log" || echo "split-K checks failed (see hybrid-splitk.log)"
PYTHONUNBUFFERED=1 timeout 180 python3 "$ROOT/bench/hybrid_ab.py" \
  "$ROOT/bench/artifacts/hybrid_suite_nosplit" "$ROOT/bench/artifacts/hybrid_suite" \
  --shapes 4096x11008,8192x8192,11008x4096 --tokens 1,16 --mixes all_24,all_dense \
  --out "$OUT_DIR/hybrid-splitk-ab.json" 2>&1 | tee -a "$OUT_DIR/hybrid-splitk.log" || echo "split-K A/B failed (see hybrid-splitk.log)"
# cuSPARSELt on all-2:4 weights, a process per shape: on some shapes it
# fails inside with an illegal instruction, which ends its process.
for shape in 11008x4096 4096x11008 8192x8192; do
  PYTHONUNBUFFERED=1 timeout 90 python3 "$ROOT/bench/hybrid_check.py" --cusparselt --shapes "$shape" \
    --artifacts "$ROOT/bench/artifacts/hybrid_suite" --out "$OUT_DIR/hybrid_cusparselt_$shape.json" \
    --commit "${1:-unknown}" 2>&1 | tee -a "$OUT_DIR/hybrid.log" || echo "cuSPARSELt on $shape failed (see hybrid.log)"
done
fi
if want similarity; then
# Exact sparse cosine similarity against torch's CSR product.
PYTHONUNBUFFERED=1 timeout 300 python3 "$ROOT/bench/similarity_check.py" \
  --artifacts "$ROOT/bench/artifacts/similarity" --out "$OUT_DIR/similarity.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/similarity.log" || echo "similarity failed (see similarity.log)"
fi
if want models; then
# Generated linalg.generic kernels (an imported MLP) against torch.
PYTHONUNBUFFERED=1 timeout 120 python3 "$ROOT/bench/generic_check.py" \
  --artifacts "$ROOT/bench/artifacts/mlp" --gather-artifacts "$ROOT/bench/artifacts/gather" \
  --pool-artifacts "$ROOT/bench/artifacts/pool" \
  --out "$OUT_DIR/generic.json" 2>&1 | tee "$OUT_DIR/generic.log" || echo "generic kernels failed (see generic.log)"
# The ranking model against eager PyTorch and torch.compile.
PYTHONUNBUFFERED=1 timeout 300 python3 "$ROOT/examples/ranking_model.py" check \
  "$ROOT/bench/artifacts/ranker" --json "$OUT_DIR/ranking.json" 2>&1 | tee "$OUT_DIR/ranking.log" || echo "ranking model failed (see ranking.log)"
PYTHONUNBUFFERED=1 timeout 420 python3 "$ROOT/examples/ranking_model.py" check --model reference --sweep \
  "$ROOT/bench/artifacts/ranker_reference" --json "$OUT_DIR/ranking-reference.json" 2>&1 | tee "$OUT_DIR/ranking-reference.log" || echo "reference ranking model failed (see ranking-reference.log)"
# Experimental: the weight rows summed before the pooled LCE's GEMMs
# (--sum-rows-first), the default build timed in the same rounds.
PYTHONUNBUFFERED=1 timeout 240 python3 "$ROOT/examples/ranking_model.py" check --model reference \
  "$ROOT/bench/artifacts/ranker_reference_first" --baseline "$ROOT/bench/artifacts/ranker_reference" \
  --json "$OUT_DIR/ranking-sum-rows-first.json" 2>&1 | tee "$OUT_DIR/ranking-sum-rows-first.log" || echo "sum-rows-first ranking model failed (see ranking-sum-rows-first.log)"
fi
if want experimental; then
# Experimental kernels (TMA multicast GEMMs, grouped target attention)
# in a process of their own with a short bound: a hang there costs little
# and the results above are already written.
PYTHONUNBUFFERED=1 timeout "${SPARCAST_EXPERIMENTAL_TIMEOUT:-120}" python3 "$ROOT/bench/experimental_check.py" \
  --artifacts "$ROOT/bench/artifacts" --out "$OUT_DIR/experimental.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/experimental.log" || echo "experimental checks failed or timed out (see experimental.log)"
# The best library attention on the user-grouped form of the target-attention
# work (cuDNN / flash SDPA, no gather) next to ours: the ceiling the goals
# are read against.
PYTHONUNBUFFERED=1 timeout "${SPARCAST_EXPERIMENTAL_TIMEOUT:-120}" python3 "$ROOT/bench/attention_ceiling.py" \
  --artifacts "$ROOT/bench/artifacts" --sizes 1024,4096 --out "$OUT_DIR/ceiling.json" \
  --commit "${1:-unknown}" 2>&1 | tee "$OUT_DIR/ceiling.log" || echo "attention ceiling failed or timed out (see ceiling.log)"
fi
