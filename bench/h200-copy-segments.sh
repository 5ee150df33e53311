#!/usr/bin/env bash
# The staging copy's lines in segments (gg_copy2d): with a block per line, 1000x1000x1001 (A's and
# B's 1000 lines of 2002 bytes, 2-byte words) left three of four blocks idle and ran 0.029 -> 0.037
# ms (bench/h200-copy-words.sh). OLD: the binary of 46eba76 (a block per line); NEW: this tree
# (each line in as many segments as keep every block busy). The GPU tests that stage (bounds,
# staging, chosen kernels, batched, grouped, fp8), memcheck over the staging and bounds tests,
# then `bench auto` OLD and NEW, two passes alternating. Prediction: 1000x1000x1001 back to
# ~0.029 ms or below; 2048x2048x2050 (2048 lines, 4096 blocks) a little faster; 4096x1x4100 and
# 4096x4096x4100 (>= 4096 lines) unchanged.
#   usage (device): bash bench/h200-copy-segments.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init copy_segments "$2"
gpu_tests '*Bounds*:*Stag*:*ChosenKernel*:*Batch*:*Grouped*:*Fp8*:*Straddl*'
memcheck '*Bounds*:*Stag*'
verify w2_k specs/sm90/05_fast_f16.yaml 1000x1000x1001 --beta 0.5
ab_bench "$OLD" "$C" "1000x1000x1001 2048x2048x2050 4096x1x4100 4096x4096x4100 512x512x514" auto
bench_finish
