#!/usr/bin/env bash
# 3000x5000 with 128x152 tiles on ping-pong consumers (issue 13): spec 26's ~4.7 us more fixed
# part than cuBLAS is its epilogue's per-chunk cost (bench/h200-n152-buffers.sh); with the two
# consumers taking turns (each its own 128x152 tile: 24 x 33 = 792 tiles, six exact rounds) one's
# epilogue runs while the other's wgmmas do. Variants: 6 stages in chunks of 24, 5 stages in
# chunks of 32; spec 26 beside them. f16, 20 rounds, two passes. Prediction: 2-4% faster than
# spec 26 at K = 2048 if the hidden epilogue outweighs half-height tiles (128 rows: B's bytes per
# MMA twice spec 26's); at K = 8192 level or behind. Verified first, C in place.
#   usage (device): bash bench/h200-n152-pingpong.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init n152_pingpong "$1"
for v in m128n152_pingpong m128n152_pingpong_d5; do
  for s in 3000x5000x2048 1000x1064x520; do
    verify $v bench/wave-fit/$v.yaml $s --beta 0.5 --c-in-place
  done
done
bench_passes 2 3000x5000x2048,3000x5000x4096,3000x5000x8192 specs/sm90/26_wave_fit_n152_f16 \
  bench/wave-fit/m128n152_pingpong bench/wave-fit/m128n152_pingpong_d5
bench_finish
