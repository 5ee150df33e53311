#!/usr/bin/env bash
# A row shared by 2 or 4 warps on the narrow path (narrowGrid): where one row a warp fills less
# than half a wave (4224 rows at one column on 132 SMs, 3168 at two), 2 or 4 warps stream each
# row, their lanes interleaved along K, so that every SM has its warps' loads in flight.
# Prediction (H200): 1x4096x14336 (0.48 waves, 3.5 TB/s against 4.4 at 1x57344x8192) 10-15%
# faster; 1x2112x7168 (0.25 waves, 2.4 TB/s) 20-40%; 1x4096x4096 5-10%; the control 1x6144x4096
# (0.73 waves, one row a warp) level.
#   usage (device): [SHAPES="MxNxK ..."] bash bench/h200-narrow-split.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init narrow_split "$2"
[ -n "$TESTS" ] && gpu_tests "$TESTS"
SHAPES=${SHAPES:-"1x4096x14336 1x2112x7168 1x4096x4096 1x3072x4096 4096x1x14336 2x2048x8192 \
  1x6144x4096"}
ab_bench "$OLD" "$C" "$SHAPES" auto
bench_finish
