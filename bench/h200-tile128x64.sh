#!/usr/bin/env bash
# At the M = 128 split-K shapes our 64x128 tile on one consumer (the small family) trails cuBLAS,
# whose split pair runs 128x64 tiles on two consumer warpgroups (ncu, docs/PERF.md "Session of
# 2026-12-07"): its GEMM part is faster per tile. The same 128x64 tile in gemmgen (two consumers
# of 64x64, 8 stages; bench/tile128x64/), stream-K (aligned shares) and split 2, against the
# small family's `_sk2`/split 2 and s4, cuBLAS in each call, two passes; `run --verify` first.
# Prediction: if the tile is what is left, 128x64 stream-K beats small_sk2 by 2-5% at
# 128x4096x11008 / 128x4096x14336 / 256x2048x7168 (0.98 -> >= 1.00); at 200x2048x7168 both pad
# 56 rows, so the change there shows the tile alone.
#   usage (device): bash bench/h200-tile128x64.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init tile128x64 "$1"
T=bench/tile128x64
verify c2_sk $T/m128n64_c2_sk.yaml 128x4096x11008
verify c2_sk $T/m128n64_c2_sk.yaml 200x2048x7168 --beta 0.5
verify c2_s2 $T/m128n64_c2_s2.yaml 200x2048x7168
SHAPES=128x4096x11008,128x4096x14336,256x2048x7168,200x2048x7168,128x2048x8192
bench_passes 2 "$SHAPES" $T/m128n64_c2_sk $T/m128n64_c2_s2 bench/families/streamk_small \
  bench/aligned/small_s2
bench_finish
