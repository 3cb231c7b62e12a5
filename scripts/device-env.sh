# Sourced by the scripts that run on the GPU machine (device-check.sh,
# sanitize.sh) with ROOT set: the results folder ($OUT, or
# bench/results/latest) and the runtime, built with the machine's cmake.
OUT_DIR="${OUT:-$ROOT/bench/results/latest}"
mkdir -p "$OUT_DIR"
cmake -S "$ROOT/runtime" -B "$ROOT/build-rt" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$ROOT/build-rt" -j >/dev/null
export SPARCAST_RUNTIME_LIB="$ROOT/build-rt/lib/libsparcast_rt.so"
