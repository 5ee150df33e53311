#!/usr/bin/env bash
# Two staging tiles per consumer (epilogue.buffers: 2, chunk c in tile c % 2, the store of a
# chunk overlapping the staging of the next) against one, on the H200, twice, in one process
# each with cuBLAS: spec 10 (f32 output, 64-column chunks) vs bench/epilogue-variants/
# f32_chunk32_buffers2.yaml, and spec 05 (f16, 128-column chunks) vs f16_chunk64_buffers2.yaml,
# at 4096^3 and 8192^3; then run --verify with beta = 0.5 (the C path into alternating tiles).
#   usage (device): bash bench/h200-epilogue-buffers.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/epilogue-buffers; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
V=bench/epilogue-variants
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
for r in 1 2; do
  for pair in "specs/sm90/10_fast_f16_out_f32.yaml f16" "$V/f32_chunk32_buffers2.yaml f16" \
              "specs/sm90/10_fast_f16_out_f32.yaml bf16" "$V/f32_chunk32_buffers2.yaml bf16" \
              "specs/sm90/05_fast_f16.yaml f16" "$V/f16_chunk64_buffers2.yaml f16"; do
    set -- $pair; echo "-- run $r $(basename $1) $2"
    timeout 120 "$G" bench $1 --dtype $2 --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 > "$L/bench_${r}_$(basename $1 .yaml)_$2.txt" 2>&1
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_${r}_$(basename $1 .yaml)_$2.txt" | cut -c1-100
  done
done | tee "$L/bench.txt"
for s in $V/f32_chunk32_buffers2.yaml $V/f16_chunk64_buffers2.yaml; do
  for sh in "1000 1001 520" "4096 4096 4096"; do set -- $sh
    echo "run $(basename $s) $1x$2x$3 beta 0.5: $(timeout 60 "$G" run $s --m $1 --n $2 --k $3 --beta 0.5 --c-in-place --verify --iters 0 2>&1 | grep -E '^verify|error' | cut -c1-90)"
  done
done | tee "$L/runs.txt"
tar czf "${OUT:-/tmp}/epilogue-buffers-logs.tgz" -C "$L" . && rm -rf "$L"
