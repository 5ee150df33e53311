#!/usr/bin/env bash
# Spec 13 (e4m3 -> bf16, per-tensor scales) against scheduling variants
# (bench/variants/fp8/: group 8 / 32, Hilbert and along-N rasters, a 2-CTA
# cluster sharing B), each benched against cuBLASLt fp8 at 4096^3 and 8192^3,
# two passes over the list.
#   usage (device): bash bench/h200-fp8-variants.sh CARRY   (CARRY: gemmgen, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/fv; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
: > "$L/summary.txt"
for pass in 1 2; do
  for s in specs/sm90/13_fast_e4m3.yaml bench/variants/fp8/*.yaml; do
    n=$(basename $s .yaml)_$pass
    timeout 120 "$G" bench $s --shapes 4096x4096x4096,8192x8192x8192 --rounds 10 --scale-a 0.5 \
      --scale-b 2 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
    echo "$s pass $pass rc=$?: $(grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | awk '{print $1, $4, $6, $7}' | tr '\n' ' ')" >> "$L/summary.txt"
  done
done
tar -C "$L" -czf "${OUT:-/tmp}/fp8_variants_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"
