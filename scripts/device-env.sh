# Sourced by the scripts that run on the GPU machine (device-check.sh,
# sanitize.sh) with ROOT set: the results folder ($OUT, or
# bench/runs/latest) and the runtime, built with the machine's cmake.
# (Sourced directly, it finds the tree itself.)
ROOT="${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
OUT_DIR="${OUT:-$ROOT/bench/runs/latest}"
mkdir -p "$OUT_DIR"
# The GPU machine has no nlohmann-json package: build-device-artifacts.sh
# carries its header in bench/artifacts/include.
JSON_ARGS=()
if [ -f "$ROOT/bench/artifacts/include/nlohmann/json.hpp" ]; then
  JSON_ARGS=(-DSPARCAST_NLOHMANN_JSON_INCLUDE_DIR="$ROOT/bench/artifacts/include")
fi
cmake -S "$ROOT/runtime" -B "$ROOT/build-rt" -DCMAKE_BUILD_TYPE=Release "${JSON_ARGS[@]}" >/dev/null
cmake --build "$ROOT/build-rt" -j >/dev/null
export SPARCAST_RUNTIME_LIB="$ROOT/build-rt/lib/libsparcast_rt.so"
