#!/usr/bin/env bash
# Configures (once) and builds Sparcast in build/ with clang-22, lld and
# libMLIR.so. Extra arguments go to CMake on the first configure.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SPARCAST_BUILD_DIR:-$ROOT/build}"
LLVM_PREFIX=/usr/lib/llvm-22

"$ROOT/scripts/setup.sh"

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    "$@" >/dev/null
fi
# Progress lines are dropped; a failed build still fails (a stale binary
# from an earlier build must not be tested).
ninja -C "$BUILD" -j"$(nproc)" | { grep -v "^\[" || true; }
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "build.sh: ninja failed" >&2; exit 1; }
test -x "$BUILD/bin/sparcast-opt"
# Dialect and pass reference (TableGen) into $BUILD/docs.
ninja -C "$BUILD" mlir-doc >/dev/null
