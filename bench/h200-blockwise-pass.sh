#!/usr/bin/env bash
# Blockwise e4m3, two partial-sum buffers: k-blocks in passes of U with a wait for every wgmma
# at each pass's end (the printer's experiment hook GEMMGEN_EXP_PAIR=U on
# bench/variants/15_blockwise_two_partials.yaml); U - 1 of every U promotions run under the next
# k-block's wgmmas. After bench/h200-blockwise-pair.sh (U = 2: +6-10% over spec 15).
# Prediction (2026-12-04, before the run): the unhidden promotions go from 1/2 to 1/4 and 1/8:
# U = 4 +3% over U = 2, U = 8 +1-2% over U = 4 (less if the longer code misses the instruction cache).
# An experiment on 994f581: the hooks are in bench/results/2026-12-04_blockwise_pass_h200/experiment.patch (apply it
# to 994f581 and build; bench/variants/15_blockwise_two_partials.yaml was renamed after it).
#   usage (device): bash bench/h200-blockwise-pass.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_pass "$1"
S15=specs/sm90/15_blockwise_e4m3.yaml
TP=bench/variants/15_blockwise_two_partials.yaml
for u in 4 8; do
  for s in 1000x1001x640 129x4000x384 300x449x1160 4096x7168x2048; do
    GEMMGEN_EXP_PAIR=$u verify u$u $TP $s
  done
done
SH="4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x18432 128x2112x7168"
RSH=$(echo $SH | tr ' ' '\n' | tac | tr '\n' ' ')
for pass in 1 2; do
  list=$SH; [ $pass = 2 ] && list=$RSH
  for s in $list; do
    IFS=x read -r m n k <<< "$s"
    for v in base 2 4 8; do
      if [ $v = base ]; then
        timeout 90 "$G" bench $S15 --m $m --n $n --k $k --rounds 10 > "$L/${v}_${pass}_$s.txt" 2>&1
      else
        GEMMGEN_EXP_PAIR=$v timeout 90 "$G" bench $TP --m $m --n $n --k $k --rounds 10 > "$L/${v}_${pass}_$s.txt" 2>&1
      fi
      echo "pass $pass $v $(table "$L/${v}_${pass}_$s.txt")" >> "$S"
    done
  done
done
bench_finish
