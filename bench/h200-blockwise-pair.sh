#!/usr/bin/env bash
# Blockwise e4m3: two k-blocks per pass with the first one's promotion under the second one's
# wgmmas (the printer's experiment hook GEMMGEN_EXP_PAIR on bench/variants/15_blockwise_two_partials.yaml:
# issue kb, issue kb+1, wait<1>, promote kb, wait<0>, promote kb+1 — ptxas keeps the wgmmas
# asynchronous in this form, C7514 does not appear), and spec 15 with the next k-block's scale
# loads after its wgmmas instead of before them (GEMMGEN_EXP_LATE), against spec 15 as shipped and
# cuBLASLt's blockwise mode, two passes (the second in reverse order), after `run --verify`.
# Prediction (2026-12-04, before the run): if the promotion costs because each warpgroup's chain
# (wgmmas, wait, promote) is serial, the pair form hides half of it: +6-9% at M = 4096 against
# spec 15; if the FFMAs slow whatever wgmmas run beside them (the "turns" reading in docs/PERF.md),
# +0-2%. Late scale loads: +1-3%.
# An experiment on 994f581: the hooks are in bench/results/2026-12-04_blockwise_pair_h200/experiment.patch (apply it
# to 994f581 and build; bench/variants/15_blockwise_two_partials.yaml was renamed after it).
#   usage (device): bash bench/h200-blockwise-pair.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_pair "$1"
S15=specs/sm90/15_blockwise_e4m3.yaml
TP=bench/variants/15_blockwise_two_partials.yaml
for s in 1000x1001x640 129x4000x384 300x449x520 4096x7168x2048; do
  GEMMGEN_EXP_PAIR=1 verify pair $TP $s
  GEMMGEN_EXP_LATE=1 verify late $S15 $s
done
SH="4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x18432 128x2112x7168"
RSH=$(echo $SH | tr ' ' '\n' | tac | tr '\n' ' ')
for pass in 1 2; do
  list=$SH; [ $pass = 2 ] && list=$RSH
  for s in $list; do
    IFS=x read -r m n k <<< "$s"
    for v in base late pair; do
      spec=$S15; env=""
      [ $v = late ] && env="GEMMGEN_EXP_LATE=1"
      [ $v = pair ] && { spec=$TP; env="GEMMGEN_EXP_PAIR=1"; }
      env $env timeout 90 "$G" bench $spec --m $m --n $n --k $k --rounds 10 > "$L/${v}_${pass}_$s.txt" 2>&1
      echo "pass $pass $v $(table "$L/${v}_${pass}_$s.txt")" >> "$S"
    done
  done
done
bench_finish
