#!/usr/bin/env bash
# The chooser's decode rule with K split (spec 24: 1-8 tokens of 24-63 weight tiles, 4 or 2
# slices; 64-95 tiles with K > 8192, 2 slices) on the H200: the GPU tests of every chosen kernel
# and of spec 24, then the issue-13 sweep (bench/h200-sweep.sh) with the new choice.
# Prediction (before the run): the sweep's decode rows at bench/h200-decode-col-split*.sh's
# ratios (1x2112x7168 ~0.99 from 0.90, 1x4096x14336 ~0.96 from 0.89; the rest as before), the
# tuned geo-mean +0.3% (two of 40 shapes +7%), shapes below 0.95 from 7-9 to 5-7.
#   usage (device): bash bench/h200-decode-split-choice.sh CARRY [ROUNDS]
#   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
ROUNDS=${2:-12}
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode-split-choice; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode-split-choice-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
F='*ChosenKernel*:*24_decode_col_d_split*'
timeout 200 "$C/gemmgen_gpu_tests" --gtest_filter="$F" > "$L/gpu-tests.txt" 2>&1
echo "gpu tests $F rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu-tests.txt" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu-tests.txt" | head -20 >> "$S"
grep -E '^\[ result \].*auto_decode' "$L/gpu-tests.txt" | cut -c1-200 >> "$S"
tar -C "$L" -czf "$OUT/decode-split-choice-logs.tgz" .
OUT=$OUT/sweep-1 BUDGET=${BUDGET:-250} bash bench/h200-sweep.sh "$C" "$ROUNDS" > "$L/sweep-stdout.txt" 2>&1
echo "sweep rc=$?" >> "$S"
cat "$S"
tail -8 "$OUT/sweep-1/sweep-summary.txt"
