#!/usr/bin/env bash
# Ping-pong consumers, second run: spec 14 vs 21 (bias+GELU) and 05 vs 20 three more times at
# 4096^3 and 8192^3, and 64x256 ping-pong tiles (bench/pingpong-variants/), each against
# cuBLAS / cuBLASLt in the same process.
#   usage (device): bash bench/h200-pingpong2.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=${OUT:-/tmp}/pp2; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
date -u +%FT%TZ >> "$L/summary.txt"
HEAD=4096x4096x4096,8192x8192x8192
V=bench/pingpong-variants
for s in 4096x4096x4096 3000x5000x2048 7168x2048x4096; do
  IFS=x read -r m n k <<< "$s"
  for spec in $V/64x256_f16.yaml $V/64x256_bf16_bias_gelu.yaml; do
    timeout 60 "$G" run $spec --m $m --n $n --k $k --verify --iters 0 > "$L/verify_$(basename $spec .yaml)_$s.txt" 2>&1
    echo "verify $(basename $spec .yaml) $s rc=$? $(grep -Eo '(PASS|FAIL)' "$L/verify_$(basename $spec .yaml)_$s.txt" | head -1)" >> "$L/summary.txt"
  done
done
b() { # label args...
  local label=$1; shift
  timeout 200 "$G" bench "$@" --rounds 20 --json "$L/bench_$label.json" > "$L/bench_$label.txt" 2>&1
  echo "bench $label rc=$?" >> "$L/summary.txt"
}
for pass in 1 2 3; do
  b chain_14_$pass specs/sm90/14_fast_bf16_bias_gelu.yaml --shapes $HEAD
  b chain_21_$pass specs/sm90/21_pingpong_bf16_bias_gelu.yaml --shapes $HEAD
  b chain_pp64_$pass $V/64x256_bf16_bias_gelu.yaml --shapes $HEAD
done
b f16_05 specs/sm90/05_fast_f16.yaml --shapes $HEAD,3000x5000x2048,7168x2048x4096
b f16_20 specs/sm90/20_pingpong_f16.yaml --shapes $HEAD,3000x5000x2048,7168x2048x4096
b f16_pp64 $V/64x256_f16.yaml --shapes $HEAD,3000x5000x2048,7168x2048x4096
tar czf "${OUT:-/tmp}/pp2-logs.tgz" -C "$L" .
cat "$L/summary.txt"
for f in "$L"/bench_*.txt; do echo "== $(basename $f .txt)"; grep -E '^ *[0-9]+x[0-9]+x[0-9]+' "$f" | cut -c1-140; done
