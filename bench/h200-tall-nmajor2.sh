#!/usr/bin/env bash
# The tall twins with B N-major in one box of their 16 or 32 columns (32- and 64-byte swizzle):
# a column-major D of column-major A and B (`col,col,col`: the row-major problem's B is the
# user's A, stored N-major) and a row-major B (`row,row`). Before (OLD), tall64 took 9-64
# columns (0.84-1.03 of cuBLAS at 16-64) and the model's tiles 3-8 (0.61-0.85:
# bench/h200-tall-nmajor.sh, 2026-12-05). Prediction: NEW within 5% of the K-major twins at the
# same shapes (`row,col`, 1.0-1.07), so 14336x8x4096 ~1.6x faster than OLD, 4096x16x4096 and
# 4096x32x4096 ~1.2x. Timed as `bench auto --layout row,row` at NxMxK (the problem the runtime
# runs for col,col,col at MxNxK), verified as itself (`run auto --layout col,col,col --verify`);
# OLD and NEW in turn, two passes, the second in reverse order.
#   usage (device): bash bench/h200-tall-nmajor2.sh OLD NEW   (gemmgen; NEW also gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init tall_nmajor2 "$2"
gpu_tests '*ChosenKernelColumnMajorD*:*ColumnMajorD*:*OperandLayout*:*Layouts*'
memcheck '*ChosenKernelColumnMajorD*'
# row,row at NxMxK: col,col,col at MxNxK; row,col: the same shape with B K-major.
TALL="4096x16x4096 4096x32x4096 14336x8x4096 28672x4x4096 6144x16x4096 57344x32x8192"
TALL="$TALL 4096x8x4096 14336x3x4096"
CASES="row,col:4096x16x4096 row,col:4096x32x4096 row,col:14336x8x4096 row,col:28672x4x4096"
for s in $TALL; do
  CASES="$CASES row,row:$s"
  verify_col_d "$s"
done
old_new_passes layout_auto $CASES
bench_finish
