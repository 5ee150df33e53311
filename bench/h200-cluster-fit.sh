#!/usr/bin/env bash
# The wave-filling and mid-size families with B multicast over a 2x1 cluster (issue 13). cuBLAS
# runs every one of its 144/152/176-wide tiles in 1x2 clusters (ours: 2x1, B shared:
# bench/h200-cublas-kernels.sh); gemmgen measured the cluster only on 128x256 (level to -2% at
# 4096^3, where L2 already holds the re-read B). The shapes here are the sweep's at 0.93-0.98 with
# these families chosen, each next to its family without the cluster, two passes in alternating
# order. Prediction: +1-3% where a wave holds all tiles and B's bytes per CTA are the larger share
# (384x12288x4096, 768x3072x3072, 4096x2112x7168), level to -2% where rounds are many (1024^3
# small, 7168x2048x4096 medium).
#   usage (device): bash bench/h200-cluster-fit.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init cluster_fit "$1"
for f in bench/cluster-fit/*.yaml; do
  for s in 1000x1064x520 384x4000x4104; do verify "$(basename "$f" .yaml)" "$f" $s --beta 0.5 --c-in-place; done
done
pair() {  # pair BASE SHAPES: BASE (no cluster) and its bench/cluster-fit variant, 2 passes, ABBA
  local base=$1 c2=bench/cluster-fit/$2 shapes=$3
  bench_passes 1 "$shapes" "$base" "$c2"
  bench_passes 1 "$shapes" "$c2" "$base"
}
pair bench/wave-fit/m128n144 m128n144_c2 768x3072x3072,1536x1536x1536,384x12288x4096,128x36864x7168
pair bench/wave-fit/m128n160 m128n160_c2 3072x768x3072,2048x5120x5120
pair bench/wave-fit/m128n176 m128n176_c2 4096x2112x7168
pair bench/wave-fit/m128n112 m128n112_c2 256x7168x7168,1024x7168x18432
pair bench/wave-fit/m128n224_c32 m128n224_c32_c2 512x7168x2048,256x14336x4096
pair bench/families/wide_d5_c64 wide_d5_c64_c2 6144x3072x12288
pair bench/families/medium_d6 medium_d6_c2 512x4096x7168,7168x2048x4096
pair specs/tuned/nvidia_h200/f16_128x8192x8192 small_c2 1024x1024x1024,48x15360x5120,128x8192x8192
bench_finish
