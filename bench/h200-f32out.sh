#!/usr/bin/env bash
# f32 output on the H200: every GPU test (spec 10_fast_f16_out_f32 joins SpecShape, ZeroK,
# Batched and AlphaBeta), `run --out-dtype f32 --verify` at odd shapes, and bench of f32 D
# (cuBLAS: cublasGemmEx with a CUDA_R_32F D) with beta = 0 and beta = 0.5 (in place).
#   usage (device): bash bench/h200-f32out.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/f32out; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
timeout 400 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1; GT=$?
for args in "--m 129 --n 257 --k 72" "--m 1000 --n 1001 --k 520 --beta 1 --c-in-place" \
            "--m 4096 --n 4096 --k 4104 --alpha 0.5 --beta 2" "--m 300 --n 200 --k 136 --layout col,row,col --beta 1" \
            "--m 129 --n 257 --k 72 --batch 3 --dtype bf16"; do
  f="$L/run_$(echo $args | tr -d ' -' | tr '.' 'p').txt"
  timeout 120 "$G" run specs/sm90/05_fast_f16.yaml --out-dtype f32 $args --verify --iters 0 > "$f" 2>&1
  echo "run --out-dtype f32 $args rc=$? $(grep -E '^verify|error' "$f" | cut -c1-110)"
done | tee "$L/runs.txt"
for dt in f16 bf16; do
  for ab in "--beta 0" "--beta 0.5"; do echo "-- bench $dt>f32 $ab (spec 10)"
    timeout 200 "$G" bench specs/sm90/10_fast_f16_out_f32.yaml --dtype $dt --out-dtype f32 $ab \
      --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 2>&1 | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-130
  done
done | tee "$L/bench.txt"
echo "== gpu tests rc=$GT: $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -12
tar czf "${OUT:-/tmp}/f32out-logs.tgz" -C "$L" . && rm -rf "$L"
