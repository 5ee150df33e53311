#!/usr/bin/env bash
# The narrow kernels of three and four columns with fewer words in flight and more warps: 32
# bytes of the long row per lane before the FMAs (64 before) at six blocks an SM one row a warp,
# five with 2 warps a row (four before: their registers), OLD against NEW, spec 06 (bf16) with
# `simt_narrow: 4`, two passes. 4x28672x4096 streamed 2.83 TB/s on the H100 where one column
# streams 3.04 (bench/h200-narrow-tail.sh).
# Prediction (H100): the 3-4 column shapes 3-8% faster (more warps' loads in flight an SM), the
# one- and two-column control level.
# Measured (H100, 2026-12-06_narrow_cols_h100): 3-9% faster at three shapes, 3-11% slower at
# four (4x28672x4096, 8192x4x4096): not kept; NEW was an experiment build (WORDS 2 for COLS >= 3
# without a chain in narrow_rows, the bounds above), never committed.
#   usage (device): bash bench/h200-narrow-cols.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$1
bench_init narrow_cols "$2"
mkdir -p "$L/specs"
simt_spec 06_fast_bf16 4 "$L/specs/plain4.yaml"
ab_bench "$OLD" "$C" "4x28672x4096 4x14336x4096 4x11008x4096 4x4096x4096 3x4096x4096 3x2048x4096 \
  8192x4x4096 8192x3x4096 1x6144x4096" "$L/specs/plain4.yaml"
bench_finish
