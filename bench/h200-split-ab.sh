#!/usr/bin/env bash
# Experiment: the A and B tiles' loads on two producer warps (warp 0 A, warp 3 B, each arriving
# with its bytes) for the kernels without blockwise scales, as the blockwise kernels' four warps
# (bench/h200-scale-warps4.sh: spec 15 5% faster). The binary EXP is c001aae with
# bench/results/2026-12-04_split_ab_h200/split-ab.patch (GEMMGEN_EXP_SPLIT_AB=1 turns it on).
# Their consumer warps do no per-k-block CUDA-core work, so warp 0's ~20 instructions per k-block
# should cost them little. Prediction (before the run): level to +1% (specs 05, 06, 13, 14 at
# 4096^3 and 8192^3); verify passes.
# Measured (15:48 UTC, 2026-12-04_split_ab_h200): 0.5-0.8% slower at 4096^3 (05 0.1802/0.1804 ->
# 0.1816/0.1816 ms, 13 0.0938 -> 0.0943-0.0946, 14 0.1823/0.1825 -> 0.1837/0.1838), 8192^3 within
# the run's drift; verify PASS. Not kept.
#   usage (device): bash bench/h200-split-ab.sh EXP
source "$(dirname "$0")/lib.sh"
bench_init split_ab "$1"
for s in 05_fast_f16 13_fast_e4m3 14_fast_bf16_bias_gelu; do
  ( export GEMMGEN_EXP_SPLIT_AB=1; verify $s specs/sm90/$s.yaml 1000x1001x520 --beta 0.5 )
done
run_variant() {  # PASS SPEC SHAPES VARIANT(none|split)
  local log=$L/$4_$1_$2.txt
  ( [ "$4" = none ] || export GEMMGEN_EXP_SPLIT_AB=1
    timeout 120 "$G" bench specs/sm90/$2.yaml --shapes $3 --rounds 10 > "$log" 2>&1 )
  echo "pass $1 $2 $4"; table "$log"
}
for pass in 1 2; do
  vs="none split"; [ $pass = 2 ] && vs="split none"
  for s in 05_fast_f16 06_fast_bf16 13_fast_e4m3; do
    for v in $vs; do run_variant $pass $s 4096x4096x4096,8192x8192x8192 $v >> "$S"; done
  done
  for v in $vs; do run_variant $pass 14_fast_bf16_bias_gelu 4096x4096x4096 $v >> "$S"; done
done
bench_finish
