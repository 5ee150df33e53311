#!/usr/bin/env bash
# scheduler.simt_narrow (NarrowPath.cpp): `auto` at one or two rows (or columns) of D with K-major
# operands runs a narrow SIMT kernel over every column — a warp streaming each row of the long
# operand, four 16-byte loads in flight per lane, its words converted once, the column count and
# type compile-time (gg_narrow_<type>_<columns>) — instead of the decode/tall MMA tiles. First run
# (2026-12-05 16:40 UTC, 9d7e8db, the tail kernel's loop over every column): 0.70-0.95 of cuBLAS,
# slower than OLD everywhere; bench/h200-gemv-simt.sh's s-u4r1 in the same session on the H200:
# 1.03-1.16 at four of five M = 1 shapes. OLD: 65642ec; NEW: this tree. Every GPU test, memcheck
# over the narrow and bounds tests, `bench auto` OLD and NEW, two passes. Prediction (from s-u4r1):
# 1x6144x4096 0.0171 -> ~0.0152 ms, 1x57344x8192 0.227 -> ~0.213, 1x2112x7168 0.0138 -> ~0.0128,
# 1x4096x14336 0.0321 -> ~0.033 (behind), 2x57344x8192 0.227 -> ~0.217; 4x28672x4096 level.
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
