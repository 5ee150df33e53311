#!/usr/bin/env bash
# Two things in one call. (1) The staging copy's long lines with four words in flight per thread
# (gg_copy2d, TailColumns.cpp): a block per line moved one word per trip, so a 1001-element line
# took four dependent round trips where the element-wise copy before it took one, and
# 1000x1000x1001 ran 0.029 -> 0.037 ms (bench/h200-copy-words.sh). Prediction: 1000x1000x1001
# back to <= 0.030 ms, 4096x1x4100 / 4096x4096x4100 / 2048x2048x2050 level or a few % faster
# (0.054 / 0.246 / 0.072), shapes without staging unchanged. (2) Decode with 64-95 tiles of
# weights and K > 8192 (1x4096x14336 the sweep's worst, 0.96): the chooser splits K in 2 (8
# stages), but its row-major twin tall_d16 ran the transposed problem unsplit with 16 stages at
# 0.0326 ms (4096x8x14336) against the split's 0.0345 (bench/h200-copy-words.sh). Prediction:
# the unsplit 16-stage column-major kernel at 256-byte L2 requests ~0.0326 ms at 1x4096x14336
# (~0.99 of cuBLAS against the split's ~0.96), the 128-byte one (decode_d16) within 1% of it.
# OLD: the binary of a81131c; NEW: this tree.
#   usage (device): bash bench/h200-decode-deep.sh OLD NEW   (gemmgen; NEW also gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init decode_deep "$2"
gpu_tests '*Bounds*:*Stag*:*ChosenKernel*:*Tail*'
memcheck '*Stag*:*ChosenKernel*/4096x1x4100*:*ChosenKernel*/7x4100x1000*:*Bounds*64x5x64*'
verify w2_ak auto 1000x1000x1001 --beta 0.5
verify w2_d specs/sm90/05_fast_f16.yaml 1000x1001x520 --beta 0.5 --c-in-place
verify w8_a auto 4096x1x4100 --beta 0.5
verify w4_k specs/sm90/06_fast_bf16.yaml 300x256x514 --dtype bf16
verify w1_fp8 specs/sm90/13_fast_e4m3.yaml 1000x1000x1001 --dtype e4m3
verify d16_p256 bench/decode-col/m64n16_d16_p256.yaml 3x4100x14400 --beta 0.5
ab_bench "$OLD" "$C" "1000x1000x1001 4096x1x4100 4096x4096x4100 2048x2048x2050 4096x4095x4096 \
  1000x1001x520 4096x4096x4096" auto
D="1x4096x14336,4x4096x14336,8x4096x14336,16x4096x14336,1x5120x13824,8x5120x13824,1x4096x11008,1x4096x28672"
bench_passes 2 "$D" bench/decode-col/m64n16_d16_p256 bench/decode-col/m64n16_d16 \
  bench/decode-col/m64n16_d8_s2
for s in ${D//,/ }; do bench_auto chooser "$s"; done
bench_finish
