#!/usr/bin/env bash
# Few output tiles, long K (issue 13): the shapes of at most 768 rows where
# `auto` ran 0.93-0.98 of cuBLAS on the H200 (128x4096x11008 small split 2:
# 0.935). Stream-K (no reduction launch; every SM busy) and other splits of
# the medium and small tiles against `auto`, one pass each, f16; then
# `run --verify` of the stream-K kernels at two of the shapes; ncu's launch
# stats of both sides at 128x4096x11008.
#   usage (device): bash bench/h200-few-tiles.sh CARRY
cd "$(dirname "$0")/.." && . bench/lib.sh
bench_init few_tiles "$1"
SHAPES="128x4096x11008 128x8192x8192 48x15360x5120 384x12288x4096 256x7168x7168 512x4096x7168 768x3072x3072 1536x1536x1536 1024x1024x1024"
list=$(echo $SHAPES | tr ' ' ,)
for s in $SHAPES; do bench_auto auto "$s"; done
bench_passes 1 "$list" bench/few-tiles/streamk_medium bench/families/streamk_small \
  bench/few-tiles/medium_s2 bench/few-tiles/medium_s4 bench/few-tiles/small_s4
for s in 128x4096x11008 768x3072x3072; do
  verify streamk_medium bench/few-tiles/streamk_medium.yaml "$s"
  verify streamk_small bench/families/streamk_small.yaml "$s"
done
# what cuBLAS runs at the worst shape; the split kernel, its reduction and the stream-K kernel
ncu_kernels ncu_auto auto --m 128 --n 4096 --k 11008
ncu_kernels ncu_streamk_medium bench/few-tiles/streamk_medium.yaml --m 128 --n 4096 --k 11008
bench_finish
