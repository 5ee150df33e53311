#!/usr/bin/env bash
# Strided batched GEMM on the H200: every GPU test (the Batched suite included:
# every sm90 spec x packed / gaps / B broadcast / 512 entries / K = 0 / col-major
# D, gaps and padding checked untouched), `run --batch --verify` at odd shapes,
# bench --batch against cublasGemmStridedBatchedEx, and 4096^3 / 8192^3 without
# a batch (3-D tensor maps in every sm90 kernel now: the headline must hold).
#   usage (device): bash bench/h200-batched.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/batched; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
timeout 300 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1; GT=$?
for sh in "3 129 257 72" "7 1000 1001 520" "64 1024 1024 1024" "2 4096 4096 4104"; do
  set -- $sh; f="$L/run_$1x$2x$3x$4.txt"
  timeout 120 "$G" run specs/sm90/05_fast_f16.yaml --batch $1 --m $2 --n $3 --k $4 --verify --iters 0 > "$f" 2>&1
  echo "run batch $1 $2x$3x$4 rc=$? $(grep -E '^verify|error' "$f" | cut -c1-110)"
done | tee "$L/runs.txt"
for dt in f16 bf16; do
  spec=specs/sm90/05_fast_f16.yaml; [ $dt = bf16 ] && spec=specs/sm90/06_fast_bf16.yaml
  for b in "64 1024x1024x1024" "512 128x128x64" "16 4096x4096x128" "8 2048x2048x2048"; do
    set -- $b; echo "-- bench $dt batch $1 $2"
    timeout 200 "$G" bench $spec --batch $1 --shapes $2 --rounds 20 2>&1 | grep -E '^ *[0-9]+\*|error' | cut -c1-120
  done
  echo "-- bench $dt no batch"
  timeout 200 "$G" bench $spec --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 2>&1 \
    | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-120
done | tee "$L/bench.txt"
# 512 entries of 128x128x64: the 128x256 tile computes half zeros; smaller tiles
# from the tuned set (128x128 one consumer, 64x128 one consumer).
for sp in specs/tuned/nvidia_h200/f16_2048x2048x2048.yaml specs/tuned/nvidia_h200/f16_128x8192x8192.yaml; do
  for dt in f16 bf16; do echo "-- bench $dt batch 512 128x128x64 $(basename $sp)"
  timeout 200 "$G" bench $sp --dtype $dt --batch 512 --shapes 128x128x64 --rounds 20 2>&1 | grep -E '^ *[0-9]+\*|error' | cut -c1-120
done; done | tee "$L/bench_small.txt"
echo "== gpu tests rc=$GT: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -12
grep -E 'broadcastB' "$L/gpu_tests.log" | grep -E 'FAILED|failed|result' | head -4
tar czf "${OUT:-/tmp}/batched-logs.tgz" -C "$L" . && rm -rf "$L"
