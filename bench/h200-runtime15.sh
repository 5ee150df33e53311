#!/usr/bin/env bash
# The runtime side of issue 15 and issue 11's two D bugs, on the H200:
#   1. GPU tests: D between poisoned guard zones with poisoned padding
#      (Sm90/DBounds: 3 specs x 8 shapes, N % 8 = 0..7, N < 8), the packed
#      N = 250 refusal, a launch from a thread that never called
#      makeCurrent(), 6 threads x 4 launches of one Kernel on own streams.
#      Expected: every test PASSED, none skipped.
#   2. `gemmgen run` on the shape that overwrote D's padding (129x257x72,
#      ldd 264): PASS with "tail_columns": 1.
#   3. What the tail kernel costs: run 4096x4096x4096 vs 4096x4099x4096 and
#      8192x8192x8192 vs 8192x8199x8192 (f16, median of 50), TFLOP/s.
#   4. The installed package, moved, builds and runs tools/example on the GPU
#      (needs cmake and ninja on the device; skipped otherwise).
#   usage (device): bash bench/h200-runtime15.sh build-carry
set -u
C=${1:-build-carry}; G=$C/gemmgen
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
export GEMMGEN_CACHE_DIR=$PWD/$C/cache GEMMGEN_SOURCE_DIR=$PWD
echo "== 1. GPU tests (bounds, threads)"
timeout 300 "$C/gemmgen_gpu_tests" --gtest_filter='Sm90/DBounds.*:DBoundsChecks.*:Threads.*' \
  > "$OUT/runtime15_gpu_tests.log" 2>&1; echo "rc=$?"
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/runtime15_gpu_tests.log"
grep -E '^\[  FAILED  \] |Failure|overwritten|wrong elements' "$OUT/runtime15_gpu_tests.log" | head -20
echo "== 2. the shape that overwrote D's padding"
timeout 120 "$G" run specs/sm90/05_fast_f16.yaml --m 129 --n 257 --k 72 --ldd 264 --verify \
  --iters 0 --json > "$OUT/runtime15_run_257.json" 2>&1; echo "rc=$?"
grep -E '"(tail_columns|pass|rel_frobenius|non_finite)"' "$OUT/runtime15_run_257.json"
echo "== 3. tail-kernel cost (median of 50 launches)"
for s in 4096x4096x4096 4096x4099x4096 8192x8192x8192 8192x8199x8192; do
  IFS=x read -r m n k <<< "$s"
  timeout 120 "$G" run specs/sm90/05_fast_f16.yaml --m "$m" --n "$n" --k "$k" --iters 50 --verify \
    > "$OUT/runtime15_run_$s.log" 2>&1
  echo "$s rc=$? $(grep -E '^(verify|time|        last)' "$OUT/runtime15_run_$s.log" | tr -s ' ' | tr '\n' ' ' | cut -c1-220)"
done
echo "== 4. package from a moved prefix"
if command -v cmake > /dev/null && command -v ninja > /dev/null && [ -d build ]; then
  timeout 300 bash tests/package/install-moved.sh build . cmake 2>&1 | tail -12
else
  echo "skipped: needs cmake, ninja and the build directory on the device"
fi
