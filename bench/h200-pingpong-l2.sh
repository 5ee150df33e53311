#!/usr/bin/env bash
# The ping-pong rule keyed on the GPU's L2 (60 MiB or more: the H200's): `bench auto` at three of
# the rule's shapes, the chosen family and why, f16, each against cuBLAS in its process.
# Prediction: on the H100 `auto` takes `large` at all three (12288x12288x1024 and
# 16384x16384x1024 within 1% of spec 05's 0.443 and 0.79 ms, 8192x8192x512 ~4% behind the
# ping-pong kernel's 0.121), the why line naming the L2; on the H200 `pingpong` as before.
# Measured (H100, 2026-12-06_pingpong_l2_h100): `large` at all three, 1.004-1.014 of cuBLAS.
#   usage (device): bash bench/h200-pingpong-l2.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init pingpong_l2 "$1"
for s in 12288x12288x1024 16384x16384x1024 8192x8192x512; do
  bench_auto auto "$s"
  grep -o "chosen by the cost model: [a-z0-9_]* [^,(]*\|not the ping-pong rule's tiles[^(]*" \
    "$L/auto_auto_$s.txt" | head -2 >> "$S"
done
bench_finish
