#!/usr/bin/env bash
# Grouped GEMM (mixture of experts) on the H200: every GPU test (the Grouped
# suite: every generated spec compiled grouped x 7 cases), bench --groups
# against cublasGemmGroupedBatchedEx for 64 groups (bench/groups/moe64.txt,
# M_i in 0..512 with 4 empty, sum 15405) at N x K = 4096 x 7168 and 7168 x 2048,
# f16 and bf16; and 4096^3 / 8192^3 without groups (the if_any_k release block
# is in every kernel now: the headline must hold).
#   usage (device): bash bench/h200-grouped.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/grouped; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
for dt in f16 bf16; do
  for nk in "4096 7168" "7168 2048"; do
    set -- $nk; echo "-- bench grouped $dt moe64 N=$1 K=$2"
    timeout 200 "$G" bench specs/sm90/11_fast_f16_grouped.yaml --dtype $dt --groups bench/groups/moe64.txt \
      --n $1 --k $2 --rounds 20 > "$L/bench_${dt}_$1x$2.txt" 2>&1; echo "rc=$?"
    grep -E '^grouped|groups|error' "$L/bench_${dt}_$1x$2.txt" | cut -c1-140
  done
done | tee "$L/bench_grouped.txt"
for dt in f16 bf16; do
  spec=specs/sm90/05_fast_f16.yaml; [ $dt = bf16 ] && spec=specs/sm90/06_fast_bf16.yaml
  echo "-- bench $dt headline"
  timeout 200 "$G" bench $spec --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 2>&1 \
    | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-120
done | tee "$L/bench_headline.txt"
if [ -x "$C/gemmgen_gpu_tests" ] && [ -n "$GPU_TESTS" ]; then
  timeout 300 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
  echo "== gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')"
fi
tar czf "${OUT:-/tmp}/grouped-logs.tgz" -C "$L" . && rm -rf "$L"
