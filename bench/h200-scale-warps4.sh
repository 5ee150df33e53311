#!/usr/bin/env bash
# The blockwise producer over four warps (warp 0: the A tile; 1: A's scales; 2: B's; 3: the B
# tile; each arrives with its own bytes, full-barrier arrivals 4) against OLD (one thread does all)
# and THREE (bench/h200-scale-warps.sh's three warps, B with A on warp 0: spec 15 4.6% and 2.5-3.4%
# faster at M = 4096, 15:26 UTC). Prediction (before the run): four warps ~0.5-1% ahead of three
# (warp 0's ~20 instructions per k-block split in two), so ~4-6% ahead of OLD at 4096x7168x2048.
#   usage (device): bash bench/h200-scale-warps4.sh OLD NEW THREE
source "$(dirname "$0")/lib.sh"
bench_init scale_warps4 "$2"
O=$1; case $O in /*) ;; *) O=$PWD/$O ;; esac
P=$3; case $P in /*) ;; *) P=$PWD/$P ;; esac
timeout 200 "$C/gemmgen_gpu_tests" --gtest_filter='*Fp8*:*ChosenKernel*:*17_splitk_blockwise*:*15_blockwise*:*19_blockwise*' > "$L/gpu_tests.log" 2>&1
echo "gpu tests (fp8, chosen, blockwise specs) rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -10 >> "$S"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 150 "$CS" --tool memcheck --print-limit 20 "$C/gemmgen_gpu_tests" --gtest_filter='*Fp8Gemm*-*4096*:*7168*' > "$L/memcheck.log" 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1); $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK" >> "$S"
echo "== spec 15: old = OLD, new = four warps" >> "$S"
ab_bench "$O" "$C" "4096x7168x2048 4096x2112x7168 128x7168x2048" specs/sm90/15_blockwise_e4m3.yaml
echo "== spec 19: old = OLD, new = four warps" >> "$S"
ab_bench "$O" "$C" "4096x7168x2048" specs/sm90/19_blockwise_e4m3_n192.yaml
echo "== spec 15: old = THREE warps, new = four warps" >> "$S"
ab_bench "$P" "$C" "4096x7168x2048 4096x2112x7168" specs/sm90/15_blockwise_e4m3.yaml
bench_finish
