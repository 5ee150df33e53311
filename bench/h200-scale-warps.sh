#!/usr/bin/env bash
# The blockwise producer's work spread over three warps (warp 0: the A and B tiles; warp 1: A's
# scales; warp 2: B's; full-barrier arrivals 3), against the binary before it (OLD: one elected
# thread of warp 0 does everything). bench/h200-producer-pad.sh found each producer instruction
# per k-block costs ~0.1-0.15% wherever it sits: the reading is issue slots taken from the
# consumer warps of warp 0's sub-partition, which gate their warpgroups' wgmmas. Spread, the
# busiest sub-partition carries ~20-30 producer instructions per k-block instead of ~60-65.
# Prediction (before the run): spec 15 at 4096x7168x2048 and 4096x2112x7168 2-5% faster, level
# at 128x7168x2048; tests pass, memcheck 0.
#   usage (device): bash bench/h200-scale-warps.sh OLD NEW
source "$(dirname "$0")/lib.sh"
bench_init scale_warps "$2"
O=$1; case $O in /*) ;; *) O=$PWD/$O ;; esac
timeout 200 "$C/gemmgen_gpu_tests" --gtest_filter='*Fp8*:*ChosenKernel*:*17_splitk_blockwise*:*15_blockwise*:*19_blockwise*' > "$L/gpu_tests.log" 2>&1
echo "gpu tests (fp8, chosen, blockwise specs) rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -10 >> "$S"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 150 "$CS" --tool memcheck --print-limit 20 "$C/gemmgen_gpu_tests" --gtest_filter='*Fp8Gemm*-*4096*:*7168*' > "$L/memcheck.log" 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1); $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK" >> "$S"
ab_bench "$O" "$C" "4096x7168x2048 4096x2112x7168 128x7168x2048" specs/sm90/15_blockwise_e4m3.yaml
ab_bench "$O" "$C" "4096x7168x2048" specs/sm90/19_blockwise_e4m3_n192.yaml
bench_finish
