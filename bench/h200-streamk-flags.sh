#!/usr/bin/env bash
# Stream-K without the flags' memset on every launch: the CTA that takes a flag sets it back to 0,
# so only a PreparedLaunch's first launch zeroes them (docs/RUNTIME.md). ncu (2026-12-07_s27b_h100)
# put the small tile's stream-K kernel at 128x2048x8192 at 21.5 µs where `bench` timed 23.1 µs a
# launch: the memset on the stream. OLD (memset every launch) against NEW binaries, the small
# family's stream-K spec at the M = 128 shapes (2 and 4 aligned shares), two passes, cuBLAS in each
# call; `run --verify` and the stream-K GPU tests (20 launches of one PreparedLaunch, then 5 of
# launch(GemmArgs), three rounds) with NEW first.
# Prediction: 1-2 µs less a launch: 128x4096x11008 0.98 -> ~1.02, 256x2048x7168 0.96 -> ~1.03,
# 128x2048x8192 (4 shares) 0.83 -> ~0.89.
#   usage (device): bash bench/h200-streamk-flags.sh OLD NEW
source "$(dirname "$0")/lib.sh"
OLD=$1; case $OLD in /*) ;; *) OLD=$PWD/$OLD ;; esac
bench_init streamk_flags "$2"
NEW=$C
verify sk_new bench/families/streamk_small.yaml 128x4096x11008
verify sk_new bench/families/streamk_small.yaml 100x2048x8192 --beta 0.5
verify auto_new auto 256x2048x7168 --dtype bf16
gpu_tests 'StreamK.*:SplitK.*:Sm90/ChosenKernel.*/100x4096x11008*:Sm90/ChosenKernel.*/200x2048x7168*'
ab_bench "$OLD" "$NEW" "128x4096x11008 128x4096x14336 256x2048x7168 128x2048x8192 64x4096x14336" \
  bench/families/streamk_small.yaml
bench_finish
