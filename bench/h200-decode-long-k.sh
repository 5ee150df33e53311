#!/usr/bin/env bash
# The decode rule's 96-132 tiles with K > 8192: the 16-stage kernel (one CTA per SM) instead of
# two CTAs per SM (KernelChoice kDecodeDeepLongK, from bench/h200-decode-occ3.sh, 2026-12-05,
# where the spec files ran 0.5-1.9% apart). Here through `bench auto`, OLD (two CTAs per SM) and
# NEW (16 stages) in turn, two passes, the second in reverse order; the last two shapes are the
# rule's edges, where both pick the same kernel. Prediction: NEW 0.5-2% faster at the first
# four, level at the edges.
#   usage (device): bash bench/h200-decode-long-k.sh OLD NEW   (gemmgen; NEW also gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init decode_long_k "$2"
gpu_tests '*ChosenKernel*:*Decode*'
ab_bench "$PWD/$1" "$C" "16x8192x28672 16x7168x16384 1x8448x14336 8x8192x16384 1x8448x8192 16x8512x16384" auto
bench_finish
