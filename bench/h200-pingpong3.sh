#!/usr/bin/env bash
# Ping-pong consumers, third run: the 64x256 ping-pong tile and variants of it
# (bench/pingpong-variants/) against specs 05/06 at 4096^3 and 8192^3, f16 and bf16,
# PASSES passes, each against cuBLAS in the same process.
#   usage (device): bash bench/h200-pingpong3.sh CARRY [PASSES]   (CARRY: gemmgen)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
PASSES=${2:-2}
L=${OUT:-/tmp}/pp3; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
date -u +%FT%TZ >> "$L/summary.txt"
HEAD=4096x4096x4096,8192x8192x8192
V=bench/pingpong-variants
for v in 64x256_f16 g8 g32 d4 d4_c128 along_n; do
  timeout 60 "$G" run $V/$v.yaml --m 8192 --n 8192 --k 1024 --verify --iters 0 > "$L/verify_$v.txt" 2>&1
  echo "verify $v rc=$? $(grep -Eo '(PASS|FAIL)' "$L/verify_$v.txt" | head -1)" >> "$L/summary.txt"
done
b() { # label args...
  local label=$1; shift
  timeout 200 "$G" bench "$@" --rounds 20 --json "$L/bench_$label.json" > "$L/bench_$label.txt" 2>&1
  echo "bench $label rc=$?" >> "$L/summary.txt"
}
for pass in $(seq 1 "$PASSES"); do
  b f16_05_$pass specs/sm90/05_fast_f16.yaml --shapes $HEAD
  b bf16_06_$pass specs/sm90/06_fast_bf16.yaml --shapes $HEAD
  for v in 64x256_f16 g8 g32 d4 d4_c128 along_n; do
    b f16_${v}_$pass $V/$v.yaml --shapes $HEAD
    b bf16_${v}_$pass $V/$v.yaml --dtype bf16 --shapes $HEAD
  done
done
tar czf "${OUT:-/tmp}/pp3-logs.tgz" -C "$L" .
cat "$L/summary.txt"
for f in "$L"/bench_*.txt; do echo "== $(basename $f .txt)"; grep -E '^ *[0-9]+x[0-9]+x[0-9]+' "$f" | cut -c1-100; done
