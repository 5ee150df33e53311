#!/usr/bin/env bash
# After the review's refactor of the blockwise producer (scale_chunk_base): the blockwise and
# chosen GPU tests, memcheck over the fp8 cases, spec 15 against the binary before it (OLD,
# 42ba6d0: the same kernels as 8c91aff) alternating, two passes. Prediction: tests pass, 0
# memcheck errors, times level (ptxas: the same instruction count for spec 15).
#   usage (device): bash bench/h200-review-check.sh OLD NEW
source "$(dirname "$0")/lib.sh"
bench_init review_check "$2"
O=$1; case $O in /*) ;; *) O=$PWD/$O ;; esac
timeout 200 "$C/gemmgen_gpu_tests" --gtest_filter='*Fp8Gemm*:*ChosenKernel*' > "$L/gpu_tests.log" 2>&1
echo "gpu tests (fp8, chosen) rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -10 >> "$S"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 150 "$CS" --tool memcheck --print-limit 20 "$C/gemmgen_gpu_tests" --gtest_filter='*Fp8Gemm*-*4096*:*7168*' > "$L/memcheck.log" 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1); $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK" >> "$S"
ab_bench "$O" "$C" "4096x7168x2048 4096x2112x7168 128x7168x2048" specs/sm90/15_blockwise_e4m3.yaml
bench_finish
