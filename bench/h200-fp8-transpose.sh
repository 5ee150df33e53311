#!/usr/bin/env bash
# fp8 operands stored M- or N-major through the runtime's transposing copy (gg_transpose2d,
# Staging.cpp): the fp8 GPU tests (nine cases with A column-major and/or B row-major among
# them), memcheck over those nine, `run --verify` of specs 13 and 15 at the four operand
# layouts, and what the copy costs: `run --iters 30` medians of spec 13 with K-major operands
# and with both operands copied, 4096^3, 8192^3 and a decode shape, two passes.
#   usage (device): bash bench/h200-fp8-transpose.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init fp8_transpose "$1"
gpu_tests '*Fp8*'
memcheck '*Fp8Gemm*_a_col*:*Fp8Gemm*_b_row*'
for l in row,col col,col row,row col,row; do
  verify e4m3_$l specs/sm90/13_fast_e4m3.yaml 1000x1001x528 --layout $l --beta 0.5
  verify blockwise_$l specs/sm90/15_blockwise_e4m3.yaml 1000x1001x528 --layout $l
done
for pass in 1 2; do
  for s in 4096x4096x4096 8192x8192x8192 16x7168x2048; do
    for l in row,col col,row; do
      IFS=x read -r m n k <<< "$s"
      log=$L/time_${pass}_${s}_${l/,/_}.txt
      timeout 60 "$G" run specs/sm90/13_fast_e4m3.yaml --m "$m" --n "$n" --k "$k" --layout "$l" \
        --iters 30 > "$log" 2>&1
      echo "time pass $pass $s $l rc=$? $(grep -o 'median [0-9.]* ms' "$log") $(grep -o 'path [^ :]*' "$log" | head -1)" >> "$S"
    done
  done
done
bench_finish
