#!/usr/bin/env bash
# Blockwise consumers release a k-block's stage as soon as its wgmma group is done, before its
# promotion (the promotion reads registers only): NEW against OLD (the promotion first), spec 15
# and the chooser's picks, alternating, two passes; the blockwise GPU tests on NEW first.
# Why: bench/h200-scale-edges.sh showed the blockwise kernels sensitive to the latency from a
# stage's release to its next loads (~20 producer instructions: 3%); this releases each stage one
# promotion (~64 FFMAs per thread) earlier. Prediction (before the run): +1 to +3% at M = 4096,
# within +-1% at M = 128. NEW was 7aef529 (patch: bench/results/2026-12-04_early_release_h200/
# early-release.patch), OLD 42ba6d0. Measured (12:51 UTC): level everywhere (-0.8 to +1.3%, within
# the passes' spread); reverted. GPU tests on NEW: 74 passed.
#   usage (device): bash bench/h200-early-release.sh OLD NEW   (NEW: gemmgen, gemmgen_gpu_tests, cache/)
source "$(dirname "$0")/lib.sh"
bench_init early_release "$2"
O=$1; case $O in /*) ;; *) O=$PWD/$O ;; esac
timeout 200 "$C/gemmgen_gpu_tests" --gtest_filter='*Fp8Gemm*lockwise*:*ChosenKernel*:*Blockwise*' > "$L/gpu_tests.log" 2>&1
echo "gpu tests (blockwise, chosen) rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -10 >> "$S"
for s in 1000x1001x640 129x4000x384 300x449x1160; do verify new specs/sm90/15_blockwise_e4m3.yaml $s; done
ab_bench "$O" "$C" "4096x7168x2048 4096x4096x7168 4096x2112x7168 128x7168x2048" specs/sm90/15_blockwise_e4m3.yaml
ab_bench "$O" "$C" "4096x7168x18432 128x4096x7168" auto --dtype e4m3 --scaling blockwise
bench_finish
