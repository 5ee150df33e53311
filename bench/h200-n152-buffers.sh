#!/usr/bin/env bash
# 3000x5000 with two staging tiles per consumer (issue 13): spec 26's fixed part per launch is
# ~12.7 us against cuBLAS's ~8 (from K = 2048 / 4096 / 8192 in bench/h200-overlap-fit.sh), at the
# same rate per K. One suspect: each of a tile's five chunks waits for the previous chunk's TMA
# store to read the one staging tile out (bulk_wait_group_read<0>). Two tiles of 16 columns each
# (the same bytes; 10 chunks) let a chunk's stmatrix run while the previous store reads.
# Variants: spec 26 (32 columns, one tile), 256x152 c16 b2, 256x160 c32 b1, 256x160 c16 b2; f16,
# 20 rounds, two passes. Prediction: c16 b2 2-4% faster than c32 b1 at K = 2048, ~1% at 8192, if
# the wait is the cost (chunks of 16 with one tile ran 5.5% slower, bench/h200-slab-width.sh).
#   usage (device): bash bench/h200-n152-buffers.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init n152_buffers "$1"
for s in 3000x5000x2048 1000x1064x520; do
  verify c16b2 bench/wave-fit/m256n152_c16b2.yaml $s --beta 0.5 --c-in-place
  verify n160c16b2 bench/wave-fit/m256n160_c16b2.yaml $s --beta 0.5
done
bench_passes 2 3000x5000x2048,3000x5000x4096,3000x5000x8192 specs/sm90/26_wave_fit_n152_f16 \
  bench/wave-fit/m256n152_c16b2 bench/wave-fit/m256n160 bench/wave-fit/m256n160_c16b2
bench_finish
