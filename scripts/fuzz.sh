#!/usr/bin/env bash
# Fuzz the compiler (parse -> check -> lower -> emit) with libFuzzer under
# ASan + UBSan for a bounded time. CI runs it for 60 s (.ci/run), then again
# with FUZZ_TARGET=simulate: every kernel that compiles is also simulated
# (one interleaving of a small shape) and must come out clean.
#   [FUZZ_TARGET=spec|simulate] bash scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]
# Seeds: specs/, tests/bad_specs/ and tests/fuzz/regressions/. A crash stops
# the run with the input saved as build-fuzz/TARGET-crash-*; keep it as a
# regression case: copy it into tests/fuzz/regressions/ (the ctest
# fuzz_regressions replays that folder in every build) and fix the cause.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
target=${FUZZ_TARGET:-spec}
case "$target" in
  spec | simulate) ;;
  *) echo "fuzz: FUZZ_TARGET must be spec or simulate, not '$target'" >&2; exit 2 ;;
esac

# clang with the libFuzzer runtime, from the distribution's packages.
CLANG=$(command -v clang++-16 || true)
if [ -z "$CLANG" ] || ! ls /usr/lib/llvm-16/lib/clang/16/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz: installing clang-16 and libclang-rt-16-dev"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends clang-16 libclang-rt-16-dev
  CLANG=$(command -v clang++-16)
fi
export PATH=/usr/local/cuda/bin:$PATH

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="${CLANG%++-16}-16" -DCMAKE_CXX_COMPILER="$CLANG" \
  -DGEMMGEN_SANITIZE=ON -DGEMMGEN_FUZZ=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" >/dev/null
ninja -C build-fuzz "gemmgen_fuzz_$target"

# A fresh corpus from the seeds each run (the folders stay as committed).
corpus=build-fuzz/corpus
rm -rf "$corpus"; mkdir -p "$corpus"
find specs tests/bad_specs tests/sim_bugs -name '*.yaml' -exec cp {} "$corpus/" \;
cp tests/fuzz/regressions/* "$corpus/" 2>/dev/null || true
echo "fuzz ($target): $(ls "$corpus" | wc -l) seed inputs, ${seconds} s"
# -max_len: a spec is at most 1 MiB, but mutations of small inputs find more;
# -rss_limit_mb: the compiler holds a spec in a few MB.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "build-fuzz/tests/gemmgen_fuzz_$target" "$corpus" -max_total_time="$seconds" \
    -dict=tests/fuzz/spec.dict -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="build-fuzz/$target-" -print_final_stats=1 "$@"
