#!/usr/bin/env bash
# Split-K's reduction with 4 columns a thread on a 2-D grid (no 64-bit
# division per element) against the one-element-a-thread form: the split-K
# GPU tests and `run --verify` on NEW's binaries, then `bench` of both
# (OLD, NEW carry folders) at split shapes, two passes, and ncu of NEW's
# reduction at 128x4096x11008.
#   usage (device): bash bench/h200-split-reduce.sh OLD NEW
cd "$(dirname "$0")/.." && . bench/lib.sh
OLD=$1; case $OLD in /*) ;; *) OLD=$PWD/$OLD ;; esac
bench_init split_reduce "$2"
timeout 200 "$C/gemmgen_gpu_tests" --gtest_filter='*plit*:*24_decode*' > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -20 >> "$S"
verify auto auto 128x4096x11008
verify auto auto 1x2112x7168
verify auto_beta auto 128x4099x11008 --beta 0.5
verify spec12_beta specs/sm90/12_splitk_f16.yaml 129x257x1024 --beta 0.5
verify spec24_beta specs/sm90/24_decode_col_d_split_f16.yaml 3x2112x7168 --beta 0.5
ab_bench "$OLD" "$C" "128x4096x11008 1x2112x7168 3x2048x4096 128x4099x11008" auto
ab_bench "$OLD" "$C" "4096x4096x4096 129x257x1024" specs/sm90/12_splitk_f16.yaml
ncu_kernels ncu_new auto --m 128 --n 4096 --k 11008
bench_finish
