#!/usr/bin/env bash
# The tall rule with B N-major (KernelChoice pickTall): a column-major D of column-major A and B
# (`col,col,col`: the row-major problem's B is the user's A, stored N-major) and a row-major B
# with N <= 64 (`row,row,row`) now take the 64x64 twin, tall64, whose 64 columns are one whole
# TMA box; before, the model's 64x128/128x128 tiles (bench/h200-col-d-choice.sh, 2026-12-05:
# col,col,col 0.0220-0.0263 ms at 16-64 tokens against 0.0126-0.0132 for row,col,col's tall
# twins). `bench` times a row-major D only, so col,col,col at MxNxK is timed as the problem the
# runtime runs for it, NxMxK with A and B row-major (`--layout row,row`: the same choice and
# kernel), and verified as itself (`run auto --layout col,col,col --verify`). Prediction: NEW
# 1.5-2x faster than OLD at 16-64 columns x 4096 rows x 4096 and within 10% of the tall twins at
# the same shapes with B K-major (`row,col`); 1.2-1.5x at 1-8 columns of 14336-28672
# rows (tall64 pads them to 64 but streams the rows as the decode kernels do); 2112x1x7168
# (tall64 split 4) level or ahead. Each: `bench auto` (gemmgen beside cuBLAS, 20 rounds), OLD and
# NEW in turn, two passes, the second in reverse order.
#   usage (device): bash bench/h200-tall-nmajor.sh OLD NEW   (gemmgen; NEW also gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init tall_nmajor "$2"
gpu_tests '*ChosenKernelColumnMajorD*'
# row,row at NxMxK: col,col,col at MxNxK; row,col: the same shape with B K-major (tall twins).
TALL="4096x16x4096 4096x32x4096 4096x64x4096 14336x8x4096 28672x4x4096 4096x1x14336"
TALL="$TALL 2112x1x7168 6144x16x4096 57344x32x8192"
CASES="row,col:4096x16x4096 row,col:4096x32x4096 row,col:4096x64x4096"
for s in $TALL; do
  CASES="$CASES row,row:$s"
  verify_col_d "$s"
done
old_new_passes layout_auto $CASES
bench_finish
