#!/usr/bin/env bash
# After bench/h200-decode-deep2.sh (2026-12-05): at >= 96 tiles of weights spec 25 (two CTAs per
# SM, 8 stages each) led the one-CTA 16-stage kernel by 2-5% at K = 4096 and 16x10240x8192, but
# trailed it by 3% at 1x57344x8192 (896 tiles: 6.8 of 7 one-CTA waves) and 1.7% at 16x8192x28672
# (128 tiles: one full wave); deeper single rings (20, 22 stages) lost. Reading: where each SM
# streams one tile after another, a second CTA overlaps one tile's start and end with the other's
# stream; where one CTA per SM leaves no SM idle at the end, it streams as well on its own.
# (1) Three and four CTAs per SM (scheduler.ctas_per_sm up to 4): 3 x 7 and 3 x 6 stages, 4 x 5,
# against spec 25 and the 16-stage kernel, at the sweep's decode shapes and at tile counts near
# whole one-CTA waves (132, 264, 396, 528 tiles). Prediction: three CTAs 0-3% ahead of spec 25 at
# K = 4096 (more tile ends overlapped), level or behind at K >= 16384; four CTAs (5 stages each)
# behind three. The 16-stage kernel ahead of spec 25 where tiles fill whole one-CTA waves and K
# is at least 8192. (2) The staging copy at 1000x1000x1001 under ncu through `bench` (packed
# operands: `run` pads every line to 16 bytes, so deep2's ncu saw no copy).
#   usage (device): bash bench/h200-decode-occ3.sh NEW   (gemmgen and gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init decode_occ3 "$1"
gpu_tests '*ChosenKernel*:*Decode*:*ColumnMajorD*'
verify c3d7 bench/decode-col/m64n16_d7_c3.yaml 9x6000x1000 --beta 0.5
verify c3d6 bench/decode-col/m64n16_d6_c3.yaml 3x4100x14400 --beta 0.5
verify c4d5 bench/decode-col/m64n16_d5_c4.yaml 16x10000x4100 --beta 0.5
D="1x6144x4096,8x14336x4096,4x28672x4096,1x11008x4096,16x10240x8192,1x57344x8192,16x8192x28672"
D="$D,16x7168x16384,1x8448x4096,1x8448x14336,1x16896x8192,16x16896x4096,1x25344x8192"
D="$D,8x33792x4096,1x33792x8192,16x12288x4096"
bench_passes 2 "$D" specs/sm90/25_decode_two_ctas_f16 bench/decode-col/m64n16_d16 \
  bench/decode-col/m64n16_d7_c3 bench/decode-col/m64n16_d6_c3 bench/decode-col/m64n16_d5_c4
SECT="--section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis"
timeout 120 ncu --clock-control none -k 'regex:gg_copy2d|gemm_sm90' --launch-count 6 $SECT \
  "$G" bench auto --m 1000 --n 1000 --k 1001 --rounds 1 > "$L/ncu_copy_bench.txt" 2>&1
echo "== ncu copy (bench) rc=$?" >> "$S"
grep -E '^  gg_copy2d|^  gemm_sm90|Duration|DRAM Throughput|Memory Throughput|Grid Size|Block Size' \
  "$L/ncu_copy_bench.txt" | head -60 >> "$S"
bench_finish
