#!/usr/bin/env bash
# The session's last H200 check, on the final binaries: every GPU test (the launch now packs the
# kernel's parameters by the ABI's groups), `run --verify` of specs 13/14/15, the headline.
#   usage (device): bash bench/h200-final-check.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/fc; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/gpu.txt"
date -u > "$L/date.txt"
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
for s in "specs/sm90/13_fast_e4m3.yaml --scale-a 0.5 --scale-b 2" specs/sm90/14_fast_bf16_bias_gelu.yaml specs/sm90/15_blockwise_e4m3.yaml specs/sm90/05_fast_f16.yaml; do
  timeout 60 "$G" run $s --m 1000 --n 1001 --k 640 --verify --iters 0 > "$L/run.txt" 2>&1
  echo "run $s rc=$?: $(grep -iE 'verify|error' "$L/run.txt" | head -2 | tr '\n' ' ' | cut -c1-160)" >> "$L/summary.txt"
done
timeout 150 "$G" bench specs/sm90/05_fast_f16.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 > "$L/head05.txt" 2>&1
timeout 150 "$G" bench specs/sm90/06_fast_bf16.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 > "$L/head06.txt" 2>&1
grep -hE '^ *[0-9]+x[0-9]+x[0-9]+' "$L"/head0*.txt | cut -c1-130 >> "$L/summary.txt"
tar czf "${OUT:-/tmp}/fc-logs.tgz" -C "$L" .
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -15
echo "== $(cat "$L/date.txt") $(cat "$L/gpu.txt")"; cat "$L/summary.txt"
