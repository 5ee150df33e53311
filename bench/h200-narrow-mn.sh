#!/usr/bin/env bash
# The narrow path with a packed MN-major short operand: a column-major decode
# (col,col,col: D^T = W^T·X^T, the tokens an N-major B) or B row-major. GPU
# tests (NarrowPath's new cases, the column-major-D suites), memcheck over
# NarrowPath, `run auto --verify` with packed tokens, then `bench auto
# --layout row,row` (the row-major problem of col,col,col at M×N×K is N×M×K
# with A and B row-major) OLD against NEW, two passes.
# Prediction: OLD runs these on the MMA tiles at 0.46-0.55 of cuBLAS (one
# column, PERF.md "Tall problems with B stored N-major"); NEW on the narrow
# kernels at the K-major narrow shapes' ratios (1.0-1.15 on the H100).
#   usage (device): [SHAPES="MxNxK ..."] bash bench/h200-narrow-mn.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init narrow_mn "$2"
gpu_tests '*NarrowPath*:*ColumnMajorD*'
memcheck '*NarrowPath*'
verify auto auto 1x4096x14336 --layout col,col,col --lda 1
verify auto auto 2x4096x4096 --layout col,col,col --lda 2 --beta 0.5
verify auto auto 4096x2x4096 --layout row,row --ldb 2
verify auto_bf16 auto 2x2112x7168 --layout col,col,col --lda 2 --dtype bf16
grep -h " path " "$L"/verify_* | sed "s/^ */verify: /" >> "$S"
SHAPES=${SHAPES:-"4096x1x14336 2112x1x7168 6144x1x4096 57344x1x8192 11008x1x4096 \
  4096x2x4096 14336x2x4096 57344x2x8192"}
ab_bench "$OLD" "$C" "$SHAPES" auto --layout row,row
bench_finish
