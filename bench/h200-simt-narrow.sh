#!/usr/bin/env bash
# scheduler.simt_narrow (NarrowPath.cpp): `auto` at one or two rows (or columns) of D with K-major
# operands now runs the tail kernel over every column — a warp streaming each row of the long
# operand, four 16-byte loads in flight per lane — instead of the decode/tall MMA tiles. On the
# H100 (bench/h200-gemv-simt.sh, 2026-12-05) this form ran 1.05-1.13x cuBLAS at M = 1-2 where
# gemmgen's tiles ran 0.92-1.04. OLD: the binary before (65642ec); NEW: this tree.
# Every GPU test (the tail kernel serves every N % 8 != 0 too), memcheck over the narrow and
# bounds tests, then `bench auto` OLD and NEW, two passes. Prediction: at M = 1-2 and N = 1-2
# NEW 2-13% faster than OLD and >= 1.00 of cuBLAS; 4x28672x4096 (not narrow) level.
#   usage (device): bash bench/h200-simt-narrow.sh OLD NEW   (gemmgen; NEW also gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init simt_narrow "$2"
gpu_tests
memcheck '*NarrowPath*:*Bounds*:*ChosenKernel*/1x*'
ab_bench "$OLD" "$C" "1x6144x4096 1x4096x14336 1x2112x7168 1x57344x8192 1x11008x4096 \
  2x57344x8192 2x4096x4096 1x8448x14336 4096x1x4096 14336x2x4096 4096x1x14336 4x28672x4096" auto
ab_bench "$OLD" "$C" "1x57344x8192 1x4096x14336" auto --dtype bf16
bench_finish
