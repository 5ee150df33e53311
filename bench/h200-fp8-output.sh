#!/usr/bin/env bash
# fp8 outputs (specs/sm90/16_fast_e4m3_out_e4m3.yaml): every GPU test (the
# new 8-bit D cases of Fp8Gemm and Epilogue, spec 16 in every suite), `run
# --verify` with its amax, and bench against cuBLASLt's e4m3 output (D_SCALE
# and AMAX_D pointers, a bf16 C) next to spec 13 (e4m3 -> bf16) at 4096^3 and
# 8192^3, three times each.
#   usage (device): bash bench/h200-fp8-output.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests, cache/)
C=${1:-.devrun/bc}; case $C in /*) ;; *) C=$PWD/$C ;; esac
L=/tmp/fo; rm -rf "$L"; mkdir -p "$L"
export GEMMGEN_CACHE_DIR=$C/cache GEMMGEN_SOURCE_DIR=$PWD
G="$C/gemmgen"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
timeout 420 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" > "$L/summary.txt"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | head -10 >> "$L/summary.txt"
grep -E -A4 ': Failure$' "$L/gpu_tests.log" | head -40 | cut -c1-250 >> "$L/summary.txt"
grep -E '^\[ result \] fp8 e4m3 x e[45]m[23] > e[45]m[23]|^\[ result \] .*16_fast' "$L/gpu_tests.log" | cut -c1-230 > "$L/fp8_out_results.txt"
for s in "--m 1000 --n 1001 --k 640" "--m 4096 --n 4096 --k 4096" "--m 129 --n 257 --k 160 --beta 0.5"; do
  timeout 60 "$G" run specs/sm90/16_fast_e4m3_out_e4m3.yaml $s --scale-a 0.5 --scale-b 2 --scale-d 0.25 \
    --verify --iters 0 > "$L/run.txt" 2>&1
  echo "run 16 $s rc=$?: $(grep -iE 'verify|amax|error' "$L/run.txt" | head -3 | tr '\n' ' ' | cut -c1-300)" >> "$L/summary.txt"
done
for rep in 1 2 3; do
  for s in specs/sm90/16_fast_e4m3_out_e4m3.yaml specs/sm90/13_fast_e4m3.yaml; do
    timeout 180 "$G" bench $s --shapes 4096x4096x4096,8192x8192x8192 --rounds 10 --scale-a 0.5 \
      --scale-b 2 --scale-d 0.25 --json "$L/bench_$(basename $s .yaml)_$rep.json" > "$L/bench_$(basename $s .yaml)_$rep.txt" 2>&1
    echo "bench $s rep $rep rc=$?:" >> "$L/summary.txt"
    grep -E '^ *[0-9]+x[0-9]+x[0-9]+|error|  cuBLASLt fused:|amax' "$L/bench_$(basename $s .yaml)_$rep.txt" | cut -c1-170 >> "$L/summary.txt"
  done
done
# Everything in one archive (the summary beside it).
tar -C "$L" -czf "${OUT:-/tmp}/fp8_output_logs.tar.gz" . ; cp "$L/summary.txt" "${OUT:-/tmp}/"
cat "$L/summary.txt"
