#!/usr/bin/env bash
# Ping-pong consumers on the H200 (scheduler.consumers: pingpong, specs 20 and 21):
#   1. the GPU tests of the ping-pong specs (every shape, K = 0, batched, alpha/beta, layouts);
#   2. `run --verify` of each on shapes with odd tile counts per CTA, three times each
#      (fresh random inputs, D poisoned; a moving error would be a race);
#   3. bench against cuBLAS / cuBLASLt in the same process, cooperative spec first, then
#      the ping-pong spec, PASSES passes: f16 05 vs 20, bf16 06 vs 20 --dtype bf16,
#      bias+GELU 14 vs 21, at 4096^3 and 8192^3 and off-headline shapes.
#   usage (device): bash bench/h200-pingpong.sh CARRY [PASSES]   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
PASSES=${2:-2}
L=${OUT:-/tmp}/pp; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader > "$L/summary.txt"
date -u +%FT%TZ >> "$L/summary.txt"
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 240 "$C/gemmgen_gpu_tests" --gtest_filter='*pingpong*' > "$L/gpu_tests.log" 2>&1
  echo "gpu tests (pingpong) rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$L/summary.txt"
  grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
fi
V="4096x4096x4096 1000x1001x640 129x4000x64 8192x1152x1024 384x384x4104 3000x5000x2048"
for spec in specs/sm90/20_pingpong_f16.yaml specs/sm90/21_pingpong_bf16_bias_gelu.yaml; do
  for s in $V; do
    IFS=x read -r m n k <<< "$s"
    for i in 1 2 3; do
      timeout 60 "$G" run $spec --m $m --n $n --k $k --verify --iters 0 > "$L/verify_$(basename $spec .yaml)_${s}_$i.txt" 2>&1
      echo "verify $(basename $spec .yaml) $s #$i rc=$? $(grep -Eo '(PASS|FAIL)[^,]*' "$L/verify_$(basename $spec .yaml)_${s}_$i.txt" | head -1)" >> "$L/summary.txt"
    done
  done
done
timeout 60 "$G" run specs/sm90/20_pingpong_f16.yaml --m 1000 --n 1001 --k 640 --alpha 0.5 --beta 2 --verify --iters 0 > "$L/verify_20_beta.txt" 2>&1
echo "verify 20 alpha/beta rc=$?" >> "$L/summary.txt"
timeout 60 "$G" run specs/sm90/20_pingpong_f16.yaml --m 1000 --n 1001 --k 640 --batch 3 --verify --iters 0 > "$L/verify_20_batch.txt" 2>&1
echo "verify 20 batch 3 rc=$?" >> "$L/summary.txt"
timeout 60 "$G" run specs/sm90/20_pingpong_f16.yaml --m 1000 --n 1001 --k 0 --verify --iters 0 > "$L/verify_20_k0.txt" 2>&1
echo "verify 20 K=0 rc=$?" >> "$L/summary.txt"
HEAD=4096x4096x4096,8192x8192x8192
OFF=3000x5000x2048,7168x2048x4096,2048x2048x2048,4096x4096x4104,16384x1024x4096
b() { # label args...
  local label=$1; shift
  timeout 200 "$G" bench "$@" --rounds 20 --json "$L/bench_$label.json" > "$L/bench_$label.txt" 2>&1
  echo "bench $label rc=$?" >> "$L/summary.txt"
}
for pass in $(seq 1 "$PASSES"); do
  b f16_05_$pass specs/sm90/05_fast_f16.yaml --shapes $HEAD,$OFF
  b f16_20_$pass specs/sm90/20_pingpong_f16.yaml --shapes $HEAD,$OFF
  b bf16_06_$pass specs/sm90/06_fast_bf16.yaml --shapes $HEAD
  b bf16_20_$pass specs/sm90/20_pingpong_f16.yaml --dtype bf16 --shapes $HEAD
  b chain_14_$pass specs/sm90/14_fast_bf16_bias_gelu.yaml --shapes $HEAD
  b chain_21_$pass specs/sm90/21_pingpong_bf16_bias_gelu.yaml --shapes $HEAD
done
tar czf "${OUT:-/tmp}/pp-logs.tgz" -C "$L" .
cat "$L/summary.txt"
for f in "$L"/bench_*.txt; do echo "== $(basename $f .txt)"; grep -E '^ *[0-9]+x[0-9]+x[0-9]+' "$f" | cut -c1-140; done
