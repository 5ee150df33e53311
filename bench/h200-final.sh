#!/usr/bin/env bash
# The closing run on the H200, one command:
#   1. the GPU tests (every sm_90a spec x the shape set, checks table, watchdog),
#   2. the README's main command (emit, JIT-compile, run and verify the default spec),
#   3. the example host application,
#   4. the headline: 4096^3 and 8192^3 in f16 and bf16 vs cuBLAS,
#   5. the docs/PERF.md sweep: every shape, f16 and bf16, the fixed spec and the
#      tuned spec (specs/tuned/defaults.yaml), each side by side with cuBLAS.
# Logs and JSON go to $OUT (tarred: the device returns at most 8 files).
#   usage (device): bash bench/h200-final.sh build-carry
set -u
C=${1:-build-carry}
OUT=${OUT:-/tmp/gemmgen-out}; L=$OUT/logs; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$PWD/$C/cache GEMMGEN_SOURCE_DIR=$PWD
G=$C/gemmgen
date -u > "$L/date.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > "$L/smi.txt" 2>&1
timeout 240 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1; GT=$?
mkdir -p build/tools && cp "$G" build/tools/gemmgen
GEMMGEN_SKIP_SETUP=1 timeout 120 bash scripts/main.sh > "$L/main.log" 2>&1; MAIN=$?
timeout 60 "$C/gemmgen_example" specs/sm90/05_fast_f16.yaml 1000 1000 512 > "$L/example.log" 2>&1; EX=$?
timeout 120 "$G" bench specs/sm90/05_fast_f16.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 30 --json "$L/headline_f16.json" > "$L/headline_f16.log" 2>&1
timeout 120 "$G" bench specs/sm90/06_fast_bf16.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 30 --json "$L/headline_bf16.json" > "$L/headline_bf16.log" 2>&1
SHAPES="2048x2048x2048 4096x4096x4096 8192x8192x8192 8192x8192x2048 4096x4096x16384 16384x4096x4096 4096x14336x4096 1024x8192x8192 128x8192x8192 4000x4000x4000"
for s in $SHAPES; do
  IFS=x read -r m n k <<< "$s"
  for dt in f16 bf16; do
    timeout 60 "$G" bench specs/sm90/05_fast_f16.yaml --dtype $dt --shapes "$s" --rounds 15 --json "$L/sweep_fixed_${s}_$dt.json" > "$L/sweep_fixed_${s}_$dt.log" 2>&1
    timeout 60 "$G" bench tuned --dtype $dt --m "$m" --n "$n" --k "$k" --rounds 15 --json "$L/sweep_tuned_${s}_$dt.json" > "$L/sweep_tuned_${s}_$dt.log" 2>&1
  done
done
tar czf "$OUT/final-logs.tgz" -C "$OUT" logs
echo "===== $(cat "$L/date.txt")  $(tail -1 "$L/smi.txt")"
echo "gpu tests rc=$GT: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -5
echo "main rc=$MAIN: $(grep -E 'verify|TFLOP|error' "$L/main.log" | tr '\n' ' ' | cut -c1-300)"
echo "example rc=$EX: $(tail -2 "$L/example.log" | tr '\n' ' ' | cut -c1-200)"
echo "-- headline"; grep -hE '^ *[0-9]+x[0-9]+x[0-9]+' "$L"/headline_*.log | cut -c1-110
echo "-- sweep (fixed = specs/sm90/05 with --dtype; tuned = specs/tuned)"
for s in $SHAPES; do for dt in f16 bf16; do for w in fixed tuned; do
  echo "$w $(grep -hE '^ *[0-9]+x[0-9]+x[0-9]+' "$L/sweep_${w}_${s}_$dt.log" | cut -c1-110)"; done; done; done
