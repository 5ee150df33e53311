#!/usr/bin/env bash
# Why the tall twins with B N-major (one 32- or 64-byte box, 6cb67c9) ran 6-15% behind the same
# twins with B K-major on the H100 (bench/h200-tall-nmajor2.sh, 2026-12-05): ncu of one launch of
# each at 4096x16x4096 and 14336x8x4096 (`bench auto --layout row,col` and `row,row`), then
# `bench auto --layout row,row` with the maps' L2 promotion forced (GEMMGEN_TMA_L2_PROMOTION).
# Prediction: equal DRAM bytes; the N-major kernel's producer waits longer per stage (its B box
# is 64 rows of 32 bytes where the K-major one is 16 of 128).
#   usage (device): bash bench/h200-tall-nmajor-ncu.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init tall_nmajor_ncu "$1"
SECT="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats"
for s in 4096x16x4096 14336x8x4096; do
  IFS=x read -r m n k <<< "$s"
  for l in row,col row,row; do
    log=$L/ncu_${s}_${l/,/_}.txt
    timeout 120 ncu --clock-control none -k 'regex:gemm_sm90' --launch-count 1 $SECT \
      "$G" bench auto --m "$m" --n "$n" --k "$k" --layout "$l" --rounds 1 --warmup 0 > "$log" 2>&1
    echo "== ncu $s $l rc=$?" >> "$S"
    grep -E '^  gemm_sm90|Duration|DRAM Throughput|Memory Throughput|L2 Hit Rate|L1/TEX Hit|Warp Cycles Per Issued|Stall' \
      "$log" | head -14 >> "$S"
  done
done
for p in none 64 256; do
  GEMMGEN_TMA_L2_PROMOTION=$p timeout 90 "$G" bench auto --m 4096 --n 16 --k 4096 --layout row,row \
    --rounds 10 > "$L/promo_$p.txt" 2>&1
  echo "promotion $p $(table "$L/promo_$p.txt")" >> "$S"
done
bench_finish
