#!/usr/bin/env bash
# This session's final binary (NEW): every GPU test, memcheck over the fp8 cases and the new
# ones (ragged chunks, spec 26, the one-warp blockwise producer of kSpec15One), `run --verify` of
# the blockwise chooser's picks at the DeepSeek-V3 shapes and five others, then the chooser's
# blockwise kernels against cuBLASLt's blockwise mode, OLD (one producer thread; 37bc2e7) against
# NEW (four producer warps), two passes. Prediction (before the run): tests pass, memcheck 0; at
# M = 4096 NEW 2-5% ahead of OLD (spec 15: 5% and 1.3-2.9%), at M = 128 level to 4% ahead.
#   usage (device): bash bench/h200-final-check.sh OLD NEW
source "$(dirname "$0")/lib.sh"
bench_init final_check "$2"
O=$1; case $O in /*) ;; *) O=$PWD/$O ;; esac
timeout 300 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -10 >> "$S"
echo "skipped: $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/gpu_tests.log")" >> "$S"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 200 "$CS" --tool memcheck --print-limit 20 --error-exitcode 99 "$C/gemmgen_gpu_tests" \
  --gtest_filter='*Fp8Gemm*:*RaggedChunks*:*26_wave_fit*:*n152*-*4096*:*7168*:*8192*:*4000x4000x4000*:*large*:*3000*' > "$L/memcheck.log" 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1); $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK, $(grep -cE '^\[  FAILED  \] [A-Z]' "$L/memcheck.log") failed" >> "$S"
for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168 1001x1000x640 129x4000x384 64x2112x7168 300x7168x2048 4093x4096x1100; do
  verify auto auto $s --dtype e4m3 --scaling blockwise
done
ab_bench "$O" "$C" "4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x4096x7168 128x7168x18432 128x2112x7168" auto --dtype e4m3 --scaling blockwise
bench_finish
