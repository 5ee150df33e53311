#!/usr/bin/env bash
# HEAD's binaries after the final-check call (the chooser refitted, the GPU test helper shared by
# the Epilogue and RaggedChunks cases, the 16-byte-slab warning): every GPU test, memcheck over
# the new and fp8 cases. Prediction: all pass, 0 errors.
#   usage (device): bash bench/h200-last-check.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init last_check "$1"
timeout 300 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -10 >> "$S"
echo "skipped: $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/gpu_tests.log")" >> "$S"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 200 "$CS" --tool memcheck --print-limit 20 --error-exitcode 99 "$C/gemmgen_gpu_tests" \
  --gtest_filter='*Fp8Gemm*:*RaggedChunks*:*26_wave_fit*:*n152*:*Epilogue*-*4096*:*7168*:*8192*:*4000x4000x4000*:*large*:*3000*' > "$L/memcheck.log" 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1); $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK, $(grep -cE '^\[  FAILED  \] [A-Z]' "$L/memcheck.log") failed" >> "$S"
bench_finish
