#!/usr/bin/env bash
# The decode tile's persistent grid: balanced (the default: 448 tiles of 4x28672x4096 on 224 CTAs,
# two tiles each, where two CTAs an SM would give 264) against the full grid
# (GEMMGEN_BALANCED_GRID=0), `bench auto` bf16 at decode shapes the MMA tiles run, each against
# cuBLAS in its process, two passes (the second in reverse order). Under ncu the balanced tile
# streamed 4x28672x4096 at 4.10 TB/s (85% of the H200's DRAM) where cuBLAS's fast mode reaches
# 4.19; more CTAs keep more bytes in flight for the first tile, fewer for the last.
# Prediction: level (within 1%) at every shape: the DRAM, not the CTAs, is the bound.
# Measured (H100, 2026-12-06_decode_grid_h100): level but 4x28672x4096, 1.0-1.2% faster on the
# full grid; not changed (not yet run on the H200).
#   usage (device): bash bench/h200-decode-grid.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init decode_grid "$1"
for pass in 1 2; do
  order="1 0"; [ $pass = 2 ] && order="0 1"
  for s in 4x28672x4096 8x14336x4096 4x14336x4096 16x10240x8192 16x4096x4096; do
    for b in $order; do
      GEMMGEN_BALANCED_GRID=$b bench_auto "balanced$b-pass$pass" "$s" --dtype bf16
    done
  done
done
bench_finish
