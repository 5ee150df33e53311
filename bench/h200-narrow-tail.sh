#!/usr/bin/env bash
# The narrow kernels' last wave: past one wave of one row a warp (and two rows a warp not fitting
# one), a row shared by 2 warps where that fills the last wave better (4x14336x4096: 3.39 waves of
# one row a warp run as 4, 6.79 of half rows as 7), and 2-warp kernels of 3-4 columns (which also
# take the under-half-a-wave rule). Spec 06 (bf16) with `simt_narrow: 4`, OLD against NEW, two
# passes; then `bench auto` (OLD) at the 3-4 column shapes: what `auto` runs there (MMA tiles).
# Prediction: the shapes whose grid changes (4x14336x4096, 2x14336x4096, 1x28672x4096,
# 3x2048x4096) 5-12% faster; 4x12672x4096 (3 whole waves), 4x28672x4096, 1x14336x4096 and
# 1x57344x8192 (fill unchanged) level.
#   usage (device): bash bench/h200-narrow-tail.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$1
bench_init narrow_tail "$2"
mkdir -p "$L/specs"
simt_spec 06_fast_bf16 4 "$L/specs/plain4.yaml"
ab_bench "$OLD" "$C" "4x14336x4096 4x12672x4096 4x28672x4096 3x2048x4096 2x14336x4096 \
  1x28672x4096 1x14336x4096 1x57344x8192" "$L/specs/plain4.yaml"
G=$PWD/$OLD/gemmgen; export GEMMGEN_CACHE_DIR=$PWD/$OLD/cache
for s in 4x14336x4096 4x28672x4096 3x2048x4096; do bench_auto auto "$s" --dtype bf16; done
bench_finish
