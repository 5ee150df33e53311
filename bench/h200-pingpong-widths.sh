#!/usr/bin/env bash
# Ping-pong consumers on narrower tiles, at the sweep's shapes where `auto` trails cuBLAS and
# a tile count near two per SM. Under ncu on the H100 (2026-12-06_cublas_bf16_h100) cuBLAS ran
# 512x7168x2048 with 112x128 tiles (in gemmgen's frame 128 rows x 112 columns: 256 tiles, two per
# CTA), a 2x1 cluster, 7 stages, 23.4 us against the 128x224 tile's 24.6 (one tile per CTA, its
# prologue and epilogue exposed), and 256x14336x4096 with the same kernel, level with ours.
# Ping-pong at 128x112 gives each consumer one of a CTA's two tiles, so one's epilogue runs while
# the other's wgmmas do. Prediction: at 512x7168x2048 the 128x112 ping-pong kernels 3-5% faster
# than `auto` (fit224); at 256x14336x4096 level to 3%; elsewhere mixed.
#   usage (device): bash bench/h200-pingpong-widths.sh CARRY [PASSES]   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init pingpong_widths "$1"
SHAPES="512x7168x2048 256x14336x4096 512x4096x7168 256x7168x7168 384x12288x4096 768x3072x3072 1536x1536x1536 3072x768x3072 4096x2112x7168 1024x4096x4096"
for pass in $(seq 1 "${2:-2}"); do
  for s in $SHAPES; do bench_auto "auto-pass$pass" "$s"; done
done
bench_passes "${2:-2}" "${SHAPES// /,}" bench/wave-fit/m128n112_pingpong_d6_c16 \
  bench/wave-fit/m128n112_pingpong_d6_c56 bench/wave-fit/m128n112_pingpong_d7_c16 \
  bench/wave-fit/m128n144_pingpong_d6_c16 specs/sm90/20_pingpong_f16
bench_finish
