#!/usr/bin/env bash
# Spec 15 with its two consumers' pairs of k-blocks out of phase (NEW: the patch
# bench/results/2026-12-04_blockwise_smem_h200/stagger-experiment.patch on a415bac): the odd
# consumer runs a tile's first k-block alone, then pairs from the second, so that the promotion of
# a pair's second k-block (nothing of its own warpgroup in flight) does not coincide in both
# consumers (ncu at 4096x7168x2048: tensor pipe busy 62%). CARRY: a415bac. `run --verify` of
# NEW first (1-3 k-blocks, odd counts, split, 128x64), then both alternating, two passes.
# Prediction (before the run): +3-8% at the three M = 4096 shapes with N >= 4096.
#   usage (device): bash bench/h200-blockwise-stagger.sh CARRY NEW
source "$(dirname "$0")/lib.sh"
bench_init blockwise_stagger "$1"
N=${2:-.devrun/stagger}; case $N in /*) ;; *) N=$PWD/$N ;; esac
G=$N/gemmgen; export GEMMGEN_CACHE_DIR=$N/cache  # `verify` runs NEW
S15=specs/sm90/15_blockwise_e4m3.yaml
for s in 1000x1001x640 129x4000x384 300x449x1160 4096x7168x2048 4000x300x100 257x300x256 200x300x384 1001x1000x1280; do verify new $S15 $s; done
verify new $S15 1000x1001x528 --beta 0.5
verify new $S15 129x300x640 --batch 3
verify new specs/sm90/17_splitk_blockwise_e4m3.yaml 128x2112x7168
verify new bench/variants/blockwise/n64.yaml 1001x449x1160
ab_bench "$C" "$N" "4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168" $S15
bench_finish
