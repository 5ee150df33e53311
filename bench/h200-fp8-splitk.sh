#!/usr/bin/env bash
# Split-K with fp8 operands: every GPU test (Fp8Gemm's split cases, spec 17 in
# every suite), then bench against cuBLASLt on the DeepSeek-V3 projection
# shapes at M = 128 — blockwise: spec 15 (no split), spec 17 (split_k 4) and
# its split_k 2 / 8 variants against cuBLASLt's block scaling; per tensor:
# spec 13 and its split_k 4 / 8 variants against cuBLASLt fp8 — and M = 4096
# for spec 15 / 17 (where split-K should stay one slice's worth of waves).
#   usage (device): bash bench/h200-fp8-splitk.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/fs; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
grep -E -A4 ': Failure$' "$L/gpu_tests.log" | head -40 | cut -c1-250 >> "$L/summary.txt"
grep -E '^\[ result \] fp8 .*split' "$L/gpu_tests.log" | cut -c1-230 > "$L/split_results.txt"
S128=128x7168x2048,128x4096x7168,128x7168x18432,128x2112x7168
for s in specs/sm90/15_blockwise_e4m3.yaml specs/sm90/17_splitk_blockwise_e4m3.yaml \
         bench/variants/17_splitk2_blockwise_e4m3.yaml bench/variants/17_splitk8_blockwise_e4m3.yaml \
         specs/sm90/13_fast_e4m3.yaml bench/variants/13_splitk4_e4m3.yaml bench/variants/13_splitk8_e4m3.yaml; do
  n=$(basename $s .yaml)
  timeout 200 "$G" bench $s --shapes $S128 --rounds 10 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
  echo "bench $s rc=$?:" >> "$L/summary.txt"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | cut -c1-150 >> "$L/summary.txt"
done
for s in specs/sm90/15_blockwise_e4m3.yaml specs/sm90/17_splitk_blockwise_e4m3.yaml; do
  n=$(basename $s .yaml)_m4096
  timeout 200 "$G" bench $s --shapes 4096x7168x2048,4096x2112x7168 --rounds 10 --json "$L/bench_$n.json" > "$L/bench_$n.txt" 2>&1
  echo "bench $s (M = 4096) rc=$?:" >> "$L/summary.txt"
  grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error' "$L/bench_$n.txt" | cut -c1-150 >> "$L/summary.txt"
done
tar -C "$L" -czf "${OUT:-/tmp}/fp8_splitk_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"
