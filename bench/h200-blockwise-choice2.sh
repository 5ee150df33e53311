#!/usr/bin/env bash
# The blockwise chooser refitted to the kernels with scales through shared memory (NEW) against
# 2972166's (CARRY: global scale loads, the pairs' k-block time x 0.925), both against cuBLASLt's
# blockwise mode at the eight DeepSeek-V3 shapes, two passes (the second in reverse order);
# `run --verify` of NEW's picks at those shapes and five others; every GPU test of NEW; the
# 2x1-cluster spec 15 (bench/variants/blockwise/cluster2.yaml) beside spec 15 at M = 4096.
# Prediction (before the run): NEW at or above 1.00 at 128x4096x7168 and 128x7168x18432 (the
# small tile measured 1.07 / 1.09), as in the families run elsewhere (0.93-1.14); the cluster
# within +-3% of spec 15 (measured +1 / -3.5% / level with global scale loads).
#   usage (device): bash bench/h200-blockwise-choice2.sh CARRY NEW   (NEW: gemmgen, gemmgen_gpu_tests, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_choice2 "$1"
N=${2:-.devrun/final}; case $N in /*) ;; *) N=$PWD/$N ;; esac
"$N/gemmgen" --version >> "$S"
GEMMGEN_CACHE_DIR=$N/cache timeout 420 "$N/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -10 >> "$S"
G=$N/gemmgen; export GEMMGEN_CACHE_DIR=$N/cache  # `verify` runs NEW
for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168 1001x1000x640 129x4000x384 64x2112x7168 300x7168x2048 4093x4096x1100; do
  verify auto auto $s --dtype e4m3 --scaling blockwise
done
for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168; do
  IFS=x read -r m n k <<< "$s"
  for v in specs/sm90/15_blockwise_e4m3.yaml bench/variants/blockwise/cluster2.yaml; do
    timeout 90 "$G" bench $v --m $m --n $n --k $k --rounds 10 > "$L/$(basename $v .yaml)_$s.txt" 2>&1
    echo "$(basename $v .yaml) $(table "$L/$(basename $v .yaml)_$s.txt")" >> "$S"
  done
done
ab_bench "$C" "$N" "4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168" auto --dtype e4m3 --scaling blockwise
bench_finish
