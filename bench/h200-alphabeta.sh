#!/usr/bin/env bash
# D = alpha*A*B + beta*C on the H200: every GPU test (the AlphaBeta suite: every
# sm90 spec x separate C / in place / alpha only / K = 0 / batch with gaps /
# column-major D / 4096^3, D's padding and gaps checked), `run --alpha --beta
# --verify` at odd shapes, and bench with beta != 0 (in place, as cuBLAS computes
# it) next to beta = 0 at 4096^3 and 8192^3.
#   usage (device): bash bench/h200-alphabeta.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/alphabeta; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
timeout 400 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1; GT=$?
for args in "--m 129 --n 257 --k 72 --alpha 0.5 --beta 2" "--m 1000 --n 1001 --k 520 --beta 1 --c-in-place" \
            "--m 4096 --n 4096 --k 4104 --alpha -1 --beta 0.5" "--m 300 --n 200 --k 136 --beta 1 --layout col,row,col" \
            "--m 129 --n 257 --k 72 --batch 3 --beta 0.25 --c-in-place"; do
  f="$L/run_$(echo $args | tr -d ' -' | tr '.' 'p').txt"
  timeout 120 "$G" run specs/sm90/05_fast_f16.yaml $args --verify --iters 0 > "$f" 2>&1
  echo "run $args rc=$? $(grep -E '^verify|error' "$f" | cut -c1-110)"
done | tee "$L/runs.txt"
for dt in f16 bf16; do
  spec=specs/sm90/05_fast_f16.yaml; [ $dt = bf16 ] && spec=specs/sm90/06_fast_bf16.yaml
  for ab in "--beta 0" "--beta 0.5" "--alpha 2 --beta 0"; do echo "-- bench $dt $ab"
    timeout 200 "$G" bench $spec $ab --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 2>&1 \
      | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-130
  done
done | tee "$L/bench.txt"
echo "== gpu tests rc=$GT: $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -12
tar czf "${OUT:-/tmp}/alphabeta-logs.tgz" -C "$L" . && rm -rf "$L"
