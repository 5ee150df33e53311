#!/usr/bin/env bash
# Experiment: mbarrier try_wait with a suspend-time hint (1 ms) so that a waiting thread sleeps
# until its phase completes instead of polling (the binary EXP is b88f845-era HEAD with
# bench/results/2026-12-04_wait_hint_h200/wait-hint.patch; GEMMGEN_EXP_WAIT_HINT=producer: the
# producer warps' empty-slot waits; =all: every full/empty wait). The four blockwise producer
# warps each poll ~4 rounds per k-block on their sub-partitions (ncu, last session: one warp).
# Prediction (before the run): producer 0.5-1% faster for spec 15 at 4096x7168x18432 and
# 4096x7168x2048, level for spec 05 / 13; all: within +-2% (a woken consumer may start later).
# Measured (15:53 UTC, 2026-12-04_wait_hint_h200): spec 05 at 4096^3 0.1806 / 0.1806 -> 0.1796 /
# 0.1797 (producer) and 0.1800 / 0.1797 ms (all), spec 13 0.0937 / 0.0937 -> 0.0934-0.0936; spec
# 15 too noisy in this call to read (cuBLASLt itself 0.1069-0.1320 ms at 4096x7168x2048), its
# long-K shape 0.8781 / 0.8763 ms without the hint against 0.9015 / 0.8993 with the producer's.
# Not kept: at most 0.5% on spec 05, and no sign of the gain predicted for spec 15.
#   usage (device): bash bench/h200-wait-hint.sh EXP
source "$(dirname "$0")/lib.sh"
bench_init wait_hint "$1"
for s in 15_blockwise_e4m3 05_fast_f16; do
  ( export GEMMGEN_EXP_WAIT_HINT=all; verify $s specs/sm90/$s.yaml 1000x1001x640 --beta 0.5 )
done
run_variant() {  # PASS SPEC SHAPES VARIANT(none|producer|all)
  local log=$L/$4_$1_$2.txt
  ( [ "$4" = none ] || export GEMMGEN_EXP_WAIT_HINT=$4
    timeout 120 "$G" bench specs/sm90/$2.yaml --shapes $3 --rounds 10 > "$log" 2>&1 )
  echo "pass $1 $2 $4"; table "$log"
}
for pass in 1 2; do
  vs="none producer all"; [ $pass = 2 ] && vs="all producer none"
  for v in $vs; do run_variant $pass 15_blockwise_e4m3 4096x7168x18432,4096x7168x2048,128x4096x7168 $v >> "$S"; done
  for v in $vs; do run_variant $pass 05_fast_f16 4096x4096x4096 $v >> "$S"; done
  for v in $vs; do run_variant $pass 13_fast_e4m3 4096x4096x4096 $v >> "$S"; done
done
bench_finish
