#!/usr/bin/env bash
# Blockwise scales through shared memory as committed (NEW): every GPU test, then the blockwise
# chooser (`bench auto`) of 2972166 (CARRY: scales from global memory) and of NEW side by side
# against cuBLASLt's blockwise mode on the eight DeepSeek-V3 shapes, two passes (the second in
# reverse order).
# NEW also takes the one-partial-sum kernels (the chooser's 128x192 `wide`, spec 19) through
# shared memory. Prediction (before the run): the chooser +3-8% at every shape (the pairs
# families as measured by bench/h200-blockwise-smem.sh; `wide` at 4096x2112x7168 unmeasured).
#   usage (device): bash bench/h200-blockwise-smem-final.sh CARRY NEW   (NEW: gemmgen, gemmgen_gpu_tests, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_smem_final "$1"
N=${2:-.devrun/final}; case $N in /*) ;; *) N=$PWD/$N ;; esac
"$N/gemmgen" --version >> "$S"
GEMMGEN_CACHE_DIR=$N/cache timeout 420 "$N/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$S"
echo "skipped: $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/gpu_tests.log"); blockwise cases OK: $(grep -cE '^\[       OK \] .*(lockwise|blockwise)' "$L/gpu_tests.log")" >> "$S"
G=$N/gemmgen; export GEMMGEN_CACHE_DIR=$N/cache  # `verify` runs NEW
for spec in specs/sm90/19_blockwise_e4m3_n192.yaml bench/variants/15_blockwise_one_partial.yaml; do
  for s in 1001x1000x640 129x4000x384 4096x2112x7168 131x449x1160; do verify $(basename $spec .yaml) $spec $s; done
  verify $(basename $spec .yaml) $spec 129x300x640 --batch 3 --beta 0.5
done
ab_bench "$C" "$N" "4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168" auto --dtype e4m3 --scaling blockwise
bench_finish
