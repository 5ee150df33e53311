#!/usr/bin/env bash
# Why 4 aligned stream-K shares lost to split-K 4 (docs/PERF.md, "Session of 2026-12-07": the small
# tile's stream-K kernel at 128x2048x8192 ran 0.81 of cuBLAS against split 4's 0.92). ncu's launch
# stats of both (the stream-K kernel; split 4's GEMM and its reduction), then the warp-stall
# samples per SASS instruction of the stream-K kernel at 4 shares (128x2048x8192) and at 2
# (128x4096x11008), with the share of the samples in its partial-sum store (the STG.E run up to
# the flag's STG.E.STRONG) and in its fix-up (the owner's flag wait, LDG.E.STRONG, to the
# epilogue's first STSM: the waits and the adds of the later shares' partials).
# Prediction: the hypothesis of that session is that the owner's three serial adds are the cost;
# then the fix-up region holds >= 20% of the samples at 4 shares and <= 10% at 2, and the stream-K
# kernel takes longer than split 4's GEMM plus its reduction.
#   usage (device): bash bench/h200-streamk4-ncu.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init streamk4_ncu "$1"
SK=bench/families/streamk_small.yaml
ncu_kernels sk4_128x2048x8192 $SK --m 128 --n 2048 --k 8192
ncu_kernels s4_128x2048x8192 bench/aligned/small_s4.yaml --m 128 --n 2048 --k 8192
REGIONS='partial:STG\.E.desc:STG\.E\.STRONG fixup:LDG\.E\.STRONG:STSM'
ncu_source sk4 gemm_sm90 "$REGIONS" $SK --m 128 --n 2048 --k 8192
ncu_source sk2 gemm_sm90 "$REGIONS" $SK --m 128 --n 4096 --k 11008
bench_finish
