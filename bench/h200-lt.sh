#!/usr/bin/env bash
# Chain and fp8 kernels against cuBLASLt on the H200, each in one process on the same inputs:
#   spec 14 (bf16, bias per column then gelu_tanh): gemmgen vs cublasLtMatmul GELU_BIAS vs
#           cublasGemmEx + one elementwise pass (4096^3, 8192^3);
#   spec 06 (the same kernel without the chain) vs cublasGemmEx at 4096^3, for reference;
#   spec 13 (e4m3 x e4m3 -> bf16, per-tensor scales 0.5 and 2) vs cuBLASLt fp8 (4096^3, 8192^3).
# Each --rounds 20, run twice. Logs and JSON under $OUT/lt; the table last.
#   usage (device): bash bench/h200-lt.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/lt; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$L/gpu.txt"
run() { # name, then bench's arguments
  local name=$1; shift
  for rep in 1 2; do
    timeout 280 "$G" bench "$@" --rounds 20 --json "$L/${name}_$rep.json" > "$L/${name}_$rep.txt" 2>&1
    echo "rc=$?" >> "$L/${name}_$rep.txt"
  done
}
run bias_gelu specs/sm90/14_fast_bf16_bias_gelu.yaml --shapes 4096x4096x4096,8192x8192x8192
run plain06 specs/sm90/06_fast_bf16.yaml --shapes 4096x4096x4096
run e4m3 specs/sm90/13_fast_e4m3.yaml --shapes 4096x4096x4096,8192x8192x8192 --scale-a 0.5 --scale-b 2
{
  for f in "$L"/*_[12].txt; do
    echo "-- $(basename "$f" .txt) ($(tail -1 "$f"))"
    grep -E '^cuBLAS|^GPU|shape|^ *[0-9]+x[0-9]+x[0-9]+|error|  cuBLASLt fused:|  unfused:' "$f" |
      grep -v '^GPU' | cut -c1-170
  done
} | tee "$L/table.txt"
tar czf "${OUT:-/tmp}/lt-logs.tgz" -C "$L" . && cp "$L/table.txt" "${OUT:-/tmp}/lt-table.txt" && rm -rf "$L"
