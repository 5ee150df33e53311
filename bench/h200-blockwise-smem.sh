#!/usr/bin/env bash
# Blockwise pairs with A's scales through shared memory (NEW: the working tree after 2972166):
# the producer copies each k-block's A scales for the tile's rows (one 16-byte-aligned
# cp.async.bulk, on the stage's full barrier) into smemScaleA beside the operands, and the
# consumers read them with ld.shared at the promotion; B's scale stays a global load. CARRY:
# 2972166's binary (A's scales loaded from global memory before the wgmmas). Both with the
# 64-column output chunk the new kernel needs for the 3 KB of scale stages (spec 15 in the
# working tree). `run --verify` of the new kernels first (M % 4 != 0: the copy's start moves
# with the k-block; batched entries), then both, same call, alternating, two passes.
# First run (07:12 UTC, A only, read at the promotion): +0-3.5%, -3% at 4096x7168x2048.
# Second form (B too, read right after the full wait like the old loads; 326 -> 318 per loop):
# Prediction (2026-12-04, before the run): +4-10% at the M = 4096 shapes (constant scales ran
# 14-18% shorter; this removes the A scales' global loads and their latency from the consumer
# but adds shared loads and a select, SASS 326 -> 356 instructions per pair loop), less at M = 128.
#   usage (device): bash bench/h200-blockwise-smem.sh CARRY NEW
source "$(dirname "$0")/lib.sh"
bench_init blockwise_smem "$1"
N=${2:-.devrun/smem}; case $N in /*) ;; *) N=$PWD/$N ;; esac
S15=specs/sm90/15_blockwise_e4m3.yaml
G=$N/gemmgen; export GEMMGEN_CACHE_DIR=$N/cache  # `verify` runs NEW
for s in 1000x1001x640 129x4000x384 300x449x1160 4096x7168x2048 128x2112x7168 129x257x100 4000x300x3000 1001x1000x640 131x2112x7168 3x700x1000 4093x512x384; do verify new $S15 $s; done
verify new $S15 1000x1001x528 --beta 0.5
verify new $S15 129x300x640 --batch 3
verify new $S15 1002x260x1024 --batch 2 --beta 0.5
verify new specs/sm90/17_splitk_blockwise_e4m3.yaml 128x2112x7168
verify new specs/sm90/17_splitk_blockwise_e4m3.yaml 129x1000x1160
verify new bench/variants/blockwise/n64.yaml 300x449x1160
verify new bench/variants/blockwise/n64.yaml 1001x449x1160
verify new bench/variants/blockwise/m64_s1.yaml 100x4000x1160
verify new bench/variants/blockwise/m64_s1.yaml 67x4000x1160
ab_bench "$C" "$N" "4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x7168x18432" $S15
bench_finish
