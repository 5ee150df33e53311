#!/usr/bin/env bash
# KernelPlan::earlyLoads in the compiler (the `early` hand edit of bench/h200-early-loads.sh,
# 2026-12-06_early_loads_h100: 1.0-1.2% at 512x7168x2048 on the H100): every GPU test with the
# new binaries, then `bench auto` with OLD's and NEW's binaries at one-tile and many-tile shapes,
# two passes (the second in reverse order), each against cuBLAS in its process.
# Prediction: 512x7168x2048 ~1% faster, 256x14336x4096 and 2048^3 (one tile a CTA) 0.3-1%,
# 4096^3 (four tiles a CTA) level.
#   usage (device): [SKIP_TESTS=1] bash bench/h200-early-loads-ab.sh OLD NEW   (carry folders: gemmgen and
#                   gemmgen_gpu_tests of each)
source "$(dirname "$0")/lib.sh"
bench_init early_loads_ab "$2"
OLD=$1; case $OLD in /*) ;; *) OLD=$PWD/$OLD ;; esac
"$OLD/gemmgen" --version >> "$S"
[ -n "${SKIP_TESTS:-}" ] || gpu_tests "${FILTER:-*}"
ab_bench "$OLD" "$C" "${SHAPES:-512x7168x2048 256x14336x4096 2048x2048x2048 4096x4096x4096}" auto
bench_finish
