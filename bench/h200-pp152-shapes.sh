#!/usr/bin/env bash
# Where 128x152 on ping-pong consumers (bench/wave-fit/m128n152_pingpong_d5.yaml) beats the
# chooser's pick (issue 13): it ran 1.02-1.04 of cuBLAS at 3000x5000x2048 where spec 26 (the
# pick) ran 0.95 (bench/h200-n152-pingpong.sh). On the wave-fit shapes and sweep shapes near
# them, `bench auto` (one process per shape) and the ping-pong variant on all, 20 rounds.
# Prediction: ahead where 128x152 tiles fill whole rounds and K <= 4096; behind where the tile
# count falls just past a round or K is long.
#   usage (device): bash bench/h200-pp152-shapes.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init pp152_shapes "$1"
SH="768x3072x3072 1536x1536x1536 3072x768x3072 384x12288x4096 3000x5000x2048 3000x5000x4096 4096x2112x7168 2048x2048x2048 7168x2048x4096 2304x4608x4608 256x14336x4096 512x7168x2048 1024x4096x4096 4096x6144x4096 2048x5000x2048 6000x5000x2048 4096x4096x4096"
echo "== auto" >> "$S"
for s in $SH; do bench_auto f16 $s; done
timeout 240 "$G" bench bench/wave-fit/m128n152_pingpong_d5.yaml --shapes ${SH// /,} --rounds 20 > "$L/pp152.txt" 2>&1
echo "== m128n152_pingpong_d5 rc=$?" >> "$S"; table "$L/pp152.txt" >> "$S"
bench_finish
