#!/usr/bin/env bash
# Wider tiles on ping-pong consumers (issue 13): 128x152 on ping-pong consumers beat the
# cooperative 256x152 by 6% at 3000x5000x2048 (bench/h200-n152-pingpong.sh), where 128x128
# ping-pong (spec 20) was 1-2% behind the default at K = 2048. Is it the width (more work per
# wgmma and per epilogue) that pays? 128x160, 128x176, 128x192 on ping-pong consumers (5 stages,
# chunks of 32) against the chooser's pick (`bench auto`, one process per shape) on the headline
# squares and shapes the wave-fit families take. Verified first (C in place). Prediction: level
# to +2% on 4096^3 / 8192^3 for 128x192 (704 / 2752 tiles: 5.3 / 20.8 rounds), ahead where the
# width fills rounds (4096x2112x7168: 384 tiles of 128x176), behind where tiles per consumer are few.
#   usage (device): bash bench/h200-pingpong-wide.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init pingpong_wide "$1"
for n in 160 176 192; do verify pp$n bench/wave-fit/m128n${n}_pingpong.yaml 1000x1064x520 --beta 0.5 --c-in-place; done
SH="4096x4096x4096 8192x8192x8192 4096x2112x7168 2304x4608x4608 7168x2048x4096 4096x6144x4096 3072x768x3072 4096x8192x8192"
echo "== auto" >> "$S"
for s in $SH; do bench_auto f16 $s; done
bench_passes 1 ${SH// /,} bench/wave-fit/m128n160_pingpong bench/wave-fit/m128n176_pingpong bench/wave-fit/m128n192_pingpong
bench_finish
