#!/usr/bin/env bash
# What the blockwise producer's extra instructions cost, by where they are (experiment; the binary
# EXP is HEAD with bench/results/2026-12-04_producer_pad_h200/pad-experiment.patch): 20 dependent
# IMADs per k-block (GEMMGEN_EXP_PAD=before:20: after the producer's empty-barrier wait, before its
# arrive and loads, though ptxas hoists part of them above the wait; after:20: after its loads).
# bench/h200-scale-edges.sh found ~20 more instructions between the wait and the loads cost spec
# 15 3%, and an earlier release of the stages moved nothing. Prediction (before the run): if the
# instructions cost issue slots of the consumer warps on the producer's sub-partition, both
# placements cost ~2-3%; if they cost the window from the wait to the loads, `after` costs ~0.
# Measured (12:56 UTC, d58e28a + patch): before +3.3 to +3.6%, after +1.6 to +2.6% (gemmgen ms at
# 4096x7168x2048 0.1065/0.1068 -> 0.1103/0.1101 and 0.1093/0.1093), level at 128x7168x2048: the
# place matters little.
#   usage (device): bash bench/h200-producer-pad.sh EXP
source "$(dirname "$0")/lib.sh"
bench_init producer_pad "$1"
S15=specs/sm90/15_blockwise_e4m3.yaml
( export GEMMGEN_EXP_PAD=after:20; verify pad_after $S15 1000x1001x640 )
( export GEMMGEN_EXP_PAD=before:20; verify pad_before $S15 1000x1001x640 )
run_variant() {  # PASS SHAPE VARIANT(none|before:20|after:20)
  local log=$L/${3/:/_}_$1_$2.txt m n k; IFS=x read -r m n k <<< "$2"
  ( [ "$3" = none ] || export GEMMGEN_EXP_PAD=$3
    timeout 90 "$G" bench $S15 --m $m --n $n --k $k --rounds 10 > "$log" 2>&1 )
  echo "pass $1 $3 $(table "$log")" >> "$S"
}
for pass in 1 2; do
  vs="none before:20 after:20"; [ $pass = 2 ] && vs="after:20 before:20 none"
  for s in 4096x7168x2048 4096x2112x7168 128x7168x2048; do
    for v in $vs; do run_variant $pass $s $v; done
  done
done
bench_finish
