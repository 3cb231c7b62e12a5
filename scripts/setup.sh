#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine needs to build and test Sparcast.
# Idempotent: quiet and quick when everything is already there.
set -euo pipefail

PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  ninja-build cmake libgtest-dev libgmock-dev nlohmann-json3-dev python3
  libfuzzer-22-dev libclang-rt-22-dev python3-torch
  libonnx-dev libprotobuf-dev python3-onnx
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
