#!/usr/bin/env bash
# fp8 (spec 13, e4m3 -> bf16, per-tensor scales) on the H200. Builds nothing: $1 is a build
# folder holding gemmgen and tests/gemmgen_gpu_tests (or both at its top, like a carry).
#   usage (device): bash bench/h200-fp8.sh BUILD
# 1. the fp8 GPU tests (every element vs the scaled reference, odd shapes, staged cases), then
#    every GPU test of spec 13 (the ladder suites pick it up);
# 2. `run --verify` with scales != 1 on several shapes (e4m3, e5m2, beta != 0);
# 3. `bench` at 4096^3 and 8192^3. cuBLAS has no fp8 path here yet (cuBLASLt's is not built):
#    bench reports that instead of a ratio; the gemmgen TFLOP/s of `run` are the numbers.
B=${1:?usage: bash bench/h200-fp8.sh BUILD}; L=${OUT:-/tmp}/fp8; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$B/tools/gemmgen"; [ -x "$G" ] || G="$B/gemmgen"
T="$B/tests/gemmgen_gpu_tests"; [ -x "$T" ] || T="$B/gemmgen_gpu_tests"
S=specs/sm90/13_fast_e4m3.yaml
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
timeout 300 "$T" --gtest_filter='Sm90/Fp8Gemm.*' > "$L/fp8_tests.log" 2>&1
echo "fp8 tests rc=$?: $(grep -cE '^\[       OK \]' "$L/fp8_tests.log") ok, $(grep -cE '^\[  FAILED  \] Sm90' "$L/fp8_tests.log") failed" > "$L/summary.txt"
timeout 400 "$T" --gtest_filter='*13_fast_e4m3*' > "$L/spec13_suites.log" 2>&1
echo "spec-13 suites rc=$?: $(grep -cE '^\[       OK \]' "$L/spec13_suites.log") ok, $(grep -cE '^\[  FAILED  \] ' "$L/spec13_suites.log") failed" >> "$L/summary.txt"
for run in "--m 4096 --n 4096 --k 4096" "--m 8192 --n 8192 --k 8192" "--m 129 --n 257 --k 160" \
           "--m 1000 --n 1001 --k 528" "--m 4096 --n 4096 --k 4096 --dtype e5m2" \
           "--m 4096 --n 4096 --k 4096 --alpha 0.5 --beta 1.5"; do
  f="$L/run_$(echo $run | tr -d '-' | tr ' ' '_').txt"
  timeout 120 "$G" run $S $run --scale-a 0.5 --scale-b 3 --verify --iters 20 > "$f" 2>&1
  echo "run $run: rc=$? $(grep -E 'verify|TFLOP' "$f" | tr '\n' ' ' | cut -c1-160)" >> "$L/summary.txt"
done
for n in 4096 8192; do
  timeout 200 "$G" bench $S --m $n --n $n --k $n > "$L/bench_$n.txt" 2>&1
  echo "bench ${n}^3: rc=$? $(grep -E "^ *${n}x|error" "$L/bench_$n.txt" | head -2 | tr '\n' ' ' | cut -c1-160)" >> "$L/summary.txt"
done
grep -E '^\[  FAILED  \] [A-Z]' "$L"/*.log | head -12
grep -h '^\[ result \]' "$L/fp8_tests.log" | cut -c1-170
echo "== fp8 on $(cat "$L/gpu.txt")"; cat "$L/summary.txt"
