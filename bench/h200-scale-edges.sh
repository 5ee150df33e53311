#!/usr/bin/env bash
# The blockwise producer's scale copies that never read outside the arrays (NEW: the partial
# first/last 16-byte chunks copied by hand, stage_scales) against the copies before (OLD: ce93686,
# which read up to 12 bytes past them). Spec 15, alternating, two passes.
# Run 1, NEW = 55ab588. Prediction (before the run): level (within +-0.5%): the producer's extra
# integer work per k-block runs while it waits for free stages, and aligned arrays never take the
# hand path. Measured -4 to -11%: the producer's k-block grew from ~62 to ~320 instructions.
# Run 2, NEW = 2907feb (fast path ~80 instructions, the edge work in a rare branch). Prediction:
# within +-1% of OLD. Measured -1.5 to -3.5%.
# Run 3, NEW = the commit after it: aligned arrays of whole chunks (scales_in_whole_chunks, tested
# once, loop-invariant) skip every test; ~60 instructions as before. Prediction: within +-0.5%.
# Measured: -0.7% at 4096x7168x2048, level at 4096x2112x7168, 0 to -2% at 128x7168x2048 (11 us).
# Run 4, NEW = the commit after it: the copies' index arithmetic planned before the producer's
# wait for the stage (plan_scale_copy), ~35 instructions from that wait to the loads against ~45
# in OLD. Prediction: 0 to +2% against OLD at M = 4096. Measured -0.5 to 0% at M = 4096 and -5% at
# 128x7168x2048 (0.0114/0.0115 -> 0.0120/0.0120 ms): reverted to run 3's form.
#   usage (device): bash bench/h200-scale-edges.sh OLD NEW
source "$(dirname "$0")/lib.sh"
bench_init scale_edges "$2"
O=${1}; case $O in /*) ;; *) O=$PWD/$O ;; esac
for s in 1000x1001x640 129x4000x384 3x300x640; do verify new specs/sm90/15_blockwise_e4m3.yaml $s; done
ab_bench "$O" "$C" "4096x7168x2048 4096x2112x7168 128x7168x2048" specs/sm90/15_blockwise_e4m3.yaml
bench_finish
