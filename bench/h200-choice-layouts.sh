#!/usr/bin/env bash
# `run auto --verify` with every pair of operand layouts (and a column-major D), and with an f32 D,
# at shapes that reach the decode, wave-fit, 256x152 and multicast choices: the layout-aware
# chooser (3170a25) on the H200. Before it, --layout row,row at 768x3072x3072, --layout col,row at
# 16x6144x4096 and --out-dtype f32 at 768x3072x3072 got specs the checks refused. Prediction:
# every run PASS; the family each took is listed.
#   usage (device): bash bench/h200-choice-layouts.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init choice_layouts "$1"
for s in 16x6144x4096 32x4096x4096 768x3072x3072 3000x5000x2048 4096x4096x4104; do
  for l in row,col row,row col,row col,col row,col,col; do
    verify "l${l//,/}" auto $s --layout $l --dtype bf16
  done
  verify f32 auto $s --out-dtype f32
done
for f in "$L"/verify_*; do echo "$(basename $f .txt): $(grep -o "gemm_sm90_auto_[a-z0-9_]*" $f | head -1)" >> "$S"; done
bench_finish
