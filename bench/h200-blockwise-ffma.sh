#!/usr/bin/env bash
# Blockwise spec 15 with the promotion's FFMAs allowed to yield (experiment; the binary EXP is
# built with bench/results/2026-12-04_ffma_h200/ffma-experiment.patch on ce93686): in each run of
# consecutive FFMAs of the cubin, the first 9/16 (or all, 16/16) of those that carry an operand-
# reuse flag lose it and their no-yield bit (GEMMGEN_EXP_FFMA=9|16), so the warp scheduler may
# switch to the other consumer's warp (its wgmma issue) inside a 64-FFMA promotion run. A third
# variant puts a nanosleep at the promotion's start (GEMMGEN_EXP_YIELD=sleep:16; ptxas hoists it
# there). ncu at 4096x7168x2048: tensor pipe 62%, promotion FFMAs 22% and wgmma issue 17% of stalls.
# Prediction (before the run): FFMA=9 +2-6% at the M = 4096 shapes, 16 about the same, the
# sleep within +-1%; bias+GELU spec 14 (its epilogue's FFMA runs) within +-1%.
#   usage (device): bash bench/h200-blockwise-ffma.sh EXP   (EXP: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_ffma "$1"
S15=specs/sm90/15_blockwise_e4m3.yaml
for v in FFMA=9 FFMA=16 YIELD=sleep:16; do
  for s in 1000x1001x640 129x4000x384 300x449x1160 4096x7168x2048; do
    ( export GEMMGEN_EXP_$v; verify "exp_${v/:/_}" $S15 $s )
  done
  ( export GEMMGEN_EXP_$v; verify "exp_${v/:/_}" specs/sm90/14_fast_bf16_bias_gelu.yaml 1000x1001x640 )
done
run_variant() {  # PASS SHAPE VARIANT SPEC
  local log=$L/${3/:/_}_$1_$2_$(basename $4 .yaml).txt m n k; IFS=x read -r m n k <<< "$2"
  ( [ "$3" = none ] || export "GEMMGEN_EXP_$3"
    timeout 90 "$G" bench "$4" --m $m --n $n --k $k --rounds 10 > "$log" 2>&1 )
  echo "pass $1 $3 $(basename $4 .yaml) $(table "$log")" >> "$S"
}
for pass in 1 2; do
  vs="none FFMA=9 FFMA=16 YIELD=sleep:16"; [ $pass = 2 ] && vs="YIELD=sleep:16 FFMA=16 FFMA=9 none"
  for s in 4096x7168x2048 4096x4096x7168 4096x2112x7168 128x7168x2048; do
    for v in $vs; do run_variant $pass $s $v $S15; done
  done
  for v in none FFMA=9; do run_variant $pass 4096x4096x4096 $v specs/sm90/14_fast_bf16_bias_gelu.yaml; done
done
bench_finish
