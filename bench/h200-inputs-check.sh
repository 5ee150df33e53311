#!/usr/bin/env bash
# After GemmVerifier::attachKernelInputs took over the bias/scale/fp8-scale
# set-up of `run`, bench's workloads and the GPU tests: every GPU test, `run
# --verify` of the chain and fp8 specs, and bench (against cuBLASLt) of each.
#   usage (device): bash bench/h200-inputs-check.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=${OUT:-/tmp}/ic; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
timeout 300 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
for s in "specs/sm90/13_fast_e4m3.yaml --scale-a 0.5 --scale-b 2" specs/sm90/14_fast_bf16_bias_gelu.yaml \
         specs/sm90/15_blockwise_e4m3.yaml "specs/sm90/14_fast_bf16_bias_gelu.yaml --batch 3"; do
  timeout 60 "$G" run $s --m 1000 --n 1001 --k 640 --verify --iters 0 > "$L/run.txt" 2>&1
  echo "run $s rc=$?: $(grep -iE 'verify|error' "$L/run.txt" | head -2 | tr '\n' ' ' | cut -c1-170)" >> "$L/summary.txt"
done
for s in "specs/sm90/14_fast_bf16_bias_gelu.yaml" "specs/sm90/13_fast_e4m3.yaml --scale-a 0.5 --scale-b 2" \
         "specs/sm90/15_blockwise_e4m3.yaml"; do
  timeout 120 "$G" bench $s --shapes 4096x4096x4096 --rounds 10 > "$L/bench.txt" 2>&1
  echo "bench $s rc=$?:" >> "$L/summary.txt"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error|  cuBLASLt fused:|  unfused:' "$L/bench.txt" | cut -c1-170 >> "$L/summary.txt"
done
gzip -9 "$L/gpu_tests.log"; cp "$L/gpu_tests.log.gz" "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"
