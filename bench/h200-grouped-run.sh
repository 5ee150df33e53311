#!/usr/bin/env bash
# `gemmgen run --groups --verify` on the H200 (each problem in buffers of its own, every
# problem verified against its reference), then the headline three times (the first grouped
# run measured f16 4096^3 at 0.992 with the if_any_k release: repeat before calling it noise).
#   usage (device): bash bench/h200-grouped-run.sh CARRY   (CARRY: gemmgen)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/grouped-run; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
run() { # label, then the run arguments
  local label=$1; shift
  timeout 200 "$G" run "$@" --verify --iters 10 > "$L/run_$label.txt" 2>&1
  echo "$label rc=$? $(grep -E '^verify|^time|error' "$L/run_$label.txt" | cut -c1-100 | tr '\n' ' ')"
}
{
run moe64_f16 specs/sm90/11_fast_f16_grouped.yaml --groups bench/groups/moe64.txt --n 4096 --k 7168
run moe64_bf16 specs/sm90/06_fast_bf16.yaml --groups bench/groups/moe64.txt --n 4096 --k 7168
run mixed_f16 specs/sm90/05_fast_f16.yaml --groups bench/groups/mixed7.txt
run mixed_beta_inplace specs/sm90/05_fast_f16.yaml --groups bench/groups/mixed7.txt --alpha 2 --beta 0.5 --c-in-place
run mixed_beta_separate specs/sm90/03_ws_2consumers.yaml --groups bench/groups/mixed7.txt --beta -1
run mixed_colD specs/sm90/05_fast_f16.yaml --groups bench/groups/mixed7.txt --layout col,row,col
run mixed_acol_brow specs/sm90/09_fast_bf16_a_col_b_row.yaml --groups bench/groups/mixed7.txt
run mixed_f32out specs/sm90/10_fast_f16_out_f32.yaml --groups bench/groups/mixed7.txt
run mixed_cluster2 specs/sm90/02_ws_cluster2.yaml --groups bench/groups/mixed7.txt
} | tee "$L/runs.txt"
for i in 1 2 3; do
  for dt in f16 bf16; do
    spec=specs/sm90/05_fast_f16.yaml; [ $dt = bf16 ] && spec=specs/sm90/06_fast_bf16.yaml
    echo "-- headline $i $dt"
    timeout 200 "$G" bench $spec --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 2>&1 \
      | grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' | cut -c1-120
  done
done | tee "$L/bench_headline.txt"
tar czf "${OUT:-/tmp}/grouped-run-logs.tgz" -C "$L" . && rm -rf "$L"
