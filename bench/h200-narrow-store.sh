#!/usr/bin/env bash
# The narrow kernels' one-pass store without a chain: spec 06 (bf16) with `simt_narrow: 4`, OLD
# (c13280f: a warp's outputs stored one lane at a time) against NEW (lane t stores output t), two
# passes, at 2-4 rows or columns of D (one row a warp, two rows a warp) and one (the control).
# Prediction: 3-4 outputs a warp 1-3% faster (three or four store passes -> one; the k-loop the
# same), one output level.
#   usage (device): bash bench/h200-narrow-store.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$1
bench_init narrow_store "$2"
mkdir -p "$L/specs"
simt_spec 06_fast_bf16 4 "$L/specs/plain4.yaml"
ab_bench "$OLD" "$C" "1x6144x4096 2x4096x4096 3x4096x4096 4x4096x4096 4x14336x4096 8192x3x4096 \
  8192x4x4096 11008x2x4096" "$L/specs/plain4.yaml"
bench_finish
