#!/usr/bin/env bash
# Issue 12's per-tensor and fused-epilogue figures on a carried build, two passes: spec 13
# (e4m3 -> bf16, scales 0.5 / 2) against cuBLASLt fp8 at 4096^3 and 8192^3; specs 14
# (cooperative) and 21 (ping-pong) bias + GELU against cuBLASLt's GELU_BIAS and a GEMM followed
# by a separate elementwise pass, at the same shapes.
# Prediction (before the run): as last measured (spec 13 0.99-1.00; spec 14 0.97-0.98, spec 21
# ~1.00-1.01 of the fused epilogue, 1.4 / 1.25 of the unfused pair): nothing they run changed.
#   usage (device): bash bench/h200-issue12-figures.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init issue12_figures "$1"
for pass in 1 2; do
  timeout 150 "$G" bench specs/sm90/13_fast_e4m3.yaml --shapes 4096x4096x4096,8192x8192x8192 --scale-a 0.5 --scale-b 2 --rounds 20 > "$L/e4m3_$pass.txt" 2>&1
  echo "== pass $pass spec 13 e4m3 -> bf16 rc=$?" >> "$S"; table "$L/e4m3_$pass.txt" >> "$S"
  for spec in 14_fast_bf16_bias_gelu 21_pingpong_bf16_bias_gelu; do
    timeout 150 "$G" bench specs/sm90/$spec.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 > "$L/${spec}_$pass.txt" 2>&1
    echo "== pass $pass $spec rc=$?" >> "$S"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|rror|cuBLASLt fused:|unfused:' "$L/${spec}_$pass.txt" | cut -c1-150 >> "$S"
  done
done
bench_finish
