#!/usr/bin/env bash
# Issue 12's figures on this session's final binaries, three passes each: the blockwise chooser at
# 4096x7168x18432 (0.984-0.991 in bench/h200-final-check.sh, 1.052 in the family run, where
# cuBLASLt itself moved 0.841 -> 0.883 ms) and 4096x7168x2048; spec 13 (e4m3 -> bf16, per-tensor
# scales 0.5 / 2) at 4096^3 and 8192^3; spec 21 (ping-pong bias + GELU) at 4096^3 against
# cuBLASLt's GELU_BIAS and the unfused pair. Prediction: blockwise 0.98-1.05 at the long-K shape
# (cuBLASLt's spread), spec 13 0.99-1.00, spec 21 1.00-1.01 (nothing they run changed).
# (16:45 UTC: the blockwise runs gave two shapes to `auto`, which takes one; rerun with
# ONLY_BLOCKWISE=1, the other figures from the first call.)
#   usage (device): [ONLY_BLOCKWISE=1] bash bench/h200-issue12-final.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init issue12_final "$1"
for pass in 1 2 3; do
  for s in 4096x7168x18432 4096x7168x2048; do  # `auto` takes one shape per run
    timeout 150 "$G" bench auto --dtype e4m3 --scaling blockwise --shapes $s --rounds 20 > "$L/block_${s}_$pass.txt" 2>&1
    echo "== pass $pass blockwise auto rc=$?" >> "$S"; table "$L/block_${s}_$pass.txt" >> "$S"
  done
  [ -n "$ONLY_BLOCKWISE" ] && continue
  timeout 150 "$G" bench specs/sm90/13_fast_e4m3.yaml --shapes 4096x4096x4096,8192x8192x8192 --scale-a 0.5 --scale-b 2 --rounds 20 > "$L/e4m3_$pass.txt" 2>&1
  echo "== pass $pass spec 13 rc=$?" >> "$S"; table "$L/e4m3_$pass.txt" >> "$S"
  timeout 150 "$G" bench specs/sm90/21_pingpong_bf16_bias_gelu.yaml --shapes 4096x4096x4096 --rounds 20 > "$L/gelu_$pass.txt" 2>&1
  echo "== pass $pass spec 21 rc=$?" >> "$S"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror|cuBLASLt fused:|unfused:' "$L/gelu_$pass.txt" | cut -c1-150 >> "$S"
done
bench_finish
