#!/usr/bin/env bash
# Split-K on the H200: the decode shapes of the sweep (M = 1 and 16) with the fixed spec (05)
# and its split-K twin (12, split_k 8), each against cuBLAS in the same process; then every GPU
# test (spec 12 runs every suite but the strided batches).
#   usage (device): bash bench/h200-splitk.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/splitk; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
S=1x6144x4096,16x4096x4096,1x4096x14336,16x10240x8192,1x57344x8192,16x8192x28672,1x2112x7168,16x7168x16384
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
for spec in specs/sm90/05_fast_f16.yaml specs/sm90/12_splitk_f16.yaml; do
  for dt in f16 bf16; do
    echo "-- $(basename $spec) $dt"
    timeout 280 "$G" bench $spec --dtype $dt --shapes $S --rounds 20 > "$L/bench_$(basename $spec .yaml)_$dt.txt" 2>&1
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$(basename $spec .yaml)_$dt.txt" | cut -c1-120
  done
done | tee "$L/bench.txt"
timeout 300 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "== gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -12
tar czf "${OUT:-/tmp}/splitk-logs.tgz" -C "$L" . && rm -rf "$L"
