#!/usr/bin/env bash
# Variants of the two epilogue-heavy specs against cuBLASLt, two passes:
# spec 14 (bf16, bias + GELU fused; bench/variants/chain/: chunk 64, group 8,
# a 2-CTA cluster, chunk 256 with 3 stages) at 4096^3 against cuBLASLt's
# GELU_BIAS and the unfused pair; spec 16 (e4m3 out + amax;
# bench/variants/fp8out/: chunk 128, group 8, a 2-CTA cluster) at 4096^3 and
# 8192^3 against cuBLASLt's e4m3 output.
#   usage (device): bash bench/h200-epilogue-variants.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/ev; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
: > "$L/summary.txt"
for pass in 1 2; do
  for s in specs/sm90/14_fast_bf16_bias_gelu.yaml bench/variants/chain/*.yaml; do
    n=chain_$(basename $s .yaml)_$pass
    timeout 120 "$G" bench $s --shapes 4096x4096x4096 --rounds 10 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
    echo "$s pass $pass rc=$?: $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | awk '{print $1, $4, $6, $7, $9, $10}' | tr '\n' ' ')" >> "$L/summary.txt"
  done
  for s in specs/sm90/16_fast_e4m3_out_e4m3.yaml bench/variants/fp8out/*.yaml; do
    n=fp8out_$(basename $s .yaml)_$pass
    timeout 120 "$G" bench $s --shapes 4096x4096x4096,8192x8192x8192 --rounds 10 --scale-a 0.5 \
      --scale-b 2 --scale-d 0.25 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
    echo "$s pass $pass rc=$?: $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | awk '{print $1, $4, $6, $7}' | tr '\n' ' ')" >> "$L/summary.txt"
  done
done
tar -C "$L" -czf "${OUT:-/tmp}/epilogue_variants_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"
