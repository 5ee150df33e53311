#!/usr/bin/env bash
# The closing H200 run of the fp8/epilogue wave (one call):
#   1. every GPU test;
#   2. bench/h200-blockwise.sh: spec 15 vs cuBLASLt's blockwise fp8, spec 13 vs cuBLASLt fp8,
#      on the DeepSeek-V3 shapes, and the accuracy runs;
#   3. the chain after the bias prefetch: spec 06, 06+bias, spec 14 at 4096^3 (twice) and 8192^3;
#   4. the headline (specs 05 and 06 at 4096^3 and 8192^3 against cuBLAS).
#   usage (device): bash bench/h200-wave4.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/w4; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/gpu.txt"
date -u > "$L/date.txt"
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
OUT=$L timeout 330 bash bench/h200-blockwise.sh "$C" > "$L/blockwise_console.txt" 2>&1
echo "blockwise rc=$?" >> "$L/summary.txt"
b() { # label spec shapes
  timeout 150 "$G" bench "$2" --shapes "$3" --rounds 20 > "$L/bench_$1.txt" 2>&1
  echo "$1 rc=$?:"; grep -E '^ *[0-9]+x[0-9]+x[0-9]+' "$L/bench_$1.txt" | cut -c1-150
}
{
  b plain06 specs/sm90/06_fast_bf16.yaml 4096x4096x4096
  b chain_bias bench/chain-variants/06_chain_bias.yaml 4096x4096x4096
  b bias_gelu_1 specs/sm90/14_fast_bf16_bias_gelu.yaml 4096x4096x4096,8192x8192x8192
  b bias_gelu_2 specs/sm90/14_fast_bf16_bias_gelu.yaml 4096x4096x4096
  b head05 specs/sm90/05_fast_f16.yaml 4096x4096x4096,8192x8192x8192
  b head06 specs/sm90/06_fast_bf16.yaml 4096x4096x4096,8192x8192x8192
} >> "$L/summary.txt" 2>&1
tar czf "${OUT:-/tmp}/w4-logs.tgz" -C "$L" .
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -15
cat "$L/blockwise-table.txt" 2>/dev/null | tail -40
echo "== $(cat "$L/date.txt") $(cat "$L/gpu.txt")"; cat "$L/summary.txt"
