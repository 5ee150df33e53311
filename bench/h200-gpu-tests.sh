#!/usr/bin/env bash
# Every GPU test of a carried build, one call: the totals, the failures, the skip count.
#   usage (device): [FILTER=gtest-filter] bash bench/h200-gpu-tests.sh CARRY
#                   (CARRY: gemmgen, gemmgen_gpu_tests, cache/; FILTER: default every test)
source "$(dirname "$0")/lib.sh"
bench_init gpu_tests "$1"
timeout 500 "$C/gemmgen_gpu_tests" --gtest_filter="${FILTER:-*}" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -20 >> "$S"
echo "skipped: $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/gpu_tests.log"); blockwise cases OK: $(grep -cE '^\[       OK \] .*(lockwise|blockwise)' "$L/gpu_tests.log")" >> "$S"
bench_finish
