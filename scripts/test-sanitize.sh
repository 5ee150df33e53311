#!/usr/bin/env bash
# The test suite again in an ASan + UBSan build (build-asan/): the unit
# tests, the CLI bad-input table and the fuzz regressions, with any
# sanitizer report failing the test. CI runs it after scripts/test.sh.
# GPU tests skip themselves here as in the normal build; the nvcc check of
# `emit --standalone` (standalone_nvcc) and the installed-package test
# (package_install_moved: an ASan library needs the ASan runtime loaded
# first) run in the normal build only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh   # dependencies (and the normal build, if missing)
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEMMGEN_SANITIZE=ON \
  -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" >/dev/null
ninja -C build-asan -j"$(nproc)"
built=$(date +%s)
# NVRTC and the CUDA libraries are not instrumented: leaks inside them are
# theirs (tests/sanitizer/lsan.supp); everything else fails the run.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -E '^(standalone_nvcc|package_install_moved)$'
end=$(date +%s)
echo "sanitizer build: $((built - start)) s to build, $((end - built)) s to test"
