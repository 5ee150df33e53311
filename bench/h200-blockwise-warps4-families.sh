#!/usr/bin/env bash
# The chooser's four blockwise families with four producer warps (bench/variants/blockwise/warps4/: medium 128x128,
# wide 128x192 one partial sum, narrow 128x64, small 64x128) with the scales through shared
# memory, each against cuBLASLt's blockwise mode on the eight DeepSeek-V3 shapes (M = 128 also
# with split_k 2, 3, 4, 8), one pass: which the chooser should pick now that the k-block costs
# moved (four producer warps: spec 15 5% faster at 4096x7168x2048, the small family 12% at
# 128x4096x7168, bench/h200-final-check.sh). For bench/model/fit_fp8_model.py.
# Prediction (before the run): every family 2-12% below its smem-families time, the small one
# most; the fitted k-block times drop by as much.
#   usage (device): bash bench/h200-blockwise-warps4-families.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init blockwise_warps4_families "$1"
V=bench/variants/blockwise/warps4
one() { # shape variant
  IFS=x read -r m n k <<< "$1"
  timeout 90 "$G" bench $V/$2.yaml --m $m --n $n --k $k --rounds 10 > "$L/$2_$1.txt" 2>&1
  echo "$2 $(table "$L/$2_$1.txt")" >> "$S"
}
for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168; do
  for f in medium wide narrow small; do one $s ${f}_s1; done
done
for s in 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168; do
  for f in medium wide narrow small; do for sp in 1 2 3 4 8; do one $s ${f}_s$sp; done; done
done
bench_finish
