#!/usr/bin/env bash
# The cost model's choice (`tuned` / `auto`, runtime/lib/KernelChoice.cpp) on
# the H200: every GPU test first (the ChosenKernel cases run the model's
# split-K and small-tile kernels against the reference), then the issue-13
# sweep (bench/h200-sweep.sh: 41 shapes, the 14-shape validation set, fixed
# spec, `tuned` and cuBLAS in each process) REPEATS times.
#   usage (device, nvidia-h200, from the repository root):
#     REPEATS=2 bash bench/h200-choice.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
# Output: $OUT/gpu_tests.log, $OUT/sweep-N/ (each sweep's summary, JSON and
# logs); the GPU test line and each sweep's geo-means are printed last.
set -u
C=${1:-build-carry}; REPEATS=${REPEATS:-2}
OUT=${OUT:-/tmp/gemmgen-out}; mkdir -p "$OUT"
case $C in /*) ;; *) C=$PWD/$C ;; esac
export GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_CACHE_DIR=$C/cache
timeout 300 "$C/gemmgen_gpu_tests" > "$OUT/gpu_tests.log" 2>&1
gpu="gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$OUT/gpu_tests.log" | tr '\n' ' ')"
for r in $(seq 1 "$REPEATS"); do
  OUT=$OUT/sweep-$r BUDGET=${BUDGET:-400} bash bench/h200-sweep.sh "$C" 12 > /dev/null 2>&1
done
echo "$gpu"
grep -E '^\[  FAILED  \] [A-Z]' "$OUT/gpu_tests.log" | head -10
for r in $(seq 1 "$REPEATS"); do
  echo "== sweep $r"; sed -n '/^validation set/,$p' "$OUT/sweep-$r/sweep-summary.txt"
done
