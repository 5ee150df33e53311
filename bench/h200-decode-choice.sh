#!/usr/bin/env bash
# The chooser's decode families (decode: spec 23, 8 stages, >= 96 tiles of 64 weights; decode_d16:
# 16 stages, 64-95 tiles) on the H200: the GPU tests of every chosen kernel and of spec 23, then
# the issue-13 sweep (bench/h200-sweep.sh) with the new choice.
# Prediction (before the run): the sweep's decode rows at bench/h200-decode-col.sh's ratios
# (1x6144x4096 ~1.0 from 0.74, 16x4096x4096 ~1.0 from 0.74, 1x4096x14336 ~0.9), the tuned
# geo-mean from 0.961 to ~0.975 (f16), shapes below 0.95 from 10 to ~6.
#   usage (device): bash bench/h200-decode-choice.sh CARRY [ROUNDS]   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/k}; case $C in /*) ;; *) C=$PWD/$C ;; esac
ROUNDS=${2:-12}
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/decode-choice; rm -rf "$L"; mkdir -p "$L"
S=$OUT/decode-choice-summary.txt
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$S"
date -u +%FT%TZ >> "$S"
F='*ChosenKernel*:*23_decode_col_d*'
timeout 200 "$C/gemmgen_gpu_tests" --gtest_filter="$F" > "$L/gpu-tests.txt" 2>&1
echo "gpu tests $F rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu-tests.txt" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu-tests.txt" | head -20 >> "$S"
grep -E '^\[ result \].*auto_decode' "$L/gpu-tests.txt" | cut -c1-200 >> "$S"
tar -C "$L" -czf "$OUT/decode-choice-logs.tgz" .
OUT=$OUT/sweep-1 BUDGET=${BUDGET:-250} bash bench/h200-sweep.sh "$C" "$ROUNDS" > "$L/sweep-stdout.txt" 2>&1
echo "sweep rc=$?" >> "$S"
cat "$S"
tail -8 "$OUT/sweep-1/sweep-summary.txt"
