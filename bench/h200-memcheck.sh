#!/usr/bin/env bash
# Every GPU test of a carried build, then compute-sanitizer's memcheck over the GPU tests at the
# shapes it can get through in one call (every sm_90a spec at residue shapes, D's bounds, K = 0,
# column-major D, batches, alpha/beta, staged operands, grouped problems, fp8 per-tensor and
# blockwise, the epilogue chains, split-K and stream-K workspaces; the 4096^3-and-up shapes and
# the chooser's cases left out for time). memcheck sees the kernels' plain loads and stores (the
# epilogue's direct stores, C, bias, residual, the staging copies, split-K's workspace, grouped
# problem tables); TMA and bulk copies go through the hardware's own bounds.
#   usage (device): bash bench/h200-memcheck.sh CARRY [SECONDS]   (CARRY: gemmgen_gpu_tests, cache/)
#   GPU_FILTER / MEMCHECK_FILTER (gtest filters) narrow either run.
source "$(dirname "$0")/lib.sh"
bench_init memcheck "$1"
timeout 240 "$C/gemmgen_gpu_tests" --gtest_filter="${GPU_FILTER:-*}" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -20 >> "$S"
echo "skipped: $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/gpu_tests.log")" >> "$S"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "compute-sanitizer: ${CS:-not found} $($CS --version 2>/dev/null | tail -1)" >> "$S"
FILTER='Sm90/*:DBoundsChecks*:EpilogueLaunchChecks*:LaunchChecksOnGpu*:SplitK*:StreamK*'
FILTER+='-*4096x4096x4096*:*8192*:*4000x4000x4000*:*7168*:*18432*:*14336*:*ChosenKernel*'
FILTER=${MEMCHECK_FILTER:-$FILTER}
timeout "${2:-300}" "$CS" --tool memcheck --print-limit 30 --error-exitcode 99 \
  "$C/gemmgen_gpu_tests" --gtest_filter="$FILTER" > "$L/memcheck.log" 2>&1
echo "memcheck rc=$? (99: errors found, 124: time ran out): $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1)" >> "$S"
echo "memcheck tests: $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK, $(grep -cE '^\[  FAILED  \] [A-Z]' "$L/memcheck.log") failed, $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/memcheck.log") skipped; last started: $(grep -E '^\[ RUN      \]' "$L/memcheck.log" | tail -1)" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/memcheck.log" | sed 's/, where.*//' | head -10 >> "$S"
grep -E '^========= (Invalid|Out of|Program hit|Address)' "$L/memcheck.log" | sort | uniq -c | head -10 >> "$S"
bench_finish
