#!/usr/bin/env bash
# Follow-up of bench/h200-blockwise-ffma.sh (FFMAs allowed to yield: 2-7% slower): which of the
# two cleared bits cost. Here only the operand-reuse flag is cleared (GEMMGEN_EXP_FFMA_BITS=
# 0800000000000000), the no-yield bit kept. Prediction: if the reuse flags' loss (register-bank
# reads) is the cost, this is as slow as FFMA=16 before (-3 to -7%); if it is level with none,
# the yields cost. Same binary as the first part (patch in 2026-12-04_ffma_h200).
#   usage (device): bash bench/h200-blockwise-ffma2.sh EXP
source "$(dirname "$0")/lib.sh"
bench_init blockwise_ffma2 "$1"
S15=specs/sm90/15_blockwise_e4m3.yaml
run_variant() {  # PASS SHAPE VARIANT(none|reuse16)
  local log=$L/$3_$1_$2.txt m n k; IFS=x read -r m n k <<< "$2"
  ( [ "$3" = none ] || export GEMMGEN_EXP_FFMA=16 GEMMGEN_EXP_FFMA_BITS=0800000000000000
    timeout 90 "$G" bench $S15 --m $m --n $n --k $k --rounds 10 > "$log" 2>&1 )
  echo "pass $1 $3 $(table "$log")" >> "$S"
}
( export GEMMGEN_EXP_FFMA=16 GEMMGEN_EXP_FFMA_BITS=0800000000000000; verify reuse16 $S15 1000x1001x640 )
for pass in 1 2; do
  vs="none reuse16"; [ $pass = 2 ] && vs="reuse16 none"
  for s in 4096x7168x2048 4096x4096x7168 4096x2112x7168; do
    for v in $vs; do run_variant $pass $s $v; done
  done
done
bench_finish
