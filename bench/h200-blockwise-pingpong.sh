#!/usr/bin/env bash
# Blockwise e4m3 on the ping-pong schedule (bench/variants/blockwise/pingpong_m64.yaml: each
# consumer its own 64x128 tiles, k-blocks in pairs) against spec 15 (cooperative 128x128, pairs)
# and cuBLASLt's blockwise mode, two passes (the second reversed).
# Prediction (2026-12-04, before the run): -5 to +3% at M = 4096 (the epilogue hidden behind
# the other consumer's wgmmas, against B read once per 64 rows instead of 128); at M = 128 level.
#   usage (device): bash bench/h200-blockwise-pingpong.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_pingpong "$1"
PP=bench/variants/blockwise/pingpong_m64.yaml
for s in 1000x1001x640 129x4000x384 4096x7168x2048; do verify pp $PP $s; done
run() { # label shape bench-args...
  local label=$1 s=$2 m n k; shift 2
  IFS=x read -r m n k <<< "$s"
  timeout 90 "$G" bench "$@" --m $m --n $n --k $k --rounds 10 > "$L/${label}_${pass}_$s.txt" 2>&1
  echo "pass $pass $label $(table "$L/${label}_${pass}_$s.txt")" >> "$S"
}
for pass in 1 2; do
  for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048; do
    if [ $pass = 1 ]; then run spec15 $s specs/sm90/15_blockwise_e4m3.yaml; run pp $s $PP
    else run pp $s $PP; run spec15 $s specs/sm90/15_blockwise_e4m3.yaml; fi
  done
done
bench_finish
