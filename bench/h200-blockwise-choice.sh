#!/usr/bin/env bash
# The blockwise chooser after the pairs of k-blocks (its 128x128, 128x64 and 64x128 families'
# k-block costs x 0.925, the ratio bench/h200-blockwise-pairs.sh measured on spec 15): `bench
# auto` on the DeepSeek-V3 shapes against cuBLASLt's blockwise mode, beside the kernels the
# choice moved from or to, two passes (the second reversed).
# Prediction (2026-12-04, before the run): 4096x7168x2048 and 4096x7168x18432 move from spec 19
# (0.85 / 0.82-0.87) to spec 15 (0.92 / 0.86); at 128x7168x18432 (wide split 3 -> medium split 2)
# and 128x2112x7168 (wide split 8 -> narrow split 4) the new pick within 3% of the old either way.
#   usage (device): bash bench/h200-blockwise-choice.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_choice "$1"
V=bench/variants
run() { # label shape bench-args...
  local label=$1 s=$2 m n k; shift 2
  IFS=x read -r m n k <<< "$s"
  timeout 90 "$G" bench "$@" --m $m --n $n --k $k --rounds 10 > "$L/${label}_${pass}_$s.txt" 2>&1
  echo "pass $pass $label $(table "$L/${label}_${pass}_$s.txt") $(grep -o 'auto_[a-z0-9_]*' "$L/${label}_${pass}_$s.txt" | head -1)" >> "$S"
}
SH="4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168 64x7168x2048 64x2112x7168"
RSH=$(echo $SH | tr ' ' '\n' | tac | tr '\n' ' ')
for pass in 1 2; do
  list=$SH; [ $pass = 2 ] && list=$RSH
  for s in $list; do
    run auto $s auto --dtype e4m3 --scaling blockwise
    case $s in
      4096x7168x2048|4096x7168x18432) run spec19 $s specs/sm90/19_blockwise_e4m3_n192.yaml ;;
      128x7168x18432) run n192_s3 $s $V/blockwise/n192_s3.yaml; run medium_s2 $s $V/17_splitk2_blockwise_e4m3.yaml ;;
      128x2112x7168) run n192_s8 $s $V/blockwise/n192_s8.yaml; run n64_s4 $s $V/blockwise/n64_s4.yaml ;;
    esac
  done
done
bench_finish
