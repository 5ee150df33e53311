#!/usr/bin/env bash
# Second layouts run on the H200: the GPU tests after the K = 0 / lda fixes and
# with the column-major-D tests, `run --layout` at odd shapes (incl. D col-major),
# K = 4104 with the default promotion (128 B for rows off 128-byte lines), and the
# four layouts again at 4096^3 / 8192^3 (a second sample of the same table).
#   usage (device): bash bench/h200-layouts2.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/layouts2; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
timeout 480 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1; GT=$?
for lay in row,col col,col row,row col,row row,col,col col,col,col row,row,col col,row,col; do
  for sh in "129 257 72" "1000 1001 520" "4096 4096 4104"; do
  set -- $sh; f="$L/run_${lay//,/_}_$1x$2x$3.txt"
  timeout 120 "$G" run specs/sm90/05_fast_f16.yaml --layout $lay --m $1 --n $2 --k $3 --verify --iters 0 > "$f" 2>&1
  echo "run $lay $1x$2x$3 rc=$? $(grep -E '^verify|error' "$f" | cut -c1-110)"
done; done | tee "$L/runs.txt"
for dt in f16 bf16; do for lay in row,col col,col row,row col,row; do
  echo "-- bench $dt $lay"
  timeout 200 "$G" bench specs/sm90/05_fast_f16.yaml --dtype $dt --layout $lay \
    --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 2>&1 | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-110
done; done | tee "$L/bench.txt"
echo "-- K residue, default promotion"
timeout 200 "$G" bench specs/sm90/05_fast_f16.yaml --shapes 4096x4096x4096,4096x4096x4104,4096x4096x4112 \
  --rounds 20 2>&1 | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-110 | tee "$L/kresidue.txt"
echo "== gpu tests rc=$GT: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -12
tar czf "${OUT:-/tmp}/layouts2-logs.tgz" -C "$L" . && rm -rf "$L"
