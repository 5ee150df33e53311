#!/usr/bin/env bash
# The narrow kernels on the H200: the narrow path's GPU tests (every GPU test
# passed on c44ff59: 1219, memcheck 0 errors, bench/results/2026-12-05_simt_narrow2_h100), then
# `bench auto` OLD (65642ec) against NEW at the one- and two-row (column) shapes, two passes.
# NEW bounds the kernels' registers (32 at one column, 40 at two: 8 and 6 blocks per SM, as the
# experiment's s-u4r1 had; c44ff59 had 48 and 58, and ran 1x6144x4096 14% slower than it on the
# H100). Prediction (s-u4r1 on the H200): 1x6144x4096 0.0171 -> ~0.0152 ms, 1x57344x8192 0.227
# -> ~0.213, 1x2112x7168 0.0138 -> ~0.0128, 1x4096x14336 0.0321 -> ~0.033 (behind).
#   usage (device): [SHAPES="MxNxK ..."] bash bench/h200-simt-narrow2.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init simt_narrow2 "$2"
gpu_tests '*NarrowPath*'
# SHAPES: fewer shapes where device time is short.
SHAPES=${SHAPES:-"1x6144x4096 1x4096x14336 1x2112x7168 1x57344x8192 1x11008x4096 2x57344x8192 \
  2x4096x4096 1x8448x14336 4096x1x4096 14336x2x4096 4096x1x14336"}
ab_bench "$OLD" "$C" "$SHAPES" auto
bench_finish
