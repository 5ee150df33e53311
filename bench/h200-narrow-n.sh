#!/usr/bin/env bash
# Many rows, at most 16 columns (issue 13; noticed 2026-12-04): 57344x16x8192 and the like get a
# 128-row model family (fit112, large) that pads 16 columns to 112-256. So does a column-major D
# at decode shapes, which the runtime runs as this transposed problem. The decode tile with a
# row-major D (bench/narrow-n: spec 25's kernel, two CTAs per SM, and the 16-stage one-CTA form)
# streams A 64 rows at a time with no padding waste. Correctness first (run --verify at odd
# shapes), then two passes of each spec and `auto` against cuBLAS. Prediction: 0.95-1.05 of cuBLAS
# for the decode tiles where they are bandwidth-bound (>= 96 tiles of 64 rows), `auto` 0.8-0.95.
#   usage (device): bash bench/h200-narrow-n.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init narrow_n "$1"
for spec in bench/narrow-n/m64n16_c2_rowd bench/narrow-n/m64n16_d16_rowd; do
  verify "$(basename $spec)_odd" $spec.yaml 1000x13x520
  verify "$(basename $spec)_beta" $spec.yaml 4100x16x1000 --beta 0.5
done
SHAPES=57344x16x8192,57344x8x8192,28672x16x4096,28672x4x4096,14336x16x8192,11008x16x4096,6144x16x4096,4096x16x4096,4096x8x14336
bench_passes 2 "$SHAPES" bench/narrow-n/m64n16_c2_rowd bench/narrow-n/m64n16_d16_rowd
for s in ${SHAPES//,/ }; do bench_auto auto "$s"; done
bench_finish
