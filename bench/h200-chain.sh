#!/usr/bin/env bash
# Epilogue chains and fp8 on the H200, correctness first (one call):
#   1. every GPU test (the Epilogue suite, spec 13 fp8 and spec 14 bias+GELU through every suite);
#   2. `run --verify` of spec 14 (bias -> gelu_tanh) and spec 13 (e4m3, scales 0.5 and 3) on
#      aligned and odd shapes, and spec 06 (the same kernel without the chain) for the cost of
#      the chain at 4096^3 and 8192^3;
#   3. spec 06 against cuBLAS at 4096^3 (the plain GEMM's ratio in this run).
#   usage (device): bash bench/h200-chain.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
C=${1:-.devrun/bc}; L=${OUT:-/tmp}/chain; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=/tmp/gemmgen-cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/gpu.txt"
date -u > "$L/date.txt"
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
runs() { # spec label args...
  local spec=$1 label=$2; shift 2
  timeout 120 "$G" run "$spec" "$@" --verify --iters 30 --json > "$L/run_$label.json" 2> "$L/run_$label.err"
  echo "$label rc=$? $(python3 -c "import json,sys; j=json.load(open('$L/run_$label.json')); v=j.get('verify',{}); print(f\"{j['M']}x{j['N']}x{j['K']} {j['tflops']:.1f} TF/s median {j['time_ms']['median']:.4f} ms rel_err {v.get('rel_frobenius',-1):.2e} pass {v.get('pass')} path {j['path']} epi {j.get('epilogue')}\")" 2>/dev/null || tail -2 "$L/run_$label.err")" >> "$L/summary.txt"
}
S14=specs/sm90/14_fast_bf16_bias_gelu.yaml S13=specs/sm90/13_fast_e4m3.yaml S06=specs/sm90/06_fast_bf16.yaml
for rep in 1 2; do
  runs $S06 "plain_4096_r$rep" --m 4096 --n 4096 --k 4096
  runs $S14 "chain_4096_r$rep" --m 4096 --n 4096 --k 4096
  runs $S06 "plain_8192_r$rep" --m 8192 --n 8192 --k 8192
  runs $S14 "chain_8192_r$rep" --m 8192 --n 8192 --k 8192
done
runs $S14 chain_odd --m 1000 --n 1001 --k 520
runs $S14 chain_beta --m 129 --n 257 --k 72 --beta 0.5
runs $S13 fp8_4096 --m 4096 --n 4096 --k 4096 --scale-a 0.5 --scale-b 3
runs $S13 fp8_8192 --m 8192 --n 8192 --k 8192 --scale-a 0.5 --scale-b 3
runs $S13 fp8_odd --m 1000 --n 1001 --k 528 --scale-a 0.5 --scale-b 3
runs $S13 fp8_e5m2 --m 4096 --n 4096 --k 4096 --dtype e5m2 --scale-a 0.5 --scale-b 3
timeout 120 "$G" bench $S06 --shapes 4096x4096x4096 --rounds 20 > "$L/bench_06.txt" 2>&1
echo "bench 06 rc=$?: $(grep -E '^ *4096x' "$L/bench_06.txt" | cut -c1-150)" >> "$L/summary.txt"
tar czf "${OUT:-/tmp}/chain-logs.tgz" -C "$L" . 
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -15
grep -h '^\[ result \]' "$L/gpu_tests.log" | grep -iE "chain|epilogue|Epilogue|14_fast|13_fast|e4m3" | cut -c1-160 | head -30
echo "== $(cat "$L/date.txt") $(cat "$L/gpu.txt")"; cat "$L/summary.txt"
