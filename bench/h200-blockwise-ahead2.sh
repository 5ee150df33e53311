#!/usr/bin/env bash
# Blockwise pairs with each buffer's next scales loaded a pair ahead (after its promotion) instead
# of before its own wgmmas: spec 15 on binaries with (NEW) and without (CARRY) the change, same
# call, alternating, two passes; `run --verify` of the new one first.
# Prediction (2026-12-04, before the run): +1-4% if the promotion's scale product waited on the
# loads (as the one-buffer form's did before its loads went a k-block ahead, docs/PERF.md), level
# if not, lower if loads after the promotion cost as the "late" ones after the wgmmas did (-9%).
# An experiment on 2bad794: NEW is built from bench/results/2026-12-04_blockwise_pairs_h200/
# ahead2-experiment.patch (not on main: it lost, docs/PERF.md).
#   usage (device): bash bench/h200-blockwise-ahead2.sh CARRY NEW   (each: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_ahead2 "$1"
N=${2:-.devrun/ahead}; case $N in /*) ;; *) N=$PWD/$N ;; esac
S15=specs/sm90/15_blockwise_e4m3.yaml
OLDG=$G; G=$N/gemmgen; export GEMMGEN_CACHE_DIR=$N/cache
for s in 1000x1001x640 129x4000x384 300x449x1160 4096x7168x2048 128x2112x7168; do verify ahead $S15 $s; done
verify ahead specs/sm90/17_splitk_blockwise_e4m3.yaml 128x2112x7168
G=$OLDG
for pass in 1 2; do
  for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x7168x18432; do
    IFS=x read -r m n k <<< "$s"
    for v in base ahead base2; do
      if [ $v = ahead ]; then bin=$N; else bin=$C; fi
      GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" bench $S15 --m $m --n $n --k $k --rounds 10 > "$L/${v}_${pass}_$s.txt" 2>&1
      echo "pass $pass $v $(table "$L/${v}_${pass}_$s.txt")" >> "$S"
    done
  done
done
bench_finish
