#!/usr/bin/env bash
# Operand layouts on the H200 (issue 11) and the K-residue L2-promotion
# experiment (issue 13), one device command:
#   1. gemmgen_gpu_tests (every spec incl. 07/08/09 × shapes, D bounds with
#      guard zones, K = 0), then `run --verify` of each layout at odd shapes;
#   2. bench: 05/06 with --layout row,col | col,col | row,row | col,row at
#      4096^3 and 8192^3 vs cuBLAS with the matching transposes (f16, bf16);
#   3. 4096x4096x4104 (rows 16 B past a 128-byte line) against 4096^3 with
#      GEMMGEN_TMA_L2_PROMOTION = 256 (default), 128, 64, none.
#   usage (device): bash bench/h200-layouts.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/layouts; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
git log -1 --format='commit %h %cd' 2>/dev/null | tee -a "$L/gpu.txt"
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1; GT=$?
for lay in col,col row,row col,row; do for sh in "129 257 72" "1000 1001 520" "4096 4096 4104"; do
  set -- $sh
  timeout 120 "$G" run specs/sm90/05_fast_f16.yaml --layout $lay --m $1 --n $2 --k $3 --verify --iters 0 \
    > "$L/run_${lay/,/_}_$1x$2x$3.txt" 2>&1; echo "run $lay $1x$2x$3 rc=$? $(grep -E '^verify' "$L/run_${lay/,/_}_$1x$2x$3.txt" | cut -c1-110)"
done; done | tee "$L/runs.txt"
for dt in f16 bf16; do for lay in row,col col,col row,row col,row; do
  echo "-- bench $dt $lay"
  timeout 200 "$G" bench specs/sm90/05_fast_f16.yaml --dtype $dt --layout $lay \
    --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 --json "$L/bench_${dt}_${lay/,/_}.json" 2>&1 \
    | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-110
done; done | tee "$L/bench.txt"
for pr in 256 128 64 none; do
  echo "-- promotion $pr"
  GEMMGEN_TMA_L2_PROMOTION=$pr timeout 200 "$G" bench specs/sm90/05_fast_f16.yaml \
    --shapes 4096x4096x4096,4096x4096x4104 --rounds 20 2>&1 | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-110
done | tee "$L/promotion.txt"
echo "== gpu tests rc=$GT: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -12
# Few files come back from the device: one archive of the logs.
tar czf "${OUT:-/tmp}/layouts-logs.tgz" -C "$L" . && rm -rf "$L"
