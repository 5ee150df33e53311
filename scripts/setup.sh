#!/usr/bin/env bash
# Installs what gemmgen needs to build on a Debian 12 machine (or Ubuntu 24.04)
# and configures + builds it into ./build. Safe to run again.
#   - LLVM 16 Support/ADT (llvm-16-dev, linked statically), CLI11, GoogleTest,
#     CMake, Ninja: from the distribution's packages;
#   - the CUDA toolkit (nvcc, NVRTC, cuda.h) must already be installed under
#     /usr/local/cuda (it is on the development, CI and H200 machines).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -x /usr/lib/llvm-16/bin/llvm-config ] || need+=(llvm-16-dev)
[ -f /usr/include/CLI/CLI.hpp ] || need+=(libcli11-dev)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
# LLVMSupport's static archive needs these at link time.
[ -e /usr/lib/x86_64-linux-gnu/libz.so ] || need+=(zlib1g-dev)
[ -e /usr/lib/x86_64-linux-gnu/libtinfo.so ] || need+=(libtinfo-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi

if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
command -v nvcc >/dev/null || { echo "setup: error: the CUDA toolkit (nvcc, NVRTC) is not installed; install CUDA 12.8+ under /usr/local/cuda" >&2; exit 1; }

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" >/dev/null
ninja -C build -j"$(nproc)"
