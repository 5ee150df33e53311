#!/usr/bin/env bash
# What the consumers' scale loads cost spec 15 (pairs): the kernel with every scale a constant 1
# (NEW: built from bench/results/2026-12-04_blockwise_pairs_h200/noload-experiment.patch on
# 12c4812 with GEMMGEN_EXP_NOLOAD=1; D is wrong, timing only) against it as shipped (CARRY),
# `gemmgen run` (no reference), same call, alternating, two passes. The question before moving
# A's scales into shared memory with the stage's TMA loads: how much is there to win.
# Prediction (2026-12-04, before the run): 2-6% at M = 4096.
#   usage (device): bash bench/h200-blockwise-noload.sh CARRY NEW   (each: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_noload "$1"
N=${2:-.devrun/ahead}; case $N in /*) ;; *) N=$PWD/$N ;; esac
S15=specs/sm90/15_blockwise_e4m3.yaml
for pass in 1 2; do
  for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048; do
    IFS=x read -r m n k <<< "$s"
    for v in base noload; do
      if [ $v = noload ]; then bin=$N; else bin=$C; fi
      GEMMGEN_EXP_NOLOAD=$([ $v = noload ] && echo 1) GEMMGEN_CACHE_DIR=$bin/cache \
        timeout 90 "$bin/gemmgen" run $S15 --m $m --n $n --k $k --iters 50 --warmup 10 > "$L/${v}_${pass}_$s.txt" 2>&1
      echo "pass $pass $v $s $(grep -E "^time" "$L/${v}_${pass}_$s.txt" | head -1)" >> "$S"
    done
  done
done
bench_finish
