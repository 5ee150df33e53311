#!/usr/bin/env bash
# The chooser's four blockwise families (bench/variants/blockwise/smem/: medium 128x128,
# wide 128x192 one partial sum, narrow 128x64, small 64x128) with the scales through shared
# memory, each against cuBLASLt's blockwise mode on the eight DeepSeek-V3 shapes (M = 128 also
# with split_k 2, 3, 4, 8), one pass: which the chooser should pick now that the k-block costs
# moved (the pairs families 3-8% faster, wide 7.5% at 4096x2112x7168).
# Prediction (before the run): wide at or ahead of medium at the M = 4096 shapes with N = 7168
# (its promotion per column now as cheap as the pairs'), the M = 128 picks unchanged.
#   usage (device): bash bench/h200-blockwise-smem-families.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init blockwise_smem_families "$1"
V=bench/variants/blockwise/smem
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
