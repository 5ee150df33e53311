#!/usr/bin/env bash
# The ragged-chunk GPU cases on the final test binary (n152c40 replaced a case whose spec did not
# fit shared memory), the spec 26 suites and the n152 chains, then memcheck over them (residue
# shapes). Prediction: all pass, 0 memcheck errors.
#   usage (device): bash bench/h200-ragged-check.sh CARRY   (CARRY: gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init ragged_check "$1"
F='*26_wave_fit*:*RaggedChunks*:*n152*'
timeout 200 "$C/gemmgen_gpu_tests" --gtest_filter="$F" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -20 >> "$S"
grep -E '^\[ result \].*(n152|n256c|RaggedChunks)' "$L/gpu_tests.log" | cut -c1-200 | head -10 >> "$S"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 150 "$CS" --tool memcheck --print-limit 20 --error-exitcode 99 "$C/gemmgen_gpu_tests" \
  --gtest_filter="$F-*4096x4096x4096*:*8192*:*4000x4000x4000*:*large*:*n152c40*" > "$L/memcheck.log" 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1); $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK, $(grep -cE '^\[  FAILED  \] [A-Z]' "$L/memcheck.log") failed" >> "$S"
bench_finish
