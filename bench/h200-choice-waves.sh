#!/usr/bin/env bash
# The chooser with the wave-filling families and the multicast default for straddling rows
# (issue 13), on the H200: the GPU tests of chosen kernels (ChosenKernel: fit112/144/160/176,
# fit256x160 and large_c2 among them), spec 22, the staging path and the straddle rule; then
# `bench auto` (f16 and bf16) on every sweep and validation shape whose choice changed, and on
# the K-residue shapes, PASSES passes, each process against cuBLAS.
# Prediction (before the run): each changed shape at its wave-fit table ratio (0.94-1.06),
# 1024x7168x18432, 256x7168x7168 and 2048x5120x5120 (not measured before) no worse than their
# sweep ratios (1.00, 0.92, 0.95); 4096x4096x4104 ~0.98, 8192x8192x8200 ~1.01.
#   usage (device): bash bench/h200-choice-waves.sh CARRY [PASSES]   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
PASSES=${2:-2}
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/waves; rm -rf "$L"; mkdir -p "$L"
S=$OUT/waves-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
timeout 150 "$C/gemmgen_gpu_tests" --gtest_filter='*hosen*:*22_wave*:*Staged*:*traddl*' > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$S"
SH="768x3072x3072 1536x1536x1536 3072x768x3072 384x12288x4096 4096x2112x7168 2304x4608x4608 128x36864x7168 1024x7168x18432 256x7168x7168 2048x5120x5120 4096x4096x4104 8192x8192x8200"
echo "== bench auto: shape dtype gemmgen-ms cuBLAS-ms ratio kernel" >> "$S"
for pass in $(seq 1 $PASSES); do
  for s in $SH; do
    IFS=x read -r m n k <<< "$s"
    for dt in f16 bf16; do
      f="$L/auto_${s}_${dt}_$pass.txt"
      timeout 90 "$C/gemmgen" bench auto --dtype $dt --m $m --n $n --k $k --rounds 15 > "$f" 2>&1
      echo "pass $pass rc=$? $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+' "$f" | awk '{print $1, $2, $3, $5, $7}') $(grep -oE 'kernel gemm_sm90_auto_[a-z0-9_]+' "$f" | head -1)" >> "$S"
    done
  done
done
tar -C "$L" -czf "$OUT/waves-logs.tgz" .
cat "$S"
