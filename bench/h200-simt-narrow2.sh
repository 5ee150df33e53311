#!/usr/bin/env bash
# The narrow kernels (c44ff59) on the H200 without the GPU tests (they passed on c44ff59:
# 1219, memcheck 0 errors, bench/results/2026-12-05_simt_narrow2_h100): `bench auto` OLD
# (65642ec) against NEW at the one- and two-row (column) shapes, two passes. Prediction as in
# bench/h200-simt-narrow.sh (from the SIMT experiment's s-u4r1 on the H200).
#   usage (device): bash bench/h200-simt-narrow2.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init simt_narrow2 "$2"
ab_bench "$OLD" "$C" "1x6144x4096 1x4096x14336 1x2112x7168 1x57344x8192 1x11008x4096 \
  2x57344x8192 2x4096x4096 1x8448x14336 4096x1x4096 14336x2x4096 4096x1x14336" auto
bench_finish
